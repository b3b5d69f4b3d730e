"""backplane: Python bindings of the Backplane tensor runtime.

    import backplane as bp
    X = bp.ones((2, 3), device=bp.try_gpu())
    Y = bp.random.uniform((2, 3), device=bp.try_gpu(1))
    Z = X.copyto(bp.try_gpu(1))     # always a copy
    Y + Z                           # runs where Y and Z live
    Z.to(bp.try_gpu(1)) is Z        # True: already there, nothing copied

Tensors live on devices (cpu:0, reference:0, opencl:1, cuda:0 ...). Operators
run on the device of their inputs; inputs on different devices raise
bp.DeviceMismatchError instead of copying silently. The native pieces are the
extension module backplane._C and libbackplane.so, found as described in
backplane/_library.py (BACKPLANE_LIB overrides). NumPy is imported only when
data crosses to the host (tensor(), numpy(), repr).
"""
from . import _library

_C = _library.import_extension()
_library_path = _library.load(_C)

# The exception classes (one per status: ShapeError, DtypeError, ...) and the
# dtypes (float32, ..., bool_) are made from the vocabulary the extension
# exports (_C.statuses, _C.dtypes): their modules' __all__ name them.
from . import _dtype, _errors  # noqa: E402
from ._errors import *  # noqa: E402,F401,F403
from ._errors import make_error as _make_error  # noqa: E402
from ._dtype import *  # noqa: E402,F401,F403
from ._device import (  # noqa: E402
    Device, cpu, current_device, default_device, device, device_of as _device_of, devices,
    gpu, num_gpus, set_default_device, synchronize, try_all_gpus, try_gpu)
from ._tensor import (  # noqa: E402
    Tensor, abs, add, arange, argmax, argmin, argwhere, array, asarray, bitwise_and, bitwise_not,
    bitwise_or, bitwise_xor, copyto, cos, cumsum, divide, empty, equal, exp, floor_divide,
    from_dlpack, from_numpy, full, full_like, greater, greater_equal, invert, less, less_equal,
    live_tensor_count, log, logsumexp, matmul, max, maximum, mean, min, minimum, mod, multiply,
    negative, nonzero, norm, not_equal, ones, ones_like, power, prod, relu, remainder, reshape,
    sigmoid, sin, sqrt, square, subtract, sum, tanh, tensor, to, transpose, where, zeros,
    zeros_like)
from ._composite import (  # noqa: E402
    allclose, clip, concatenate, eye, linspace, stack, std, var)
from ._softmax import log_softmax, softmax  # noqa: E402
from ._collectives import all_gather, all_reduce, broadcast, reduce_scatter  # noqa: E402
from ._equality import array_equal  # noqa: E402
from . import random  # noqa: E402
from ._grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: E402
from .random import seed as manual_seed  # noqa: E402  (torch.manual_seed)
from .random import Generator, rand, randn  # noqa: E402
# Saving and loading state dicts: safetensors files (bp.safetensors too).
from ._serialization import load, save  # noqa: E402
from . import safetensors  # noqa: E402
# PyTorch's spellings. bp.int, bp.float, bp.pow and bp.round shadow the
# builtins in this module's namespace, which uses none of them.
from . import _torch_api, _torch_index, _torch_math  # noqa: E402
from ._torch_api import *  # noqa: E402,F401,F403
from ._torch_api import float, int, pow  # noqa: E402,F401
from ._torch_index import *  # noqa: E402,F401,F403
from ._torch_math import *  # noqa: E402,F401,F403
from ._torch_math import round  # noqa: E402,F401
from ._sorting import argsort, msort, sort, topk  # noqa: E402

_C.set_hooks(Tensor, lambda code, message, op, input, device_ids: _make_error(
    code, message, op, input, device_ids, _device_of))

Device.__module__ = _dtype.DType.__module__ = "backplane"
# Every dtype also by its own name: bp.bool, like torch.bool (bool_ inside this package).
globals().update((d.name, d) for d in _dtype.ALL)

# The package's version is the C API version of the library it loaded
# (pyproject.toml and CMake read the same two numbers from backplane.h).
__version__ = "{}.{}.0".format(_C.api_version() >> 16, _C.api_version() & 0xFFFF)

