"""bp.equal is elementwise (NumPy's np.equal; also bp.eq, PyTorch's
elementwise name); bp.array_equal is one truth value (torch.equal,
np.array_equal)."""
import numpy as np
import pytest

import backplane as bp


def test_equal_and_eq_are_elementwise(dev):
    a = bp.tensor([1.0, 2.0, float("nan")], device=dev)
    b = bp.tensor([1.0, 3.0, float("nan")], device=dev)
    for fn in (bp.equal, bp.eq):
        r = fn(a, b)
        assert r.dtype == bp.bool_ and r.tolist() == [True, False, False]
    assert np.equal(a, b).tolist() == [True, False, False]
    assert bp.ne(a, b).tolist() == [False, True, True]
    assert bp.lt(a, 2.0).tolist() == [True, False, False]
    assert bp.le(a, 2.0).tolist() == [True, True, False]
    assert bp.gt(a, 1.0).tolist() == [False, True, False]
    assert bp.ge(a, 1.0).tolist() == [True, True, False]


def test_array_equal_is_one_truth_value(dev):
    a = bp.tensor([[1, 2], [3, 4]], device=dev)
    assert bp.array_equal(a, bp.tensor([[1, 2], [3, 4]], device=dev)) is True
    assert bp.array_equal(a, bp.tensor([[1, 2], [3, 5]], device=dev)) is False
    assert bp.array_equal(a, bp.tensor([1, 2], device=dev)) is False  # no broadcasting
    assert bp.array_equal(a, a.reshape(4)) is False
    assert bp.array_equal(a, a.to(bp.float64)) is True  # compared by value
    nan = bp.tensor([float("nan")], device=dev)
    assert bp.array_equal(nan, nan) is False
    empty = bp.zeros((0, 3), device=dev)
    assert bp.array_equal(empty, empty) is True
    with pytest.raises(TypeError, match="backplane tensors"):
        bp.array_equal(a, [[1, 2], [3, 4]])


def test_array_equal_refuses_two_devices(dev_pair):
    a, b = (bp.ones(2, device=d) for d in dev_pair)
    with pytest.raises(bp.DeviceMismatchError):
        bp.array_equal(a, b)


def test_array_equal_agrees_with_torch_equal():
    torch = pytest.importorskip("torch")
    cases = [([1.0, 2.0], [1.0, 2.0]), ([1.0, 2.0], [1.0, 2.5]), ([[1.0]], [1.0]),
             ([1.0, float("nan")], [1.0, float("nan")]), ([], [])]
    for x, y in cases:
        want = torch.equal(torch.tensor(x), torch.tensor(y))
        assert bp.array_equal(bp.tensor(x, device="cpu"), bp.tensor(y, device="cpu")) is want
