"""softmax and log_softmax along an axis, as torch.softmax and
torch.log_softmax spell them: the SOFTMAX operators of the C API
(bp_softmax, bp_log_softmax), one stable pass per row on the tensor's
device, recorded for autograd.

    bp.softmax(x, dim=-1)         x.softmax(1)        x.log_softmax(-1, dtype=bp.float64)

dim counts from the end when negative; axis= is NumPy's name for it. Without
either the last axis is taken (torch.softmax requires dim; its
nn.functional.softmax picks one with a warning, which backplane.nn.functional
does alike). dtype casts the input first, as PyTorch's does. Integer and bool
inputs compute in float64 (torch raises). Rows holding a NaN or a +inf, or
nothing but -inf, are NaN throughout, PyTorch's values; inputs near the
float maximum do not overflow."""
import operator

from . import _C
from ._dtype import as_dtype
from ._tensor import Tensor


def _along(fn, input, dim, dtype, axis):
    if dim is not None and axis is not None:
        raise TypeError("{}(): axis= (NumPy) and dim= (PyTorch) name the same argument; give one"
                        .format(fn.__name__))
    if dim is None:
        dim = -1 if axis is None else axis
    if dtype is not None:
        input = input.to(as_dtype(dtype))
    return fn(input, operator.index(dim))


def softmax(input, dim=None, dtype=None, *, axis=None):
    """exp(x - m) / sum(exp(x - m)) along dim, m the maximum along it."""
    return _along(_C.softmax, input, dim, dtype, axis)


def log_softmax(input, dim=None, dtype=None, *, axis=None):
    """(x - m) - log(sum(exp(x - m))) along dim: log(softmax(x)) without its
    underflow to -inf where softmax rounds to 0."""
    return _along(_C.log_softmax, input, dim, dtype, axis)


Tensor.softmax = softmax
Tensor.log_softmax = log_softmax

__all__ = ["softmax", "log_softmax"]