__all__ = [
    # devices
    "Device", "cpu", "gpu", "num_gpus", "try_gpu", "try_all_gpus", "devices", "device",
    "default_device", "current_device", "get_default_device", "set_default_device",
    "synchronize",
    # dtypes: DType, as_dtype, float32, float64, int32, int64, bool_, float16,
    # bfloat16, int8, uint8, int16
    *_dtype.__all__,
    # tensors
    "Tensor", "tensor", "array", "asarray", "from_numpy", "from_dlpack", "empty", "zeros", "ones",
    "full", "zeros_like", "ones_like", "full_like", "arange", "random", "manual_seed",
    "add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "equal",
    "not_equal", "less", "less_equal", "greater", "greater_equal", "negative", "exp",
    "log", "sqrt", "tanh", "sigmoid", "relu", "matmul", "norm", "mean",  # not sum/max/min/abs:
    "argmax", "where", "reshape", "transpose", "copyto", "to", "live_tensor_count",  # builtins
    "floor_divide", "remainder", "mod", "square", "sin", "cos", "prod", "argmin",
    "clip", "var", "std", "allclose", "eye", "linspace", "concatenate", "stack",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "invert", "cumsum", "nonzero",
    "argwhere", "logsumexp", "array_equal",
    "Generator", "rand", "randn",
    *_torch_api.__all__, *_torch_index.__all__, *_torch_math.__all__,
    "softmax", "log_softmax",
    "topk", "sort", "argsort", "msort",
    # collectives across this process's devices (across processes: backplane.distributed)
    "all_reduce", "broadcast", "all_gather", "reduce_scatter", "distributed",
    # autograd (Tensor.requires_grad, .grad, .backward(), .detach() are methods)
    "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
    "nn", "optim", "utils", "cuda",
    # saving and loading (safetensors files)
    "save", "load", "safetensors",
    # errors: BackplaneError and one class per status (ShapeError, DtypeError, ...)
    *_errors.__all__,
    # runtime
    "init", "config", "plugins", "trace", "trace_lines", "trace_clear", "backend_counters",
    "set_fusion", "fusion_enabled",
    "library_path", "api_version",
]


def __getattr__(name):
    """bp.nn, bp.optim, bp.distributed, bp.utils and bp.cuda, imported on
    first use (import backplane stays fast)."""
    if name in ("nn", "optim", "distributed", "utils", "cuda"):
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError("module 'backplane' has no attribute '{}'".format(name))


def library_path():
    """Path of the libbackplane.so this process loaded."""
    return _library_path


def api_version():
    """(major, minor) of the loaded library's C API."""
    v = _C.api_version()
    return (v >> 16, v & 0xFFFF)


def init(config_path=None, *, text=None, source_name="<string>"):
    """Starts the runtime with a TOML file (or TOML text). Optional: the first
    call of anything else starts it with $BACKPLANE_CONFIG or the defaults.
    Raises bp.StateError when it has already started, bp.ConfigError with
    file:line:column for a bad file."""
    if text is not None:
        _C.init_from_string(text, source_name)
    else:
        _C.init(config_path)


def config():
    """Effective configuration: a list of (key, value as TOML, origin)."""
    return _C.config_entries()


def plugins(count_devices=False):
    """Every plugin candidate seen by discovery, loaded or rejected, with why."""
    keys = ("loaded", "path", "name", "version", "reason", "device_count")
    return [dict(zip(keys, r)) for r in _C.plugin_reports(count_devices)]


def trace(on=True):
    """Turns the routing trace on or off (BACKPLANE_TRACE=1 at start)."""
    _C.trace_enable(on)


def trace_lines():
    """The recorded trace lines, oldest first (the latest 4096)."""
    return _C.trace_lines()


def trace_clear():
    _C.trace_clear()


def set_fusion(on):
    """Turns lazy fusion on or off ([dispatch] fusion, BACKPLANE_FUSION=0 at
    start). While on, elementwise operators of 4096 elements or more are
    recorded and run as one program per device when a value is needed;
    intermediates dropped before then are never allocated. Off: later
    operators run at once (what is recorded still runs when needed)."""
    _C.fusion_enable(on)


def fusion_enabled():
    """Whether new elementwise operators are recorded (lazy fusion)."""
    return _C.fusion_enabled()


def backend_counters(backend):
    """Work a backend has done: ops, allocations, bytes moved, staged copies."""
    return _C.backend_counters(backend)


def get_default_device():
    """Same as current_device()."""
    return current_device()
