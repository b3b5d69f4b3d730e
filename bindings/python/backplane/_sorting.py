"""PyTorch's sorting and selection: topk, sort, argsort and msort, as
functions and Tensor methods, each one call of the TOPK operator (bp_topk,
bp_sort, bp_argsort) on the input's device. The order is plugin.h's:
always stable (equal elements keep their positions' order, the lower
first, in both directions), NaN after every number as NumPy's sort puts it
(so first with largest=True or descending=True, as torch.topk takes NaN for
the largest), -0 tied with +0, False before True. Every dtype is sorted as
it is. The values pass gradients back to the elements they came from.
topk and sort return named tuples with .values and .indices, as
torch.return_types does."""
import operator

from . import _C
from ._tensor import _RETURN_TYPES, Tensor


def _out_pair(fn, out):
    if out is None:
        return ()
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError("{}(): out= is a (values, indices) pair of tensors".format(fn))
    return tuple(out)


def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """The k largest (largest=True) or smallest elements along dim and their
    int64 positions, (values, indices), in descending or ascending order.
    sorted=False is accepted and gives them sorted all the same (PyTorch
    leaves their order open then). out=(values, indices) writes into two
    existing tensors of the result's shape (values of input's dtype, indices
    int64) and records no gradient."""
    del sorted  # always sorted: one order for every backend
    values, indices = _C.topk(input, operator.index(k), operator.index(dim), bool(largest),
                              *_out_pair("topk", out))
    return _RETURN_TYPES["topk"](values, indices)


def sort(input, dim=-1, descending=False, stable=False, *, out=None):
    """Every element along dim in ascending (or descending) order and the
    positions it came from, (values, indices). Always stable, so stable=True
    changes nothing (torch.sort(stable=True), np.sort(kind='stable'))."""
    del stable  # always stable
    if out is not None:
        d = operator.index(dim)
        # An axis out of range is the operator's ShapeError.
        n = 1 if input.ndim == 0 else input.shape[d] if -input.ndim <= d < input.ndim else 0
        return _RETURN_TYPES["sort"](*topk(input, n, dim, descending, out=out))
    return _RETURN_TYPES["sort"](*_C.sort(input, operator.index(dim), bool(descending)))


def argsort(input, dim=-1, descending=False, stable=False):
    """sort(...).indices alone (np.argsort(kind='stable'), torch.argsort):
    int64 positions, stable whatever `stable` says."""
    del stable  # always stable
    return _C.argsort(input, operator.index(dim), bool(descending))


def msort(input):
    """sort(input, dim=0).values, as torch.msort."""
    return sort(input, 0).values


for _fn in (topk, sort, argsort, msort):
    setattr(Tensor, _fn.__name__, _fn)
del _fn

__all__ = ["topk", "sort", "argsort", "msort"]
