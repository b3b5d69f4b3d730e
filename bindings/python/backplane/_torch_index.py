"""PyTorch's rearranging and picking functions: index_select, gather,
take, masked_select, narrow, unbind, movedim, flip, roll, repeat, tril,
triu, hstack, vstack. Made of the package's views, indexing (gather_nd
for integer tensors), joins and where, so they run on every device and
pass gradients back as those do."""
import operator

from . import _C, _composite
from ._errors import ShapeError
from ._tensor import Tensor, _axis, _shape_arg, arange
from ._torch_api import broadcast_tensors, broadcast_to, masked_fill


def _dims_of(x, dims):
    """dims (an int or a sequence) as non-negative axes of x."""
    dims = (dims,) if isinstance(dims, int) else dims
    return [_axis(d, x.ndim) for d in dims]


def index_select(x, dim, index):
    """The entries of x at index (1-D int64) along dim: a new tensor."""
    if index.ndim != 1:
        raise ShapeError("index_select(): the index is 1-D, not {}-D".format(index.ndim),
                         op="index_select")
    return x[(slice(None),) * _axis(dim, x.ndim) + (index,)]


def _gather_coords(index, dim, device):
    """The index tensors (int64, on device) that pick index's entries along
    dim and every other position as it is: gather's reading of an index,
    also ONNX's GatherElements' and ScatterElements'."""
    coords = []
    for a, n in enumerate(index.shape):
        if a == dim:
            coords.append(index)
        else:
            along = (1,) * a + (n,) + (1,) * (index.ndim - a - 1)
            coords.append(broadcast_to(_C.reshape(arange(n, dtype="int64", device=device), along),
                                       index.shape))
    return tuple(coords)


def gather(x, dim, index):
    """out[i][j] = x[index[i][j]][j] for dim 0 (x[i][index[i][j]] for dim 1,
    and so on): index has x's rank and picks along dim."""
    d = _axis(dim, x.ndim)
    if index.ndim != x.ndim:
        raise ShapeError("gather(): the index has rank {}, the tensor {}".format(
            index.ndim, x.ndim), op="gather")
    return x[_gather_coords(index, d, index.device)]


def take(x, index):
    """x's elements, read as a flattened tensor, at index (any shape)."""
    return _C.reshape(x, (-1,))[index]


def masked_select(x, mask):
    """The elements of x where mask (broadcast with x) is true, as 1-D."""
    x, mask = broadcast_tensors(x, mask)
    return x[mask]


def narrow(x, dim, start, length):
    """A view of length entries of x from start along dim."""
    d = _axis(dim, x.ndim)
    n = x.shape[d]
    start = operator.index(start) % n if n else 0
    if not 0 <= length <= n - start:
        raise IndexError("narrow(): start {} + length {} exceeds the extent {} of dimension {}"
                         .format(start, length, n, dim))
    return _C.slice(x, d, start, start + length, 1)


def unbind(x, dim=0):
    """Views of x's slices along dim, that axis removed."""
    d = _axis(dim, x.ndim)
    return tuple(_C.select(x, d, i) for i in range(x.shape[d]))


def movedim(x, source, destination):
    """A view with the axes source moved to the positions destination (ints
    or sequences), the others keeping their order."""
    src, dst = _dims_of(x, source), _dims_of(x, destination)
    if len(src) != len(dst) or len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError("movedim(): as many distinct source as destination dimensions")
    order = [None] * x.ndim
    for s, t in zip(src, dst):
        order[t] = s
    rest = iter(d for d in range(x.ndim) if d not in src)
    return x.permute(*(s if s is not None else next(rest) for s in order))


def flip(x, dims):
    """x with the order of dims reversed (a copy, as in PyTorch)."""
    flipped = set(_dims_of(x, dims))
    return x[tuple(slice(None, None, -1) if d in flipped else slice(None) for d in range(x.ndim))]


def roll(x, shifts, dims=None):
    """x shifted by shifts along dims, the elements that leave one end
    coming back at the other; without dims, along the flattened tensor."""
    if dims is None:
        return _C.reshape(roll(_C.reshape(x, (-1,)), shifts, 0), x.shape)
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = _dims_of(x, dims)
    if len(shifts) != len(dims):
        raise ValueError("roll(): as many shifts as dims")
    for shift, d in zip(shifts, dims):
        n = x.shape[d]
        s = shift % n if n else 0
        if s:
            x = _composite.concatenate([_C.slice(x, d, n - s, n, 1), _C.slice(x, d, 0, n - s, 1)],
                                       d)
    return x


def repeat(x, *sizes):
    """x tiled sizes[i] times along axis i (leading sizes add axes): a new
    tensor, as PyTorch's repeat (NumPy's tile)."""
    sizes = _shape_arg(sizes)
    if len(sizes) < x.ndim:
        raise ShapeError("repeat(): {} sizes for a tensor of dimension {}".format(
            len(sizes), x.ndim), op="repeat")
    shape = (1,) * (len(sizes) - x.ndim) + x.shape
    spread = _C.reshape(x, tuple(e for n in shape for e in (1, n)))
    tiled = broadcast_to(spread, tuple(e for r, n in zip(sizes, shape) for e in (r, n)))
    return _C.reshape(tiled, tuple(r * n for r, n in zip(sizes, shape)))


def _triangle(x, diagonal, lower):
    if x.ndim < 2:
        raise ShapeError("tril()/triu(): a tensor of at least 2 dimensions", op="tril")
    n, m = x.shape[-2:]
    rows = _C.reshape(arange(n, device=x.device), (n, 1))
    cols = _C.reshape(arange(m, device=x.device), (1, m))
    offset = cols - rows
    outside = offset > diagonal if lower else offset < diagonal
    return masked_fill(x, outside, 0)


def tril(x, diagonal=0):
    """x with the elements above the diagonal-th diagonal set to 0."""
    return _triangle(x, operator.index(diagonal), True)


def triu(x, diagonal=0):
    """x with the elements below the diagonal-th diagonal set to 0."""
    return _triangle(x, operator.index(diagonal), False)


def hstack(tensors):
    """The tensors joined along axis 1 (axis 0 for 1-D tensors)."""
    tensors = list(tensors)
    return _composite.concatenate(tensors, 0 if all(t.ndim == 1 for t in tensors) else 1)


def vstack(tensors):
    """The tensors (1-D ones as rows) joined along axis 0."""
    return _composite.concatenate([_C.reshape(t, (1, -1)) if t.ndim == 1 else t
                                   for t in tensors], 0)


for _fn in (index_select, gather, take, masked_select, narrow, unbind, movedim, flip, roll,
            repeat, tril, triu):
    setattr(Tensor, _fn.__name__, _fn)
del _fn

__all__ = ["index_select", "gather", "take", "masked_select", "narrow", "unbind", "movedim",
           "flip", "roll", "tril", "triu", "hstack", "vstack"]
