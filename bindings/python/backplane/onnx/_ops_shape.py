"""ONNX operators that move or pick elements: reshapes, transposes, joins,
splits, slices, gathers, scatters, padding, creation from a shape. Views
where Backplane gives one (reshape of a dense tensor, transpose, slices),
else copies on the device; shapes and axes are read on the host."""
import numpy as np

from .. import _C
from .. import _tensor as T
from .._composite import concatenate
from .._indexing import _entries
from .._torch_api import broadcast_to
from .._torch_index import _gather_coords, repeat
from ._registry import converter, require
from ._ops_elementwise import cast, same


def _ints(a):
    return [int(v) for v in np.asarray(a).reshape(-1)]


def _axis(a, rank):
    a = int(a)
    require(-rank <= a < max(rank, 1), "axis {} is outside rank {}".format(a, rank))
    return a + rank if a < 0 else a


def views(n):
    """Needs of an operator that makes a view, or a dense copy of a strided
    input when a reshape needs one."""
    return [("copy", n.t(0), n.t(0))]


def index_needs(t, idx="int64"):
    """What Backplane's indexing by an integer tensor runs (bp_index): the
    index converted to int64, its range read (min, max), negative entries
    turned positive (lt, add, where), gather_nd."""
    needs = [("gather_nd", t), ("min", "int64"), ("max", "int64"), ("lt", "int64"),
             ("add", "int64"), ("where", "int64"), ("copy", t, t)]
    if idx != "int64":
        needs.append(("copy", idx, "int64"))
    return needs


def reshape_to(x, shape):
    return _C.reshape(x, tuple(int(s) for s in shape))


@converter("Reshape", needs=views, host_inputs=(1,))
def reshape(n, x, shape):
    shape = _ints(shape)
    if not n.attr("allowzero", 0):
        shape = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]
    return reshape_to(x, shape)


@converter("Flatten", needs=views)
def flatten(n, x):
    axis = int(n.attr("axis", 1))
    axis = axis + x.ndim if axis < 0 else axis
    lead = int(np.prod(x.shape[:axis], dtype=np.int64))
    return reshape_to(x, (lead, int(np.prod(x.shape[axis:], dtype=np.int64))))


@converter("Squeeze", needs=views, host_inputs=(1,))
def squeeze(n, x, axes=None):
    if axes is None:
        axes = n.attr("axes")
    if axes is None:
        keep = [s for s in x.shape if s != 1]
    else:
        drop = {_axis(a, x.ndim) for a in _ints(axes)}
        for a in drop:
            require(x.shape[a] == 1, "Squeeze of axis {} of extent {}".format(a, x.shape[a]))
        keep = [s for i, s in enumerate(x.shape) if i not in drop]
    return reshape_to(x, keep)


@converter("Unsqueeze", needs=views, host_inputs=(1,))
def unsqueeze(n, x, axes=None):
    axes = _ints(n.attr("axes") if axes is None else axes)
    rank = x.ndim + len(axes)
    new = sorted(_axis(a, rank) for a in axes)
    shape, it = [], iter(x.shape)
    for i in range(rank):
        shape.append(1 if i in new else next(it))
    return reshape_to(x, shape)


@converter("Transpose", needs=lambda n: [])
def transpose(n, x):
    perm = n.attr("perm")
    perm = list(range(x.ndim))[::-1] if perm is None else [_axis(p, x.ndim) for p in perm]
    return _C.permute(x, tuple(perm))


@converter("Concat", needs=lambda n: [("copy", n.t(0), n.t(0))])
def concat(n, *xs):
    return concatenate(list(xs), axis=_axis(n.attr("axis"), xs[0].ndim))


