"""Which convention each comparison name follows (bindings/python/README.md).

bp.equal is NumPy's np.equal: elementwise, a bool tensor (np.equal(t, u) on
tensors calls it). PyTorch's elementwise names eq, ne, lt, le, gt, ge are the
same functions (_torch_api). PyTorch's torch.equal, one truth value, is bp.array_equal
(NumPy's name for it)."""
from . import _C


def array_equal(a, b):
    """True when a and b have the same shape and equal elements, else False
    (torch.equal, np.array_equal): no broadcasting, NaN equals nothing,
    dtypes compared by value (1 == 1.0). Tensors on one device; waits for
    them."""
    for x in (a, b):
        if not isinstance(x, _C.TensorBase):
            raise TypeError("array_equal: expected backplane tensors, got {}".format(
                type(x).__name__))
    if a.shape != b.shape:
        return False
    # all() of nothing would be a min-reduction of nothing, which has no identity.
    return a.numel() == 0 or bool((a == b).all())
