"""NumPy functions made of the routed operators: clip, var, std, softmax,
allclose, eye, linspace, concatenate and stack. Each call runs operator by
operator on the device of its inputs (every backend has them), so the
results follow the operators' semantics in backplane/plugin.h; they have no
C API function of their own."""
import builtins as _builtins
import operator

from . import _C
from ._device import resolve as _resolve
from ._device import device_of
from ._dtype import as_dtype, float32, float64, int64
from ._errors import DeviceMismatchError
from ._tensor import Tensor, arange, maximum, minimum, where

# The dtype of several tensors together: the latest of theirs in this order,
# the one the core promotes two operands by (bindings/python/README.md).
_PROMOTION = ("bool", "int32", "int64", "float32", "float64")


def clip(x, min=None, max=None, out=None):
    """x limited to [min, max] (either may be None): maximum(x, min), then
    minimum(.., max); NaN stays NaN. min and max are numbers or tensors."""
    if min is None and max is None:
        raise ValueError("clip: give min, max or both")
    t = x if min is None else maximum(x, min)
    if max is None:
        return t if out is None else _assign(out, t)
    return minimum(t, max, out=out)


def var(x, axis=None, keepdims=False, ddof=0):
    """Variance mean((x - mean(x))**2) over all elements or along axis (an int
    or a tuple), divided by n - ddof instead of n when ddof is given.
    Integers give float64, as mean does."""
    mean = x.mean(axis=axis, keepdims=True)
    squares = ((x - mean) ** 2).mean(axis=axis, keepdims=keepdims)
    if ddof == 0:
        return squares
    n = x.numel() // _builtins.max(squares.numel(), 1)  # elements per result
    return squares * (n / (n - ddof) if n > ddof else float("nan"))


def std(x, axis=None, keepdims=False, ddof=0):
    """sqrt(var(x, axis, keepdims, ddof))."""
    return var(x, axis, keepdims, ddof).sqrt()


def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along axis, computed as exp(x - max) so that large
    inputs do not overflow."""
    e = (x - x.max(axis=axis, keepdims=True)).exp()
    return e / e.sum(axis=axis, keepdims=True)


def allclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=False):
    """True when |a - b| <= atol + rtol * |b| everywhere (NumPy's rule); NaNs
    are equal only with equal_nan. A Python bool: reads one element."""
    close = abs(a - b) <= atol + rtol * abs(b)
    if equal_nan:
        close = where(where(a != a, b != b, False), True, close)
    return bool(close.all())


def eye(n, m=None, dtype=None, device=None):
    """n x m (m defaults to n) with ones on the diagonal, float32 by default."""
    m = n if m is None else m
    dev = device_of(_resolve(device))
    rows = arange(operator.index(n), dtype=int64, device=dev).reshape(n, 1)
    cols = arange(operator.index(m), dtype=int64, device=dev).reshape(1, m)
    return _C.cast(rows == cols, (as_dtype(dtype) or float32).code)


def linspace(start, stop, num=50, endpoint=True, dtype=None, device=None):
    """num values from start to stop (stop included unless endpoint=False),
    computed in float64 as start + i * step and converted to dtype (float32
    by default); the last value is stop exactly, as in NumPy."""
    num = operator.index(num)
    if num < 0:
        raise ValueError("linspace: num must be non-negative, not {}".format(num))
    dev = device_of(_resolve(device))
    div = (num - 1) if endpoint else num
    step = (stop - start) / div if div > 0 else 0.0
    y = arange(num, dtype=float64, device=dev) * float(step) + float(start)
    if endpoint and num > 1:
        y[-1] = float(stop)
    dt = as_dtype(dtype) or float32
    return y if dt is float64 else y.astype(dt)


def concatenate(tensors, axis=0, dtype=None):
    """The tensors joined along an existing axis, in a new tensor on their
    device. Every tensor must live on that one device (a DeviceMismatchError
    names the first that does not) and agree on the other axes; the dtype is
    the promotion of theirs unless given."""
    tensors = _same_device("concatenate", tensors)
    first = tensors[0]
    ndim = first.ndim
    if ndim == 0:
        raise ValueError("concatenate: zero-dimensional tensors cannot be concatenated (use stack)")
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise IndexError("concatenate: axis {} is out of range for {} dimensions".format(axis, ndim))
    axis %= ndim
    shape = list(first.shape)
    for i, t in enumerate(tensors[1:], 1):
        s = t.shape
        if len(s) != ndim or any(s[d] != shape[d] for d in range(ndim) if d != axis):
            raise ValueError("concatenate: input {} has shape {}, which does not match input 0's {} "
                             "outside axis {}".format(i, tuple(s), tuple(first.shape), axis))
    shape[axis] = _builtins.sum(t.shape[axis] for t in tensors)
    dt = as_dtype(dtype) or _promoted(tensors)
    out = _C.empty(first._device_id, dt.code, tuple(shape))
    start = 0
    for t in tensors:
        n = t.shape[axis]
        if n:
            _C.assign(_C.slice(out, axis, start, start + n, 1), t)
        start += n
    return out


def stack(tensors, axis=0, dtype=None):
    """The tensors (all of one shape) joined along a new axis."""
    tensors = _same_device("stack", tensors)
    shape = tuple(tensors[0].shape)
    ndim = len(shape) + 1
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise IndexError("stack: axis {} is out of range for {} dimensions".format(axis, ndim))
    axis %= ndim
    for i, t in enumerate(tensors):
        if tuple(t.shape) != shape:
            raise ValueError("stack: input {} has shape {}, input 0 has {}: all must be the same"
                             .format(i, tuple(t.shape), shape))
    expanded = shape[:axis] + (1,) + shape[axis:]
    return concatenate([t.reshape(expanded) for t in tensors], axis=axis, dtype=dtype)


def _same_device(fn, tensors):
    tensors = list(tensors)
    if not tensors:
        raise ValueError("{}: needs at least one tensor".format(fn))
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError("{}: input {} is a {}, not a backplane tensor (make it one with "
                            "bp.tensor(...))".format(fn, i, type(t).__name__))
        if t._device_id != tensors[0]._device_id:
            raise DeviceMismatchError(
                "{}: all inputs must be on one device, but input 0 is on {} and input {} is on "
                "{} (move one with `.to(device)`)".format(fn, tensors[0].device, i, t.device),
                op=fn, input=i, devices=[x.device for x in tensors])
    return tensors


def _promoted(tensors):
    return _builtins.max((t.dtype for t in tensors), key=lambda d: _PROMOTION.index(d.name))


def _assign(out, t):
    _C.assign(out, t)
    return out


# The methods NumPy and PyTorch users call on a tensor.
Tensor.clip = clip
Tensor.clamp = clip  # PyTorch
Tensor.var = var
Tensor.std = std
Tensor.softmax = softmax