def _split_sizes(n, extent, split):
    if split is not None:
        return _ints(split)
    count = n.attr("num_outputs") or len(n.outputs)
    size = -(-extent // count)
    return [min(size, extent - i * size) for i in range(count)]


def _take(x, axis, start, stop, step=1):
    key = (slice(None),) * axis + (slice(start, stop, step),)
    return x[key]


@converter("Split", needs=views, host_inputs=(1,))
def split(n, x, split=None):
    axis = _axis(n.attr("axis", 0), x.ndim)
    sizes = _split_sizes(n, x.shape[axis], split if split is not None else n.attr("split"))
    outs, start = [], 0
    for s in sizes:
        outs.append(_take(x, axis, start, start + s))
        start += s
    return tuple(outs)


@converter("Slice", needs=lambda n: [("gather_nd", n.t(0)), ("copy", n.t(0), n.t(0))],
           host_inputs=(1, 2, 3, 4))
def slice_(n, x, starts, ends, axes=None, steps=None):
    starts, ends = _ints(starts), _ints(ends)
    axes = list(range(len(starts))) if axes is None else [_axis(a, x.ndim) for a in _ints(axes)]
    steps = [1] * len(starts) if steps is None else _ints(steps)
    key = [slice(None)] * x.ndim
    for a, s, e, st in zip(axes, starts, ends, steps):
        require(st != 0, "Slice with a step of 0")
        key[a] = slice(s, e, st)
    return x[tuple(key)]


@converter("Gather", needs=lambda n: index_needs(n.t(0), n.t(1)))
def gather(n, x, idx):
    axis = _axis(n.attr("axis", 0), x.ndim)
    if idx.ndim == 0:  # one position: the axis goes (a 0-d index would be read on the host)
        picked = x[(slice(None),) * axis + (reshape_to(idx, (1,)),)]
        return reshape_to(picked, x.shape[:axis] + x.shape[axis + 1:])
    return x[(slice(None),) * axis + (idx,)]


def _gather_elements_needs(n):
    return index_needs(n.t(0), n.t(1)) + [("arange", "int64")]


@converter("GatherElements", needs=_gather_elements_needs)
def gather_elements(n, x, idx):
    return x[_gather_coords(idx, _axis(n.attr("axis", 0), x.ndim), x.device)]


def _gather_nd_needs(n):
    require(n.attr("batch_dims", 0) == 0, "GatherND with batch_dims > 0")
    return index_needs(n.t(0), n.t(1))


@converter("GatherND", needs=_gather_nd_needs)
def gather_nd(n, x, idx):
    return _C.gather_nd(x, idx)


def _scatter_needs(n):
    require(n.attr("reduction", "none") in ("none", "add"),
            "{} with reduction '{}'".format(n.op_type, n.attr("reduction")))
    needs = index_needs(n.t(0), n.t(1)) + [("scatter_nd", n.t(0)), ("arange", "int64")]
    if n.attr("reduction", "none") == "add":
        needs.append(("scatter_add_nd", n.t(0)))
    return needs


@converter("ScatterElements", needs=_scatter_needs)
def scatter_elements(n, x, idx, updates):
    key = _gather_coords(idx, _axis(n.attr("axis", 0), x.ndim), x.device)
    return _C.index_put(x, _entries(x, key), updates, n.attr("reduction", "none") == "add")


@converter("ScatterND", needs=_scatter_needs)
def scatter_nd(n, x, idx, updates):
    k = idx.shape[-1]
    key = tuple(idx[..., j] for j in range(k))
    return _C.index_put(x, _entries(x, key), updates, n.attr("reduction", "none") == "add")


def _expand_shape(x, shape):
    shape = _ints(shape)
    rank = max(len(shape), x.ndim)
    a = [1] * (rank - x.ndim) + list(x.shape)
    b = [1] * (rank - len(shape)) + shape
    out = []
    for p, q in zip(a, b):
        require(p == q or p == 1 or q == 1, "Expand of {} to {}".format(x.shape, shape))
        out.append(p if q == 1 else q)
    return out


@converter("Expand", needs=views, host_inputs=(1,))
def expand(n, x, shape):
    return broadcast_to(x, tuple(_expand_shape(x, shape)))


@converter("Tile", needs=lambda n: [("copy", n.t(0), n.t(0))], host_inputs=(1,))
def tile(n, x, repeats):
    return repeat(x, *_ints(repeats))


def _fill_value(n):
    value = n.attr("value")
    if value is None:
        return 0.0, "float32"
    from onnx import numpy_helper
    arr = numpy_helper.to_array(value).reshape(-1)
    return arr[0].item() if arr.dtype.kind != "V" else float(arr[0]), None


@converter("ConstantOfShape", needs=lambda n: [("fill", n.out_t(0))], host_inputs=(0,))
def constant_of_shape(n, shape):
    value, _ = _fill_value(n)
    return T.full(tuple(_ints(shape)), value, dtype=n.out_t(0), device=n.device)


@converter("Range", needs=lambda n: [("arange", n.out_t(0))], host_inputs=(0, 1, 2))
def range_(n, start, limit, delta):
    s, lim, d = (np.asarray(v).item() for v in (start, limit, delta))
    count = max(int(np.ceil((lim - s) / d)), 0)
    return T.arange(s, s + count * d, d, dtype=n.out_t(0), device=n.device) if count else \
        T.zeros((0,), dtype=n.out_t(0), device=n.device)


def _eye_needs(n):
    return [("fill", n.out_t(0)), ("copy", n.out_t(0), n.out_t(0)), ("eq", "int64"),
            ("arange", "int64"), ("copy", "bool", n.out_t(0))]


@converter("EyeLike", needs=_eye_needs)
def eye_like(n, x):
    from .._composite import eye
    rows, cols = x.shape
    return eye(rows, cols, k=n.attr("k", 0), dtype=n.out_t(0), device=n.device)


def _trilu_needs(n):
    return [("where", n.t(0)), ("ge", "int64"), ("le", "int64"), ("sub", "int64"),
            ("arange", "int64")]


@converter("Trilu", needs=_trilu_needs, host_inputs=(1,))
def trilu(n, x, k=None):
    from .._torch_index import tril, triu
    k = 0 if k is None else int(np.asarray(k).item())
    return (triu if n.attr("upper", 1) else tril)(x, diagonal=k)


@converter("CumSum", needs=lambda n: [("cumsum", n.t(0)), ("copy", n.t(0), n.t(0)),
                                     ("sub", n.t(0)), ("copy", "int64", n.t(0))],
           host_inputs=(1,))
def cumsum(n, x, axis):
    axis = _axis(np.asarray(axis).item(), x.ndim)
    if n.attr("reverse", 0):
        x = _take(x, axis, None, None, -1)
    out = cast(T.cumsum(x, axis=axis), x.dtype)
    if n.attr("exclusive", 0):
        out = out - x
    if n.attr("reverse", 0):
        out = _take(out, axis, None, None, -1)
    return out


@converter("DepthToSpace", needs=views)
def depth_to_space(n, x):
    b, c, h, w = x.shape
    s = n.attr("blocksize")
    if n.attr("mode", "DCR") == "DCR":
        t = _C.permute(reshape_to(x, (b, s, s, c // (s * s), h, w)), (0, 3, 4, 1, 5, 2))
    else:
        t = _C.permute(reshape_to(x, (b, c // (s * s), s, s, h, w)), (0, 1, 4, 2, 5, 3))
    return reshape_to(t, (b, c // (s * s), h * s, w * s))


@converter("SpaceToDepth", needs=views)
def space_to_depth(n, x):
    b, c, h, w = x.shape
    s = n.attr("blocksize")
    perm = (0, 1, 3, 5, 2, 4) if n.attr("mode", "DCR") == "CRD" else (0, 3, 5, 1, 2, 4)
    t = _C.permute(reshape_to(x, (b, c, h // s, s, w // s, s)), perm)
    return reshape_to(t, (b, c * s * s, h // s, w // s))


@converter("NonZero", needs=lambda n: [("sum", n.t(0) if n.t(0) == "bool" else "bool"),
                                      ("ne", n.t(0)), ("cumsum", "bool"),
                                      ("scatter_nd", "int64"), ("floor_divide", "int64"),
                                      ("remainder", "int64"), ("arange", "int64")])
def nonzero(n, x):
    return _C.transpose(_C.nonzero(x)) if x.ndim else reshape_to(
        T.zeros((0, int(bool(x.item()))), dtype="int64", device=x.device), (0, int(bool(x.item()))))


def pad_constant(x, before, after, fill):
    """x with before[a] and after[a] (not negative) elements of fill around
    each axis a: a filled tensor with x copied into its middle."""
    shape = tuple(x.shape[a] + before[a] + after[a] for a in range(x.ndim))
    out = T.full(shape, fill, dtype=x.dtype, device=x.device)
    _C.assign(out[tuple(slice(b, b + m) for b, m in zip(before, x.shape))], x)
    return out


def _pad_needs(n):
    mode = n.attr("mode", "constant")
    require(mode in ("constant", "reflect", "edge", "wrap"), "Pad mode " + mode)
    return [("fill", n.t(0)), ("copy", n.t(0), n.t(0)), ("gather_nd", n.t(0))]


@converter("Pad", needs=_pad_needs, host_inputs=(1, 2, 3))
def pad(n, x, pads, value=None, axes=None):
    pads = _ints(pads)
    axes = list(range(x.ndim)) if axes is None else [_axis(a, x.ndim) for a in _ints(axes)]
    k = len(axes)
    before, after = dict(zip(axes, pads[:k])), dict(zip(axes, pads[k:]))
    # Negative pads crop first.
    key = tuple(slice(max(-before.get(a, 0), 0), x.shape[a] - max(-after.get(a, 0), 0))
                for a in range(x.ndim))
    x = x[key]
    mode = n.attr("mode", "constant")
    fill = 0 if value is None or np.asarray(value).size == 0 else np.asarray(value).reshape(-1)[0].item()
    if mode == "constant":
        return pad_constant(x, [max(before.get(a, 0), 0) for a in range(x.ndim)],
                            [max(after.get(a, 0), 0) for a in range(x.ndim)], fill)
    for a in range(x.ndim):
        p, q = max(before.get(a, 0), 0), max(after.get(a, 0), 0)
        if not p and not q:
            continue
        m = x.shape[a]
        parts = []
        if mode == "edge":
            edge = lambda i: broadcast_to(_take(x, a, i, i + 1), x.shape[:a] + (p if i == 0 else q,) + x.shape[a + 1:])  # noqa: E731
            parts = ([edge(0)] if p else []) + [x] + ([edge(m - 1)] if q else [])
        elif mode == "reflect":
            require(p < m and q < m, "Pad reflect wider than the axis")
            parts = ([_take(x, a, p, 0, -1)] if p else []) + [x] + \
                ([_take(x, a, m - 2, m - 2 - q, -1)] if q else [])
        else:
            parts = ([_take(x, a, m - p, m)] if p else []) + [x] + ([_take(x, a, 0, q)] if q else [])
        x = concatenate(parts, axis=a)
    return x


def _onehot_needs(n):
    return [("arange", "int64"), ("eq", "int64"), ("where", n.t(2)), ("lt", "int64"),
            ("add", "int64"), ("copy", n.t(0), "int64")]


@converter("OneHot", needs=_onehot_needs, host_inputs=(1,))
def one_hot(n, indices, depth, values):
    depth = int(np.asarray(depth).reshape(-1)[0])
    idx = cast(indices, "int64")
    idx = T.where(idx < 0, idx + depth, idx)
    rank = idx.ndim + 1
    axis = _axis(n.attr("axis", -1), rank)
    positions = reshape_to(T.arange(depth, dtype="int64", device=idx.device),
                           (depth,) + (1,) * (rank - 1 - axis))
    hot = reshape_to(idx, idx.shape[:axis] + (1,) + idx.shape[axis:]) == positions
    off, on = values[0], values[1]
    return T.where(hot, on, off)

