"""t[key] and t[key] = value with NumPy's rules, on the tensor's device.

A key is split in two passes. The basic part (integers, slices, Ellipsis,
None) becomes a view of t: select, slice, expand_dims. The advanced part
(boolean masks, integer tensors, lists and NumPy arrays) becomes one int64
index of shape [*B, k] over k axes of that view, read with bp_gather_nd and
written with bp_scatter_nd, exactly as NumPy places the result: the
broadcast index shape B where the indexed axes were when they are adjacent,
in front otherwise.

A slice with a negative step selects the same elements as a positive-step
slice, in reverse order. The ABI's views have non-negative strides, so
reading one gives a copy (gather along that axis), and writing one writes
the reversed value through the positive-step view: t[::-1] = v works, and
t[::-1] is a new tensor rather than a view."""
import builtins
import operator

from . import _C
from ._dtype import bool_, int64

_BASIC_HELP = ("integers, slices, Ellipsis, None, boolean masks and integer tensors "
               "(or lists / NumPy arrays of them), and tuples of those")


def _tensor_module():
    from . import _tensor
    return _tensor


class _Plan:
    """A key resolved against a tensor: the basic view, the axes of that view
    to reverse, and the advanced indices as (axis of the view, int64 tensor)."""

    def __init__(self, view, reversed_axes, advanced):
        self.view = view
        self.reversed_axes = reversed_axes
        self.advanced = advanced


def _as_index_tensor(k, t):
    """A list, tuple or NumPy array used as an index: a tensor on t's device
    (the index is host data the caller wrote; copying it there is the point)."""
    T = _tensor_module()
    if isinstance(k, T.Tensor):
        return k
    # NumPy's reading of the data: an empty list selects nothing (not a
    # float array), and every integer type indexes (as int64).
    arr = T._numpy().asarray(k)
    if arr.size == 0 or arr.dtype.kind in "iu":
        arr = arr.astype("int64")
    return T.tensor(arr, device=t.device)


def _is_advanced(k):
    T = _tensor_module()
    if isinstance(k, T.Tensor):
        return k.ndim > 0 or k.dtype is bool_
    if isinstance(k, (list, tuple)):
        return True
    return type(k).__module__ == "numpy" and type(k).__name__ == "ndarray"


def _normalize(key):
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    for k in key:
        if k is None or k is Ellipsis or isinstance(k, slice) or _is_advanced(k):
            out.append(k)
        elif isinstance(k, bool):
            raise IndexError("a Python bool is not an index (use a boolean tensor as a mask)")
        else:
            try:
                out.append(operator.index(k))
            except TypeError:
                raise IndexError("only {} are valid indices, not {}".format(
                    _BASIC_HELP, type(k).__name__)) from None
    return out


def _consumed(k, t):
    """How many axes of t an entry of the key indexes."""
    if k is None or k is Ellipsis:
        return 0
    if isinstance(k, (int, slice)):
        return 1
    k = _as_index_tensor(k, t)
    return k.ndim if k.dtype is bool_ else 1


def _plan(t, key):
    entries = _normalize(key)
    entries = [(_as_index_tensor(k, t) if _is_advanced(k) else k) for k in entries]
    n_ellipsis = builtins.sum(1 for k in entries if k is Ellipsis)
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = builtins.sum(_consumed(k, t) for k in entries)
    if used > t.ndim:
        raise IndexError("too many indices for a tensor of dimension {}".format(t.ndim))
    if n_ellipsis:
        at = entries.index(Ellipsis)
        entries[at:at + 1] = [slice(None)] * (t.ndim - used)
    # Beside an array, an integer is an index array too (NumPy): it takes
    # part in deciding where the result's broadcast axes go.
    integers_are_arrays = builtins.any(not isinstance(k, (int, slice)) and k is not None
                                       for k in entries)
    view, axis = t, 0
    reversed_axes, advanced = [], []
    for k in entries:
        if k is None:
            view = _C.expand_dims(view, axis)
            axis += 1
        elif isinstance(k, int):
            n = view.shape[axis]
            if not -n <= k < n:
                raise IndexError("index {} is out of bounds for axis {} with size {}".format(
                    k, axis, n))
            if integers_are_arrays:
                advanced.append((axis, _C.full(t._device_id, int64.code, (), float(k))))
                axis += 1
            else:
                view = _C.select(view, axis, k)
        elif isinstance(k, slice):
            view, backwards = _positive_slice(view, axis, k)
            if backwards:
                reversed_axes.append(axis)
            axis += 1
        elif k.dtype is bool_:
            if k.ndim == 0:
                raise IndexError("a 0-d boolean index is not supported (use a mask with the "
                                 "shape of the axes it selects)")
            covered = view.shape[axis:axis + k.ndim]
            if tuple(k.shape) != tuple(covered):
                raise IndexError("boolean index of shape {} does not match the indexed axes {} "
                                 "of shape {}".format(tuple(k.shape), list(range(
                                     axis, axis + k.ndim)), tuple(covered)))
            # NumPy's rule: a mask is the integer arrays of its nonzero().
            where = _C.nonzero(k)
            for j in range(k.ndim):
                advanced.append((axis + j, _C.select(where, 1, j)))
            axis += k.ndim
        else:
            if k.dtype.kind not in "iu":
                raise IndexError("arrays used as indices must be of integer or boolean type, "
                                 "not {}".format(k.dtype.name))
            advanced.append((axis, k))
            axis += 1
    return _Plan(view, reversed_axes, advanced)


