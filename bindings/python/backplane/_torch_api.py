"""PyTorch's everyday spellings on backplane tensors and the package, so that
code written for torch runs as written under `import backplane as torch`:
views (view, unsqueeze, squeeze, expand, t, chunk, split, flatten), the
matmul family (mm, bmm, einsum), masked_fill, method forms of the module
functions (x.pow(2), x.add(y, alpha=2)), torch's random functions and
in-place samplers, and torch's dtype names (bp.long, bp.float ...).

Everything is composed of the C API's views (reshape, permute, select,
slice, expand_dims), operators, matmul and where, so it runs on every
device and records gradients as those do. The names are listed, with what
differs from PyTorch, in bindings/python/README.md ("PyTorch spellings")."""
import builtins
import numbers
import operator

from . import _C, _composite, random
from ._dtype import float16, float32, float64, int16, int32, int64
from ._einsum import einsum
from ._errors import ShapeError
from ._grad_mode import is_grad_enabled
from ._tensor import (Tensor, _axis, _full, _shape_arg, empty, equal, floor_divide, greater,
                      greater_equal, less, less_equal, matmul, multiply, negative, not_equal, ones,
                      power, tensor, where, zeros)

# torch's dtype names. bp.float is float32 as torch.float is; the string
# "float" keeps NumPy's meaning (float64) wherever a dtype is parsed.
long, int, float, double, half, short = int64, int32, float32, float64, float16, int16


# ---- views ----------------------------------------------------------------------

def view(x, *shape):
    """x's elements in a new shape (one extent may be -1), sharing its
    storage. Only a contiguous tensor can be viewed; reshape() copies when
    it must, as in PyTorch."""
    if not x.is_contiguous():
        raise ShapeError("view(): the tensor is not contiguous (a transpose or a strided "
                         "slice); use .reshape(...) (a copy when needed) or "
                         ".contiguous().view(...)", op="view")
    return _C.reshape(x, _shape_arg(shape))


def view_as(x, other):
    return view(x, other.shape)


def reshape_as(x, other):
    return _C.reshape(x, other.shape)


def flatten(x, start_dim=0, end_dim=-1):
    """Axes start_dim..end_dim merged into one (a view where the strides
    allow); a 0-d tensor becomes 1-D."""
    shape = x.shape
    if not shape:
        return _C.reshape(x, (1,))
    start, end = _axis(start_dim, len(shape)), _axis(end_dim, len(shape))
    if start > end:
        raise ValueError("flatten(): start_dim {} comes after end_dim {}".format(start_dim,
                                                                                end_dim))
    return _C.reshape(x, shape[:start] + (-1,) + shape[end + 1:])


def unsqueeze(x, dim):
    """A view with a new axis of extent 1 at dim (-1 appends one)."""
    return _C.expand_dims(x, operator.index(dim))


def squeeze(x, dim=None):
    """A view without axes of extent 1: all of them, or dim (an int or a
    tuple) where its extent is 1 (another extent is left as it is)."""
    shape = x.shape
    if not shape:
        return _C.reshape(x, ())
    if dim is None:
        dims = [d for d, n in enumerate(shape) if n == 1]
    else:
        picked = dim if isinstance(dim, (tuple, list)) else (dim,)
        dims = sorted({_axis(d, len(shape)) for d in picked if shape[_axis(d, len(shape))] == 1})
    t = x
    for d in reversed(dims):
        t = _C.select(t, d, 0)
    return t if dims else _C.reshape(x, shape)


def _broadcast_shape(*shapes):
    """NumPy's broadcast of shapes, or ShapeError."""
    rank = builtins.max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        extents = {s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0} - {1}
        if len(extents) > 1:
            raise ShapeError("shapes {} do not broadcast".format(", ".join(map(str, shapes))),
                             op="broadcast")
        out.append(extents.pop() if extents else 1)
    return tuple(out)


