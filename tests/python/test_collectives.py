"""Collectives across the devices of one process (bp.all_reduce, bp.broadcast,
bp.all_gather, bp.reduce_scatter): against NumPy for every dtype and
reduction, on pairs of devices of one backend (its collective entry) and of
two (staged through host memory), and the errors that name a participant."""
import numpy as np
import pytest

import backplane as bp

DTYPES = ["float32", "float64", "int32", "int64"]


def parts(n, dtype, shape=(2, 3)):
    rng = np.random.default_rng(7)
    return [rng.integers(-9, 10, size=shape).astype(dtype) for _ in range(n)]


def expected(op, arrays):
    stacked = np.stack(arrays)
    if op == "sum":
        return stacked.sum(axis=0).astype(arrays[0].dtype)
    if op == "max":
        return stacked.max(axis=0)
    if op == "min":
        return stacked.min(axis=0)
    total = stacked.sum(axis=0)
    if np.issubdtype(arrays[0].dtype, np.integer):
        return np.trunc(total / len(arrays)).astype(arrays[0].dtype)  # toward zero
    return (total / len(arrays)).astype(arrays[0].dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
def test_all_reduce_matches_numpy(dev_pair, dtype, op):
    arrays = parts(2, dtype)
    ts = [bp.tensor(a, device=d) for a, d in zip(arrays, dev_pair)]
    assert bp.all_reduce(ts, op) == ts
    for t, d in zip(ts, dev_pair):
        assert t.device == d
        np.testing.assert_allclose(t.numpy(), expected(op, arrays), rtol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES + ["bool"])
def test_broadcast_all_gather_reduce_scatter(dev_pair, dtype):
    arrays = parts(2, dtype)
    ts = [bp.tensor(a, device=d) for a, d in zip(arrays, dev_pair)]
    gathered = bp.all_gather(ts)
    for g, d in zip(gathered, dev_pair):
        assert g.device == d and g.shape == (2, 2, 3)
        np.testing.assert_array_equal(g.numpy(), np.stack(arrays))
    bp.broadcast(ts, root=1)
    for t in ts:
        np.testing.assert_array_equal(t.numpy(), arrays[1])
    if dtype == "bool":
        return
    rows = parts(2, dtype, shape=(2, 4))
    scattered = bp.reduce_scatter([bp.tensor(r, device=d) for r, d in zip(rows, dev_pair)], "sum")
    for i, (s, d) in enumerate(zip(scattered, dev_pair)):
        assert s.device == d and s.shape == (4,)
        np.testing.assert_allclose(s.numpy(), rows[0][i] + rows[1][i], rtol=1e-6)


def test_bool_reductions_are_or_and(dev_pair):
    a, b = np.array([True, False, False]), np.array([True, True, False])
    ts = [bp.tensor(a, device=dev_pair[0]), bp.tensor(b, device=dev_pair[1])]
    bp.all_reduce(ts, "max")
    np.testing.assert_array_equal(ts[0].numpy(), a | b)
    with pytest.raises(bp.DtypeError, match="sum is not defined for bool"):
        bp.all_reduce(ts, "sum")


def test_the_d2l_allreduce_over_every_gpu():
    """d2l's allreduce: data[i] on try_all_gpus()[i], each summed in place."""
    gpus = bp.try_all_gpus()
    data = [bp.ones((1, 2), device=d) * (i + 1) for i, d in enumerate(gpus)]
    bp.all_reduce(data)
    total = sum(range(1, len(gpus) + 1))
    for x, d in zip(data, gpus):
        assert x.device == d
        np.testing.assert_array_equal(x.numpy(), np.full((1, 2), total, np.float32))


def test_the_trace_names_the_path():
    ts = [bp.ones(3, device="cpu:0"), bp.ones(3, device="reference:0")]
    bp.trace(True)
    try:
        bp.trace_clear()
        bp.all_reduce(ts)
        lines = bp.trace_lines()
    finally:
        bp.trace(False)
    assert any("all_reduce float32 [3] x2 (sum): on cpu:0, reference:0, staged through host memory"
               in line for line in lines), lines


def test_errors_name_the_participant():
    a = bp.ones(2, device="cpu:0")
    with pytest.raises(bp.ShapeError, match="tensor 1 on reference:0 has shape \\[3\\]") as e:
        bp.all_reduce([a, bp.ones(3, device="reference:0")])
    assert e.value.input == 1
    with pytest.raises(bp.DtypeError, match="is int32, but float32 is tensor 0 on cpu:0"):
        bp.broadcast([a, bp.ones(2, dtype="int32", device="reference:0")])
    with pytest.raises(ValueError, match="reduce op 'avg'"):
        bp.all_reduce([a], "avg")
    with pytest.raises(bp.InvalidArgumentError, match="the same tensor"):
        bp.all_reduce([a, a])
    with pytest.raises(TypeError, match="tensors\\[1\\] is a list"):
        bp.all_gather([a, [1, 2]])
    with pytest.raises(bp.InvalidArgumentError, match="count is 0"):
        bp.all_gather([])
    np.testing.assert_array_equal(a.numpy(), [1, 1])


def test_in_place_collectives_refuse_a_tensor_that_requires_gradients():
    w = bp.ones(2, device="cpu:0").requires_grad_()
    with pytest.raises(bp.StateError, match="requires gradients"):
        bp.all_reduce([w])
    with bp.no_grad():
        bp.all_reduce([w])
