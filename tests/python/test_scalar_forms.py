"""Reductions over tuples of axes, where with a number and fills, which the
C API now does (bp_reduce_axes, bp_where_scalar, bp_full_kind), against
NumPy on every device."""
import itertools

import numpy as np
import pytest

import backplane as bp

A = (np.arange(60, dtype=np.float64).reshape(3, 4, 5) % 7) - 2.5


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "prod"])
def test_every_set_of_axes_reduces_as_numpy(dev, name):
    x = bp.tensor(A, device=dev)
    for r in (1, 2, 3):
        for axes in itertools.permutations((0, 1, -1), r):
            for keepdims in (False, True):
                want = getattr(np, name)(A, axis=axes, keepdims=keepdims)
                got = getattr(bp, name)(x, axis=axes, keepdims=keepdims)
                assert got.shape == want.shape, (axes, keepdims)
                np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, err_msg=str(axes))


def test_repeated_or_missing_axes_are_errors(dev):
    x = bp.tensor(A, device=dev)
    with pytest.raises(ValueError, match="given twice"):
        x.sum(axis=(0, -3))
    with pytest.raises(bp.ShapeError, match="out of range"):
        x.sum(axis=(0, 3))


def test_where_with_numbers_takes_the_kind_rule(dev):
    c = bp.tensor([True, False, True], device=dev)
    i = bp.tensor([1, 2, 3], dtype=bp.int8, device=dev)
    assert bp.where(c, i, 5).dtype == bp.int8
    assert bp.where(c, 0.5, i).dtype == bp.float64
    assert bp.where(c, 0.5, i).tolist() == [0.5, 2.0, 0.5]
    assert bp.where(c, c, 2).dtype == bp.int64
    assert bp.where(c, 1, 2.5).tolist() == [1.0, 2.5, 1.0]
    with pytest.raises(bp.InvalidArgumentError, match="does not fit int8"):
        bp.where(c, i, 300)