def broadcast_to(x, shape):
    """x broadcast to shape (NumPy's rules). Unlike PyTorch's expand, the
    result is a new tensor, not a view (the C API's views have no zero
    strides): writing into it leaves x unchanged. Gradients flow back to x
    summed over the broadcast axes."""
    shape = _shape_arg((shape,))
    if _broadcast_shape(x.shape, shape) != shape:
        raise ShapeError("cannot broadcast a tensor of shape {} to {}".format(x.shape, shape),
                         op="broadcast_to")
    if _C.requires_grad(x) and is_grad_enabled():
        return x + zeros(shape, dtype=x.dtype, device=x.device)
    out = _C.empty(x._device_id, x._dtype_code, shape)
    _C.assign(out, x)
    return out


def expand(x, *sizes):
    """x broadcast to sizes, where -1 keeps an extent (PyTorch); a copy, not
    a view: see broadcast_to."""
    sizes = _shape_arg(sizes)
    lead = len(sizes) - x.ndim
    if lead < 0:
        raise ShapeError("expand(): {} sizes for a tensor of dimension {}".format(
            len(sizes), x.ndim), op="expand")
    shape = tuple(x.shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(sizes))
    return broadcast_to(x, shape)


def expand_as(x, other):
    return broadcast_to(x, other.shape)


def broadcast_tensors(*tensors):
    shape = _broadcast_shape(*(t.shape for t in tensors))
    return tuple(broadcast_to(t, shape) for t in tensors)


def t(x):
    """The transpose of a matrix (a view); a 0-d or 1-D tensor as it is."""
    if x.ndim > 2:
        raise ShapeError("t() expects a tensor with at most 2 dimensions, not {}".format(x.ndim),
                         op="t")
    return _C.transpose(x)


def permute(x, *dims):
    """torch.permute(x, dims): x.permute(*dims), a view."""
    return x.permute(*dims)


def swapaxes(x, axis0, axis1):
    return x.transpose(operator.index(axis0), operator.index(axis1))


def split(x, split_size_or_sections, dim=0):
    """Views of consecutive pieces along dim: of split_size elements each
    (the last one shorter), or of the sizes listed."""
    d = _axis(dim, x.ndim)
    n = x.shape[d]
    if isinstance(split_size_or_sections, numbers.Integral):
        size = operator.index(split_size_or_sections)
        if size <= 0:
            raise ValueError("split(): the size of a piece must be positive, not {}".format(size))
        sizes = [builtins.min(size, n - s) for s in range(0, n, size)] or [0]
    else:
        sizes = [operator.index(s) for s in split_size_or_sections]
        if builtins.sum(sizes) != n:
            raise ValueError("split(): the sizes {} do not add up to the extent {} of "
                             "dimension {}".format(sizes, n, dim))
    pieces, start = [], 0
    for s in sizes:
        pieces.append(_C.slice(x, d, start, start + s, 1))
        start += s
    return tuple(pieces)


