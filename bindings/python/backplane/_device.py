"""Devices: bp.cpu(), bp.gpu(i), bp.num_gpus(), bp.try_gpu(i), bp.try_all_gpus(),
bp.devices(), bp.device("opencl:1"), and the thread-local default-device scope
(`with bp.default_device(dev):`, or `with dev:`)."""
from _thread import _local

from . import _C

_KINDS = {_C.DEVICE_CPU: "cpu", _C.DEVICE_GPU: "gpu", _C.DEVICE_ACCELERATOR: "accelerator"}
_BY_ID = {}  # runtime device id -> Device (one object per device)
_OPS = {name: value for value, name, _family in _C.ops}  # bp_op values by name


def _info_field(key, doc=None):
    """A read-only Device property: field `key` of the bp_device_info read
    when the Device was made."""
    return property(lambda self: self._info[key], doc=doc)


class Device:
    """A device such as cpu:0 or opencl:1. There is one Device object per
    device, so `is`, == and hash agree; str() and repr() give its name.
    Device("opencl:1") resolves a name like bp.device() does.

    Usable as a context manager: `with bp.gpu(1): ...` makes it the default
    device for tensors created in the block (this thread only), like
    `with bp.default_device(bp.gpu(1)):`."""

    __slots__ = ("_id", "_name", "_info")

    def __new__(cls, spec):
        return device(spec)

    @classmethod
    def _make(cls, device_id):
        self = object.__new__(cls)
        self._id = device_id
        self._info = info = _C.device_info(device_id)
        self._name = info["name"]
        return self

    @property
    def id(self):
        """Runtime id (bp_device): valid in this process only; use .name across processes."""
        return self._id

    @property
    def name(self):
        """Canonical name, e.g. "opencl:1"."""
        return self._name

    @property
    def type(self):
        """Backend prefix of the name, e.g. "opencl" (like torch.device.type)."""
        return self._name.partition(":")[0]

    index = _info_field("index", "Index within its backend (the 1 of opencl:1).")

    backend = _info_field("backend", "Name of the plugin that owns the device.")

    @property
    def kind(self):
        """"cpu", "gpu" or "accelerator", as the backend reports it."""
        return _KINDS.get(self._info["kind"], str(self._info["kind"]))

    is_accelerator = _info_field(
        "is_accelerator", "True when counted by gpu(i) / num_gpus() ([devices] accelerator_kinds).")

    model = _info_field("model")

    def info(self):
        """Fresh bp_device_info as a dict (memory figures included)."""
        return _C.device_info(self._id)

    def properties(self):
        """Backend-specific (key, value) pairs: model, cores, library versions."""
        return _C.device_properties(self._id)

    def synchronize(self):
        """Blocks until every operation queued on this device has finished."""
        _C.synchronize(self._id)

    def supports(self, op, dtype, out_dtype=None):
        """Whether this device's own backend runs operator `op` (its name in
        backplane/vocabulary.h, "matmul", or its number) on inputs of `dtype`
        writing `out_dtype` (default: the operator's output rule; "copy"
        needs it). The host fallback does not count (bp_device_supports)."""
        from ._dtype import as_dtype
        code = _OPS[op] if isinstance(op, str) else int(op)
        out = 0 if out_dtype is None else as_dtype(out_dtype).code
        return _C.device_supports(self._id, code, as_dtype(dtype).code, out)

    def __repr__(self):
        return self._name

    __str__ = __repr__

    # Equal to its canonical name too, as a dtype is to "float32"; the hash is
    # the name's so that a dict keyed by names finds a Device and back.
    def __eq__(self, other):
        if isinstance(other, Device):
            return self._id == other._id
        if isinstance(other, str):
            return other == self._name
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self._name)

    def __reduce__(self):
        return (device, (self._name,))

    def __enter__(self):
        _push(self)
        return self

    def __exit__(self, *exc):
        _pop(self)
        return False


def device_of(device_id):
    """The Device for a runtime id (cached)."""
    d = _BY_ID.get(device_id)
    if d is None:
        d = _BY_ID[device_id] = Device._make(device_id)
    return d


def device(spec):
    """A Device from a name ("cpu", "cpu:0", "opencl:1", "gpu", "gpu:1",
    "default") or a Device. Unknown names raise bp.UnknownDeviceError, whose
    message lists the devices that exist."""
    if isinstance(spec, Device):
        return spec
    if isinstance(spec, str):
        return device_of(_C.device_get(spec))
    raise TypeError("a device is a bp.Device or a name such as 'cpu:0' or 'opencl:1', "
                    "not {}".format(type(spec).__name__))


def devices():
    """Every device of every loaded backend (starts all backends)."""
    return [device_of(i) for i in _C.devices()]


def cpu():
    """The host CPU device, cpu:0."""
    return device_of(_C.cpu())


def gpu(i=0):
    """The i-th accelerator device (backends in fallback order); raises
    bp.UnknownDeviceError when there is none."""
    return device_of(_C.gpu(i))


def num_gpus():
    """Number of accelerator devices."""
    return _C.num_gpus()


def try_gpu(i=0):
    """gpu(i) if it exists, else cpu()."""
    return device_of(_C.try_gpu(i))


def try_all_gpus():
    """Every accelerator device; an empty list when there is none."""
    return [device_of(i) for i in _C.try_all_gpus()]


def synchronize(dev=None):
    """Waits for every operation queued on dev (a Device or name), or on every
    device when dev is None."""
    if dev is None:
        for i in _C.devices():
            _C.synchronize(i)
    else:
        _C.synchronize(device(dev)._id)


# ---- default device scope (thread-local) ----------------------------------

_state = _local()


def _push(dev):
    stack = getattr(_state, "stack", None)
    if stack is None:
        stack = _state.stack = []
    stack.append(dev)


def _pop(dev):
    stack = getattr(_state, "stack", None)
    if not stack:
        raise RuntimeError("default device scope exited more often than entered")
    stack.pop()


_process_default = [None]  # set_default_device(); None: the configured default


def set_default_device(dev):
    """Makes dev (a Device or name) the device new tensors go to in this
    process when no default_device() scope is active, like
    torch.set_default_device; None goes back to the configured default
    ([devices] default: "cpu" unless configured; "auto" picks an accelerator)."""
    _process_default[0] = None if dev is None else device(dev)


def current_device():
    """The device new tensors go to here: the innermost default_device() scope
    of this thread, else set_default_device()'s, else the configured default
    ([devices] default)."""
    stack = getattr(_state, "stack", None)
    if stack:
        return stack[-1]
    return _process_default[0] or device_of(_C.default_device())


def current_device_id():
    stack = getattr(_state, "stack", None)
    if stack:
        return stack[-1]._id
    d = _process_default[0]
    return d._id if d is not None else _C.default_device()


class default_device:
    """`with bp.default_device(dev):` creation functions called without a device
    in this block (this thread only) put their tensors on dev. Scopes nest.
    Like jax.default_device / tf.device; operators still run where their
    inputs live, and existing tensors never move."""

    __slots__ = ("device",)

    def __init__(self, dev):
        self.device = device(dev)

    def __enter__(self):
        _push(self.device)
        return self.device

    def __exit__(self, *exc):
        _pop(self.device)
        return False

    def __repr__(self):
        return "default_device({})".format(self.device)


def resolve(dev):
    """Device id for an optional device argument (None = current default)."""
    if dev is None:
        return current_device_id()
    if isinstance(dev, Device):
        return dev._id
    return device(dev)._id