def _positive_slice(view, axis, s):
    """The view of the elements s selects along axis, in increasing order,
    and whether s lists them backwards."""
    n = view.shape[axis]
    if s.step is not None and operator.index(s.step) == 0:
        raise ValueError("slice step cannot be zero")
    start, stop, step = s.indices(n)
    if step > 0:
        if start == 0 and stop == n and step == 1:
            return view, False
        return _C.slice(view, axis, start, stop, step), False
    picked = range(start, stop, step)
    if len(picked) == 0:
        return _C.slice(view, axis, 0, 0, 1), False
    return _C.slice(view, axis, picked[-1], picked[0] + 1, -step), len(picked) > 1


def _reverse(t, axes):
    """t with the order of the elements along each of axes reversed (a copy:
    a gather of positions n-1, ..., 0 along the axis)."""
    for axis in axes:
        n = t.shape[axis]
        order = [axis] + [d for d in range(t.ndim) if d != axis]
        backwards = _C.reshape(_C.arange(t._device_id, int64.code, n - 1, -1, -1), (n, 1))
        t = _C.permute(_C.gather_nd(_C.permute(t, order), backwards), _inverse(order))
    return t


def _inverse(order):
    inverse = [0] * len(order)
    for i, d in enumerate(order):
        inverse[d] = i
    return inverse


def _broadcast_shapes(shapes):
    rank = builtins.max((len(s) for s in shapes), default=0)
    out = [1] * rank
    for s in shapes:
        for i, e in enumerate(s):
            at = rank - len(s) + i
            if e != 1 and out[at] not in (1, e):
                raise IndexError("shape mismatch: indexing arrays could not be broadcast "
                                 "together with shapes {}".format(
                                     " ".join(str(tuple(x)) for x in shapes)))
            if e != 1:
                out[at] = e
    return tuple(out)


class _Advanced:
    """The advanced part of a plan as one gather/scatter: the view with the
    indexed axes moved to the front, the stacked index [*B, k], and the
    permutation from that gather's layout (B, then the other axes) to the
    layout NumPy gives the result."""

    def __init__(self, plan, like):
        T = _tensor_module()
        view = plan.view
        axes = [a for a, _ in plan.advanced]
        arrays = [index for _, index in plan.advanced]
        batch = _broadcast_shapes([tuple(a.shape) for a in arrays])
        k = len(arrays)
        stacked = T.empty(batch + (k,), dtype=int64, device=like.device)
        for j, index in enumerate(arrays):
            _C.assign(_C.select(stacked, len(batch), j), index)
        self.index = stacked
        rest = [d for d in range(view.ndim) if d not in axes]
        self.front = _C.permute(view, axes + rest)
        self.batch_rank = len(batch)
        adjacent = axes == list(range(axes[0], axes[0] + k))
        at = axes[0] if adjacent else 0
        nb = self.batch_rank
        # gather layout: B, then rest. NumPy's: rest before `at`, B, rest after.
        self.order = ([nb + i for i in range(at)] + list(range(nb)) +
                      [nb + i for i in range(at, len(rest))])
        # Where each reversed axis of the view lands in the gather layout.
        self.reversed = [nb + rest.index(a) for a in plan.reversed_axes]
        # The gather's shape: B, then the axes not indexed.
        self.gathered_shape = batch + tuple(self.front.shape[k:])


def getitem(t, key):
    plan = _plan(t, key)
    if not plan.advanced:
        return _reverse(plan.view, plan.reversed_axes)
    adv = _Advanced(plan, t)
    gathered = _reverse(_C.gather_nd(adv.front, adv.index), adv.reversed)
    return _C.permute(gathered, adv.order)


def setitem(t, key, value):
    T = _tensor_module()
    plan = _plan(t, key)
    target = plan.view
    value = value if isinstance(value, T.Tensor) else T._scalar_or_data(value, t, "setitem")
    if not plan.advanced and not plan.reversed_axes:
        _C.assign(target, value)
        return
    if not plan.advanced:
        full = T.empty(target.shape, dtype=t.dtype, device=t.device)
        _C.assign(full, value)
        _C.assign(target, _reverse(full, plan.reversed_axes))
        return
    adv = _Advanced(plan, t)
    result_shape = tuple(adv.gathered_shape[d] for d in adv.order)
    full = T.empty(result_shape, dtype=t.dtype, device=t.device)
    _C.assign(full, value)
    values = _reverse(_C.permute(full, _inverse(adv.order)), adv.reversed)
    _C.scatter_nd(adv.front, adv.index, values)