def chunk(x, chunks, dim=0):
    """split(x, ceil(n / chunks), dim): at most `chunks` views."""
    chunks = operator.index(chunks)
    if chunks <= 0:
        raise ValueError("chunk(): chunks must be positive, not {}".format(chunks))
    n = x.shape[_axis(dim, x.ndim)]
    return split(x, builtins.max(-(-n // chunks), 1), dim)


def cat(tensors, dim=0, *, axis=None):
    """torch.cat: concatenate along dim (axis= also taken)."""
    return _composite.concatenate(tensors, dim if axis is None else axis)


# ---- elementwise ------------------------------------------------------------------

def masked_fill(x, mask, value):
    """x with value where the bool mask (broadcast to x) is true; value is a
    number, or a 0-d tensor, in x's dtype. The gradient reaches x where the
    mask is false."""
    if isinstance(value, Tensor):
        value = value.to(x.dtype)
    else:
        value = _full(x._device_id, x.dtype, (), value)
    return where(mask, value, x)


def _alpha(other, alpha):
    return other if alpha == 1 else other * alpha


def add(x, other, *, alpha=1):
    """x + alpha * other (the method x.add; bp.add is NumPy's, without alpha)."""
    return x + _alpha(other, alpha)


def sub(x, other, *, alpha=1):
    """x - alpha * other."""
    return x - _alpha(other, alpha)


def div(x, other, *, rounding_mode=None):
    """x / other; rounding_mode="floor" is x // other ("trunc" is not offered)."""
    if rounding_mode is None:
        return x / other
    if rounding_mode == "floor":
        return floor_divide(x, other)
    raise NotImplementedError("div(rounding_mode={!r}): only None and 'floor'".format(
        rounding_mode))


# torch's names of functions the package has under NumPy's.
clamp, neg, mul, pow = _composite.clip, negative, multiply, power
eq, ne, lt, le, gt, ge = equal, not_equal, less, less_equal, greater, greater_equal


def reciprocal(x):
    return 1 / x


def amax(x, dim=None, keepdim=False):
    """The largest values over dim (an int or a tuple; all when None)."""
    return x.max(axis=dim, keepdims=keepdim)


def amin(x, dim=None, keepdim=False):
    return x.min(axis=dim, keepdims=keepdim)


# ---- the matmul family ----------------------------------------------------------------

def mm(a, b):
    """Matrix product of two 2-D tensors."""
    if a.ndim != 2 or b.ndim != 2:
        raise ShapeError("mm(): two 2-D tensors, not {}-D and {}-D (matmul broadcasts batches)"
                         .format(a.ndim, b.ndim), op="mm")
    return matmul(a, b)


def bmm(a, b):
    """Batched matrix product of two 3-D tensors (b, n, m) @ (b, m, p)."""
    if a.ndim != 3 or b.ndim != 3 or a.shape[0] != b.shape[0]:
        raise ShapeError("bmm(): two 3-D tensors with one batch extent, not {} and {}"
                         .format(a.shape, b.shape), op="bmm")
    return matmul(a, b)


def mv(a, v):
    if a.ndim != 2 or v.ndim != 1:
        raise ShapeError("mv(): a matrix and a vector, not {}-D and {}-D".format(a.ndim, v.ndim),
                         op="mv")
    return matmul(a, v)


def dot(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise ShapeError("dot(): two 1-D tensors, not {}-D and {}-D".format(a.ndim, b.ndim),
                         op="dot")
    return matmul(a, b)


def outer(a, b):
    return _C.reshape(a, (-1, 1)) * _C.reshape(b, (1, -1))


# ---- random -----------------------------------------------------------------------------

def rand_like(x, *, dtype=None, device=None, requires_grad=False):
    return random.rand(x.shape, dtype=dtype or x.dtype, device=device or x.device,
                requires_grad=requires_grad)


def randn_like(x, *, dtype=None, device=None, requires_grad=False):
    return random.randn(x.shape, dtype=dtype or x.dtype, device=device or x.device,
                 requires_grad=requires_grad)


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None):
    """Integers in [low, high), PyTorch's forms: randint(high, size) and
    randint(low, high, size); int64 unless dtype says otherwise."""
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    if size is None:
        raise TypeError("randint(): give the size, as randint(high, size) or "
                        "randint(low, high, size)")
    return random.randint(low, high, size, dtype=dtype, device=device, generator=generator)


def randperm(n, *, generator=None, dtype=None, device=None):
    """A random permutation of 0..n-1 (int64 unless dtype says otherwise).
    Drawn on the host (random.host_permutation) and copied to device."""
    return tensor(random.host_permutation(n, generator), dtype=dtype or int64, device=device)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False):
    """Samples from N(mean, std**2): mean and std numbers with size, or
    tensors (broadcast; the samples take their shape, dtype and device)."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        like = mean if isinstance(mean, Tensor) else std
        shape = _broadcast_shape(*(v.shape for v in (mean, std) if isinstance(v, Tensor)))
        z = random.normal(size=shape, dtype=like.dtype, device=like.device, generator=generator)
        return z * std + mean
    return random.normal(mean, std, size=size, dtype=dtype, device=device, generator=generator,
                         requires_grad=requires_grad)


def normal_(x, mean=0.0, std=1.0, *, generator=None):
    """Fills x with samples from N(mean, std**2) in place; returns x."""
    return x.copy_(random.normal(mean, std, size=x.shape, dtype=x.dtype, device=x.device,
                                 generator=generator))


def uniform_(x, *bounds, generator=None, **names):
    """Fills x with samples from [from, to) (default [0, 1)) in place:
    x.uniform_(-1, 1) or x.uniform_(to=2); returns x."""
    low, high = (list(bounds) + [None, None])[:2]
    low = names.pop("from", 0.0 if low is None else low)
    high = names.pop("to", 1.0 if high is None else high)
    if names or len(bounds) > 2:
        raise TypeError("uniform_(from=0, to=1, *, generator=None)")
    return x.copy_(random.uniform(low, high, size=x.shape, dtype=x.dtype, device=x.device,
                                  generator=generator))


# ---- tensor odds and ends ---------------------------------------------------------------

def numel(x):
    return x.numel()


def is_tensor(x):
    return isinstance(x, Tensor)


def is_floating_point(x):
    return x.dtype.is_floating_point


def type_as(x, other):
    return x.to(other.dtype)


def element_size(x):
    return x.itemsize


def _new(fill):
    """x.new_zeros(size) and the like: x's dtype and device unless given."""
    def method(x, *size, dtype=None, device=None, requires_grad=False):
        return fill(_shape_arg(size), dtype=dtype or x.dtype, device=device or x.device,
                    requires_grad=requires_grad)
    method.__name__ = "new_" + fill.__name__
    return method


def _where_method(x, condition, y):
    """x.where(condition, y) is where(condition, x, y)."""
    return where(condition, x, y)


# Methods named as the functions above: x.view(2, 3) is view(x, 2, 3).
_METHODS = {fn.__name__: fn for fn in (
    view, view_as, reshape_as, flatten, unsqueeze, squeeze, expand, expand_as, t, swapaxes, split,
    chunk, masked_fill, add, sub, div, reciprocal, amax, amin, mm, bmm, mv, dot, outer,
    normal_, uniform_, type_as, element_size, is_floating_point, _new(zeros), _new(ones),
    _new(empty))}
_METHODS.update(mul=mul, multiply=mul, pow=pow, eq=eq, ne=ne, lt=lt, le=le, gt=gt, ge=ge,
                swapdims=swapaxes, subtract=sub, divide=div, true_divide=div, where=_where_method,
                neg=Tensor.__neg__, negative=Tensor.__neg__)
for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _fn)
del _name, _fn
Tensor.is_cuda = property(lambda x: x.device.type == "cuda", doc="Whether x is on a CUDA device.")
Tensor.is_cpu = property(lambda x: x.device.type == "cpu", doc="Whether x is on a cpu device.")

# What `from backplane import *` gives: not pow and not the dtype names
# int, float ..., which would shadow Python's builtins (bp.pow, bp.int are
# there all the same).
__all__ = ["double", "half", "long", "short", "view", "flatten", "unsqueeze", "squeeze",
           "broadcast_to", "expand", "broadcast_tensors", "t", "permute", "swapaxes", "split",
           "chunk", "cat", "masked_fill", "clamp", "neg", "sub", "mul", "div",
           "reciprocal", "eq", "ne", "lt", "le", "gt", "ge", "amax", "amin", "mm", "bmm", "mv",
           "dot", "outer", "einsum", "rand_like", "randn_like", "randint", "randperm", "normal",
           "numel", "is_tensor", "is_floating_point"]
