"""Exceptions raised by backplane, built from the C API's structured error
(bp_last_error_status / _op / _input / _device*): one class per status of
BP_STATUS_LIST (backplane/vocabulary.h, exported as _C.statuses), all deriving
from BackplaneError, several also from the matching builtin (a ShapeError is a
ValueError, an OutOfMemoryError a MemoryError, ...).

The class of status BP_ERR_<WORDS> is <Words>Error: BP_ERR_SHAPE gives
ShapeError, BP_ERR_OUT_OF_MEMORY OutOfMemoryError. A status number this module
does not know (one a newer library added) raises BackplaneError itself."""
import re

from . import _C


class BackplaneError(Exception):
    """A failed Backplane call.

    Attributes: message (the core's text), status (e.g. "BP_ERR_SHAPE"),
    code (the bp_status number), op (operator name such as "add", or None),
    input (index of the offending input, or None), devices (tuple of Device:
    each tensor input's device, for device mismatches)."""

    # The status of the class; the subclass of each status sets its own.
    _status, _code = "", 0

    def __init__(self, message, status=None, code=None, op=None, input=None, devices=()):
        super().__init__(message)
        self.message = message
        self.status = self._status if status is None else status
        self.code = self._code if code is None else code
        self.op = op
        self.input = input
        self.devices = tuple(devices)


# The builtin exception each status's class also derives from, where one fits.
_BUILTIN = {
    "BP_ERR_INVALID_ARGUMENT": ValueError,
    "BP_ERR_INVALID_HANDLE": ValueError,
    "BP_ERR_UNKNOWN_DEVICE": ValueError,
    "BP_ERR_UNSUPPORTED": NotImplementedError,
    "BP_ERR_SHAPE": ValueError,
    "BP_ERR_DTYPE": TypeError,
    "BP_ERR_OUT_OF_MEMORY": MemoryError,
    "BP_ERR_DEVICE_MISMATCH": RuntimeError,
    "BP_ERR_CONFIG": RuntimeError,
    "BP_ERR_PLUGIN": RuntimeError,
    "BP_ERR_BACKEND": RuntimeError,
    "BP_ERR_STATE": RuntimeError,
    "BP_ERR_INTERNAL": RuntimeError,
    "BP_ERR_INDEX": IndexError,
    "BP_ERR_PEER": TimeoutError,
    "BP_ERR_IO": OSError,
    "BP_ERR_FORMAT": ValueError,
}

# What the docstrings add to the status's own description.
_NOTE = {
    "BP_ERR_DEVICE_MISMATCH": "Never copied silently: .op names the operator, .devices "
                              "lists each input's device.",
    "BP_ERR_CONFIG": "The message gives file:line:column.",
    "BP_ERR_PEER": "The process group is broken after it: exit the process.",
    "BP_ERR_IO": "The message names the file and the system's reason.",
    "BP_ERR_FORMAT": "The message names the file, the byte offset and what is wrong there.",
}

_PREFIX = "BP_ERR_"


def _class_name(status):
    """"BP_ERR_OUT_OF_MEMORY" -> "OutOfMemoryError"."""
    words = status[len(_PREFIX):].split("_")
    return "".join(w.capitalize() for w in words) + "Error"


def _make_class(code, status, doc):
    bases = (BackplaneError,) + ((_BUILTIN[status],) if status in _BUILTIN else ())
    text = "{}: {}.".format(status, doc)
    if status in _NOTE:
        text += " " + _NOTE[status]
    return type(_class_name(status), bases, {
        "__doc__": text, "__module__": "backplane",  # shown as backplane.ShapeError
        "_status": status, "_code": code})


BackplaneError.__module__ = "backplane"
_BY_CODE = {}  # bp_status value -> class
__all__ = ["BackplaneError"]
for _code, _status, _doc in _C.statuses:
    if _status.startswith(_PREFIX):
        _cls = _BY_CODE[_code] = _make_class(_code, _status, _doc)
        globals()[_cls.__name__] = _cls
        __all__.append(_cls.__name__)
del _code, _status, _doc, _cls


def error_class(code):
    """The class raised for bp_status value `code` (BackplaneError for a value
    this module does not know)."""
    return _BY_CODE.get(code, BackplaneError)


def _status_name(code):
    """"BP_ERR_SHAPE" for 6; for a number this module does not know, the
    loaded library's name for it (it may be newer)."""
    cls = _BY_CODE.get(code)
    if cls is not None:
        return cls._status
    try:
        return _C.status_name(code)
    except Exception:  # an unknown number in an error report must not hide the error
        return "BP_ERR_{}".format(code)


# The core's hints name C calls; a Python caller reads the Python spelling.
_PYTHON_SPELLINGS = (
    ("move the inputs with bp_to", "move the inputs with `.to(device)`"),
    ("move one with bp_to", "move one with `.to(device)`"),
    ("bp_binary_scalar(BP_OP_NE, c, 0, ...)", "`c != 0`"),
    ("(bp_grad_set_enabled(0, ...))", "(`with bp.no_grad():`)"),
    ("bp_detach gives a leaf", "`.detach()` gives a leaf"),
    ("bp_tensor_set_requires_grad:", "requires_grad_:"),
    ("pass retain_graph to", "pass retain_graph=True to"),
)
_C_NAME = re.compile(r"\bbp_([a-z][a-z0-9_]*)")


def python_spelling(message):
    """The core's message with the C calls it names in their Python spelling:
    the hints of _PYTHON_SPELLINGS, and bp_<name> as bp.<name> where the
    package has that function."""
    import backplane
    for c, py in _PYTHON_SPELLINGS:
        message = message.replace(c, py)
    return _C_NAME.sub(lambda m: "bp." + m.group(1) if callable(getattr(backplane, m.group(1), None))
                       else m.group(0), message)


def make_error(code, message, op, input, device_ids, device_of):
    """The exception for one C API failure (called by backplane._C)."""
    devices = []
    for i in device_ids:
        try:
            devices.append(device_of(i))
        except Exception:  # a bad id in an error report must not hide the error
            pass
    return error_class(code)(python_spelling(message), status=_status_name(code), code=code, op=op or None,
                             input=None if input < 0 else input, devices=devices)
