"""The NumPy functions made of routed operators (backplane/_composite.py),
against NumPy on every device."""
import numpy as np
import pytest

import backplane as bp
from conftest import require

A = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], dtype=np.float32)


def test_clip(dev):
    x = bp.tensor(A, device=dev)
    assert x.clip(-1, 2).tolist() == np.clip(A, -1, 2).tolist()
    assert bp.clip(x, max=0).tolist() == np.minimum(A, 0).tolist()
    assert x.clamp(min=0).tolist() == np.maximum(A, 0).tolist() and x.clip(0).device is dev
    out = bp.zeros((2, 3), device=dev)
    assert bp.clip(x, -1, 1, out=out) is out and out.tolist() == np.clip(A, -1, 1).tolist()
    with pytest.raises(ValueError, match="min, max or both"):
        x.clip()


@pytest.mark.parametrize("axis,ddof", [(None, 0), (0, 0), (1, 1), ((0, 1), 1)])
def test_var_and_std(dev, axis, ddof):
    x = bp.tensor(A, device=dev)
    assert np.allclose(x.var(axis=axis, ddof=ddof).numpy(), A.var(axis=axis, ddof=ddof), rtol=1e-6)
    assert np.allclose(bp.std(x, axis=axis, ddof=ddof).numpy(), A.std(axis=axis, ddof=ddof), rtol=1e-6)
    assert bp.var(bp.tensor([1, 2, 3, 4], device=dev)).dtype == bp.float64


def test_softmax_is_stable(dev):
    big = np.array([[1000.0, 1001.0, 999.0], [-5.0, 0.0, 5.0]], dtype=np.float32)
    s = bp.softmax(bp.tensor(big, device=dev), axis=1).numpy()
    e = np.exp(big - big.max(axis=1, keepdims=True))
    assert np.all(np.isfinite(s)) and np.allclose(s, e / e.sum(axis=1, keepdims=True), rtol=1e-6)
    assert np.allclose(bp.tensor(big, device=dev).softmax(axis=0).numpy().sum(axis=0), 1, rtol=1e-6)


def test_allclose(dev):
    x = bp.tensor(A, device=dev)
    assert bp.allclose(x, x + 1e-7) is True and bp.allclose(x, x * 1.1) is False
    n = bp.tensor([np.nan, 1.0], device=dev)
    assert not bp.allclose(n, n) and bp.allclose(n, n, equal_nan=True)


def test_eye_and_linspace(dev):
    assert bp.eye(3, device=dev).tolist() == np.eye(3).tolist()
    e = bp.eye(2, 4, dtype=bp.int32, device=dev)
    assert e.dtype == bp.int32 and e.tolist() == np.eye(2, 4, dtype=np.int32).tolist()
    for args in [(0, 1, 5), (-3, 7, 11), (2.5, -1.0, 4)]:
        got = bp.linspace(*args, device=dev)
        assert got.device is dev and got.dtype == bp.float32
        assert np.allclose(got.numpy(), np.linspace(*args, dtype=np.float32))
        assert got.numpy()[-1] == np.float32(args[1])
    assert np.allclose(bp.linspace(0, 1, 4, endpoint=False, dtype=bp.float64, device=dev).numpy(),
                       np.linspace(0, 1, 4, endpoint=False))
    assert bp.linspace(0, 1, 0, device=dev).shape == (0,) and bp.linspace(3, 9, 1, device=dev).tolist() == [3.0]


def test_concatenate_and_stack(dev):
    x = bp.tensor(A, device=dev)
    assert bp.concatenate([x, x[:1]]).tolist() == np.concatenate([A, A[:1]]).tolist()
    assert bp.concatenate([x, x], axis=-1).tolist() == np.concatenate([A, A], axis=1).tolist()
    mixed = bp.concatenate([bp.tensor([1, 2], device=dev), bp.tensor([0.5], device=dev)])
    assert mixed.dtype == bp.float32 and mixed.tolist() == [1.0, 2.0, 0.5]
    s = bp.stack([x, x * 2], axis=1)
    assert s.shape == (2, 2, 3) and s.tolist() == np.stack([A, A * 2], axis=1).tolist()
    assert bp.stack([bp.tensor(1.0, device=dev), bp.tensor(2.0, device=dev)]).tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="does not match input 0"):
        bp.concatenate([x, bp.ones((2, 2), device=dev)], axis=0)
    with pytest.raises(ValueError, match="all must be the same"):
        bp.stack([x, x[:1]])
    with pytest.raises(TypeError, match="bp.tensor"):
        bp.concatenate([x, A])


def test_concatenate_refuses_two_devices():
    ref = require("reference:0")
    with pytest.raises(bp.DeviceMismatchError) as e:
        bp.concatenate([bp.ones(2, device="cpu"), bp.ones(2, device=ref)])
    assert e.value.op == "concatenate" and e.value.input == 1
    assert "`.to(device)`" in str(e.value)
