"""Exceptions raised by backplane, built from the C API's structured error
(bp_last_error_status / _op / _input / _device*): one class per status, all
deriving from BackplaneError, several also from the matching builtin (a
ShapeError is a ValueError, an OutOfMemoryError a MemoryError, ...)."""


class BackplaneError(Exception):
    """A failed Backplane call.

    Attributes: message (the core's text), status (e.g. "BP_ERR_SHAPE"),
    code (the bp_status number), op (operator name such as "add", or None),
    input (index of the offending input, or None), devices (tuple of Device:
    each tensor input's device, for device mismatches)."""

    def __init__(self, message, status="", code=0, op=None, input=None, devices=()):
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.op = op
        self.input = input
        self.devices = tuple(devices)


class InvalidArgumentError(BackplaneError, ValueError):
    """BP_ERR_INVALID_ARGUMENT: a bad argument value."""


class InvalidHandleError(BackplaneError, ValueError):
    """BP_ERR_INVALID_HANDLE: a released or unknown tensor handle or device id."""


class DeviceMismatchError(BackplaneError):
    """BP_ERR_DEVICE_MISMATCH: operator inputs on different devices (never copied
    silently). .op names the operator, .devices lists each input's device."""


class UnknownDeviceError(BackplaneError, ValueError):
    """BP_ERR_UNKNOWN_DEVICE: a device name or index that does not exist."""


class UnsupportedError(BackplaneError, NotImplementedError):
    """BP_ERR_UNSUPPORTED: the device's backend does not implement op/dtype."""


class ShapeError(BackplaneError, ValueError):
    """BP_ERR_SHAPE: shapes that do not broadcast, bad axis or rank."""


class DtypeError(BackplaneError, TypeError):
    """BP_ERR_DTYPE: element type not allowed for the operator."""


class OutOfMemoryError(BackplaneError, MemoryError):
    """BP_ERR_OUT_OF_MEMORY: a host or device allocation failed."""


class ConfigError(BackplaneError):
    """BP_ERR_CONFIG: the TOML configuration is malformed (file:line:column)."""


class PluginError(BackplaneError):
    """BP_ERR_PLUGIN: a backend could not be loaded or initialised."""


class BackendError(BackplaneError):
    """BP_ERR_BACKEND: a backend call failed (driver error, ...)."""


class StateError(BackplaneError):
    """BP_ERR_STATE: a call not valid now (e.g. init() after the runtime started)."""


class InternalError(BackplaneError):
    """BP_ERR_INTERNAL: a bug in Backplane."""


_BY_CODE = {
    1: ("BP_ERR_INVALID_ARGUMENT", InvalidArgumentError),
    2: ("BP_ERR_INVALID_HANDLE", InvalidHandleError),
    3: ("BP_ERR_DEVICE_MISMATCH", DeviceMismatchError),
    4: ("BP_ERR_UNKNOWN_DEVICE", UnknownDeviceError),
    5: ("BP_ERR_UNSUPPORTED", UnsupportedError),
    6: ("BP_ERR_SHAPE", ShapeError),
    7: ("BP_ERR_DTYPE", DtypeError),
    8: ("BP_ERR_OUT_OF_MEMORY", OutOfMemoryError),
    9: ("BP_ERR_CONFIG", ConfigError),
    10: ("BP_ERR_PLUGIN", PluginError),
    11: ("BP_ERR_BACKEND", BackendError),
    12: ("BP_ERR_STATE", StateError),
    13: ("BP_ERR_INTERNAL", InternalError),
}


def make_error(code, message, op, input, device_ids, device_of):
    """The exception for one C API failure (called by backplane._C)."""
    status, cls = _BY_CODE.get(code, ("BP_ERR_{}".format(code), BackplaneError))
    devices = []
    for i in device_ids:
        try:
            devices.append(device_of(i))
        except Exception:  # a bad id in an error report must not hide the error
            pass
    return cls(message, status=status, code=code, op=op or None,
               input=None if input < 0 else input, devices=devices)


for _cls in list(globals().values()):
    if isinstance(_cls, type) and issubclass(_cls, BackplaneError):
        _cls.__module__ = "backplane"  # shown as backplane.DeviceMismatchError
del _cls
