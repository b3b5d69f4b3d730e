"""Tensors are freed when Python drops them: bp_live_tensor_count() comes back
to where it was after long loops of small operations, views, errors and
transfers."""
import gc

import pytest

import backplane as bp
from conftest import require


def live():
    gc.collect()
    return bp.live_tensor_count()


def test_loop_of_small_ops_does_not_leak():
    a = bp.ones(1, device="cpu")
    b = bp.ones(1, device="cpu")
    base = live()
    for _ in range(100_000):
        c = a + b
        c = c * 2.0
    del c
    assert live() == base


@pytest.mark.parametrize("name", ["cpu:0", "reference:0", "opencl:0"])
def test_mixed_operations_do_not_leak(name):
    d = require(name)
    x = bp.arange(12, dtype="float32", device=d).reshape(3, 4)
    base = live()
    for _ in range(300):
        y = (x + 1).exp().sum(axis=0) - x.max()
        z = x[1:, ::2].T @ x[:2, :2]
        w = bp.where(x > 3, x, 0.0).norm()
        v = x.to(bp.cpu()).copyto(d)
        r = repr(x[0])
        n = x.numpy()
        for row in x:
            row.mean()
        try:
            x + bp.ones(5, device=d)
        except bp.ShapeError:
            pass
    del y, z, w, v, r, n, row
    assert live() == base


def test_mismatch_errors_do_not_leak():
    a = bp.ones(2, device="cpu")
    b = bp.ones(2, device="reference:0")
    base = live()
    for _ in range(2000):
        try:
            a + b
        except bp.DeviceMismatchError as e:
            assert e.devices
    assert live() == base


def test_setitem_and_dlpack_do_not_leak():
    import numpy as np
    x = bp.zeros((4, 4), device="cpu")
    base = live()
    for i in range(500):
        x[i % 4] = float(i)
        x[:, 1] = bp.ones(4, device="cpu")
        a = np.from_dlpack(x)
        t = bp.from_dlpack(a)
    del a, t
    assert live() == base
