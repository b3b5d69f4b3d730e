"""NumPy functions over the C API's composites (bp_concatenate, bp_stack,
bp_eye, bp_linspace, bp_clip, bp_var, bp_std, bp_allclose):
made of the routed operators in the core, so they run on any device and
follow the operators' semantics (backplane/plugin.h). This module adds
Python's argument forms: None bounds, tensor bounds, tuples of axes."""
import math
import operator

from . import _C
from ._device import resolve as _resolve
from ._dtype import as_dtype, float32
from ._tensor import AXIS_ALL, Tensor, _dims, _leaf, maximum, minimum


def clip(x, min=None, max=None, out=None):
    """x limited to [min, max] (either may be None); NaN stays NaN. Number
    bounds keep x's dtype; tensor bounds broadcast (maximum, then minimum)."""
    if min is None and max is None:
        raise ValueError("clip: give min, max or both")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        t = x if min is None else maximum(x, min)
        if max is not None:
            return minimum(t, max, out=out)
        return t if out is None else _assign(out, t)
    result = _C.clip(x, -math.inf if min is None else float(min),
                     math.inf if max is None else float(max))
    return result if out is None else _assign(out, result)


def var(x, axis=None, keepdims=False, ddof=None, *, dim=None, keepdim=None, unbiased=None,
        correction=None):
    """Variance sum((x - mean(x))**2) / (n - ddof) over all elements or along
    axis (an int or a tuple): the VAR operator, stable in every dtype
    (float16 and bfloat16 accumulate in float32), with n - ddof <= 0 giving
    inf (or nan without spread) as NumPy and PyTorch do. Integers give
    float64, as mean does. PyTorch's spelling (dim=, keepdim=, unbiased=,
    correction=) divides by n - 1 unless told otherwise, as torch.var does;
    NumPy's (or none) by n."""
    return _moments(False, x, axis, keepdims, ddof, dim, keepdim, unbiased, correction)


def std(x, axis=None, keepdims=False, ddof=None, *, dim=None, keepdim=None, unbiased=None,
        correction=None):
    """sqrt(var(x, ...)), with var's arguments."""
    return _moments(True, x, axis, keepdims, ddof, dim, keepdim, unbiased, correction)


def _moments(std, x, axis, keepdims, ddof, dim, keepdim, unbiased, correction):
    torch_spelling = (dim, keepdim, unbiased, correction) != (None,) * 4
    axis, keepdims = _dims("std" if std else "var", axis, keepdims, dim, keepdim)
    given = [v for v in (ddof, correction) if v is not None]
    if unbiased is not None:
        given.append(1 if unbiased else 0)
    if len(given) > 1:
        raise TypeError("give one of ddof= (NumPy), unbiased= or correction= (PyTorch)")
    ddof = given[0] if given else 1 if torch_spelling else 0
    if axis is None:
        return _C.moments(std, x, AXIS_ALL, keepdims, float(ddof))
    if not isinstance(axis, (tuple, list)):
        return _C.moments(std, x, operator.index(axis), keepdims, float(ddof))
    # Several axes: the VAR operator over the set in one call (bp_var_axes),
    # for an integral correction; NumPy's fractional ddof scales the
    # population variance of the axes merged into one.
    if float(ddof) >= 0 and float(ddof).is_integer():
        r = _C.var_axes(x, [operator.index(a) for a in axis], keepdims, float(ddof))
        return r.sqrt() if std else r
    axes = sorted(operator.index(a) % x.ndim for a in axis)
    rest = [d for d in range(x.ndim) if d not in axes]
    merged = x.permute(*(rest + axes)).reshape(*[x.shape[d] for d in rest], -1)
    r = _C.moments(std, merged, -1, False, float(ddof))
    if keepdims:
        r = r.reshape(*[1 if d in axes else x.shape[d] for d in range(x.ndim)])
    return r


def allclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=False):
    """True when |a - b| <= atol + rtol * |b| everywhere (NumPy's rule); NaNs
    are equal only with equal_nan. A Python bool."""
    return _C.allclose(a, b, float(rtol), float(atol), bool(equal_nan))


def eye(n, m=None, k=0, dtype=None, device=None):
    """n x m (m defaults to n) with ones where column - row == k, float32 by
    default."""
    n = operator.index(n)
    return _C.eye(_resolve(device), (as_dtype(dtype) or float32).code, n,
                  n if m is None else operator.index(m), operator.index(k))


def linspace(start, stop=None, num=50, endpoint=True, dtype=None, device=None, *, end=None,
             steps=None, requires_grad=False):
    """num values from start to stop (stop included unless endpoint=False),
    computed in float64 as start + i * step and converted to dtype (float32
    by default); the last value is stop exactly, as in NumPy. end= and
    steps= are PyTorch's names for stop and num."""
    stop = stop if end is None else end
    num = num if steps is None else steps
    if stop is None:
        raise TypeError("linspace(): give the end (linspace(start, end, steps))")
    return _leaf(_C.linspace(_resolve(device), (as_dtype(dtype) or float32).code, float(start),
                             float(stop), operator.index(num), bool(endpoint)), requires_grad)


def concatenate(tensors, axis=0, dtype=None, *, dim=None):
    """The tensors joined along an existing axis, in a new tensor on their
    device. Every tensor must live on that one device (a DeviceMismatchError
    names the first that does not) and agree on the other axes; the dtype is
    the promotion of theirs unless given. dim= is PyTorch's name for axis
    (torch.cat)."""
    return _join(0, "concatenate", tensors, axis if dim is None else dim, dtype)


def stack(tensors, axis=0, dtype=None, *, dim=None):
    """The tensors (all of one shape) joined along a new axis (dim=, as
    PyTorch calls it)."""
    return _join(1, "stack", tensors, axis if dim is None else dim, dtype)


def _join(is_stack, fn, tensors, axis, dtype):
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError("{}: input {} is a {}, not a backplane tensor (make it one with "
                            "bp.tensor(...))".format(fn, i, type(t).__name__))
    result = _C.join(is_stack, tensors, operator.index(axis))
    dt = as_dtype(dtype)
    return result if dt is None or dt.code == result._dtype_code else result.to(dt)


def _assign(out, t):
    _C.assign(out, t)
    return out


# The methods NumPy and PyTorch users call on a tensor.
Tensor.clip = clip
Tensor.clamp = clip  # PyTorch
Tensor.var = var
Tensor.std = std
