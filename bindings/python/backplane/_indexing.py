"""t[key] and t[key] = value with NumPy's rules, on the tensor's device.

The rules live in the C API (bp_index, bp_index_put_into: backplane.h,
"indexing"); this module only reads a Python key into the entries those
take: integers, slices, None, Ellipsis and tensors, with lists, tuples and
NumPy arrays used as indices copied to the tensor's device first.

Integers, slices and None give views; boolean masks and integer tensors give
new tensors; a slice with a negative step gives a copy (views have
non-negative strides), and writing through one writes the reversed value."""
import operator

from . import _C
from ._dtype import bool_

_BASIC_HELP = ("integers, slices, Ellipsis, None, boolean masks and integer tensors "
               "(or lists / NumPy arrays of them), and tuples of those")


def _tensor_module():
    from . import _tensor
    return _tensor


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


def _entries(t, key):
    """The key as the entries _C.index takes."""
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    for k in key:
        if k is None or k is Ellipsis or isinstance(k, slice):
            out.append(k)
        elif _is_advanced(k):
            out.append(_as_index_tensor(k, t))
        elif isinstance(k, bool):
            raise IndexError("a Python bool is not an index (use a boolean tensor as a mask)")
        else:
            try:
                out.append(operator.index(k))
            except TypeError:
                raise IndexError("only {} are valid indices, not {}".format(
                    _BASIC_HELP, type(k).__name__)) from None
    return out


def getitem(t, key):
    return _C.index(t, _entries(t, key))


def setitem(t, key, value):
    T = _tensor_module()
    entries = _entries(t, key)
    value = value if isinstance(value, T.Tensor) else T._scalar_or_data(value, t, "setitem")
    _C.index_put_into(t, entries, value, False)
