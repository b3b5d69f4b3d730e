"""The two operators training adds: logsumexp (a reduction, against NumPy's
stable formula) and scatter_add_nd (gather_nd's gradient, against
np.add.at), on every device."""
import numpy as np
import pytest

import backplane as bp


def np_logsumexp(a, axis=None, keepdims=False):
    """NumPy's log(sum(exp(a))) shifted by the maximum (SciPy's formula)."""
    m = np.max(a, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def test_logsumexp_matches_numpy_over_axes(dev):
    a = np.random.default_rng(3).uniform(-50, 50, (3, 4, 5))
    x = bp.tensor(a, device=dev)
    for axis in (None, 0, -1, (0, 2)):
        for keepdims in (False, True):
            got = x.logsumexp(axis=axis, keepdims=keepdims)
            want = np_logsumexp(a, axis, keepdims)
            assert got.shape == want.shape, (axis, keepdims)
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, err_msg=str(axis))
    np.testing.assert_allclose(bp.logsumexp(x, axis=1).numpy(), np_logsumexp(a, 1), rtol=1e-12)


def test_logsumexp_does_not_overflow_and_keeps_float32(dev):
    x = bp.tensor(np.array([[1000, 1000], [-1000, -1000]], dtype=np.float32), device=dev)
    got = x.logsumexp(axis=1)
    assert got.dtype == bp.float32
    np.testing.assert_allclose(got.numpy(), [1000 + np.log(2), -1000 + np.log(2)], rtol=1e-6)


def test_logsumexp_of_integers_is_float64(dev):
    got = bp.tensor([1, 2, 3], dtype=bp.int32, device=dev).logsumexp()
    assert got.dtype == bp.float64
    assert got.item() == pytest.approx(np_logsumexp(np.array([1.0, 2.0, 3.0])))


def test_logsumexp_of_nan_infinities_and_nothing(dev):
    inf, nan = np.inf, np.nan
    a = np.array([[inf, nan, 1], [inf, 2, -inf], [-inf, -inf, -inf]])
    got = bp.tensor(a, device=dev).logsumexp(axis=1).numpy()
    assert np.isnan(got[0]) and got[1] == inf and got[2] == -inf
    empty = bp.zeros((0, 3), device=dev).logsumexp(axis=0)
    assert empty.numpy().tolist() == [-inf] * 3


def test_scatter_add_nd_matches_add_at(dev):
    rng = np.random.default_rng(5)
    base = rng.integers(-5, 5, (4, 3)).astype(np.float64)
    rows = rng.integers(0, 4, 40)  # ten rows on each on average: they must all add
    values = rng.uniform(-1, 1, (40, 3))
    want = base.copy()
    np.add.at(want, rows, values)
    dst = bp.tensor(base, device=dev)
    bp._C.scatter_add_nd(dst, bp.tensor(rows.reshape(-1, 1), device=dev), bp.tensor(values, device=dev))
    np.testing.assert_allclose(dst.numpy(), want, rtol=1e-12)
    # k = 2 names single elements; a negative index counts from the end, and
    # a scalar value is broadcast to every row.
    points = np.array([[0, 1], [-1, 2], [0, 1]])
    ints = bp.tensor(np.zeros((4, 3), dtype=np.int64), device=dev)
    bp._C.scatter_add_nd(ints, bp.tensor(points, device=dev), bp.tensor(5, device=dev))
    want = np.zeros((4, 3), dtype=np.int64)
    np.add.at(want, (points[:, 0], points[:, 1]), 5)
    assert (ints.numpy() == want).all()


def test_scatter_add_nd_errors(dev):
    dst = bp.zeros((3,), device=dev)
    with pytest.raises(bp.IndexError):
        bp._C.scatter_add_nd(dst, bp.tensor([[3]], device=dev), bp.tensor([1.0], device=dev))
    flags = bp.zeros((3,), dtype=bp.bool_, device=dev)
    with pytest.raises(bp.DtypeError):
        bp._C.scatter_add_nd(flags, bp.tensor([[0]], device=dev), bp.tensor([True], device=dev))
    assert dst.numpy().tolist() == [0, 0, 0]
