"""softmax and log_softmax (the SOFTMAX operators of 1.6) on every device, as
PyTorch spells them: bp.softmax, bp.log_softmax, Tensor.softmax,
Tensor.log_softmax, nn.functional.softmax / log_softmax (dim=None's legacy
choice and its warning, dtype=), nn.Softmax and nn.LogSoftmax; against
NumPy in float64, and against torch where python3-torch is installed, on
ordinary values, rows near the float maximum and PyTorch's special rows;
integer inputs; errors; a backend older than the operators. Gradients:
test_gradcheck.py."""
import math
import os

import numpy as np
import pytest

import backplane as bp
from backplane import nn
from backplane.nn import functional as F
from conftest import run_python


def reference(x, axis, log=False):
    """softmax (log_softmax) of x along axis in float64, as plugin.h computes it."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        m = x.max(axis=axis, keepdims=True)
        t = x - m
        s = np.exp(t).sum(axis=axis, keepdims=True)
        return t - np.log(s) if log else np.exp(t) / s


# float16 and bfloat16 round the float32 result once: a few of their own units.
TOLERANCE = {"float32": (2e-6, 1e-7), "float64": (1e-13, 1e-15), "float16": (2e-3, 1e-6),
             "bfloat16": (1.6e-2, 1e-5)}


def tensor_or_skip(values, dtype, dev):
    try:
        return bp.tensor(values, dtype=dtype, device=dev)
    except (bp.DtypeError, bp.UnsupportedError) as e:
        pytest.skip("{} has no {}: {}".format(dev, dtype, e))


@pytest.mark.parametrize("dtype", sorted(TOLERANCE))
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_values_along_every_axis(dev, dtype, log):
    rng = np.random.RandomState(3)
    values = rng.uniform(-6, 6, size=(3, 4, 37))
    x = tensor_or_skip(values, dtype, dev)
    exact = x.to(bp.float64).numpy()  # the values the dtype holds
    rtol, atol = TOLERANCE[dtype]
    fn = bp.log_softmax if log else bp.softmax
    for axis in (0, 1, 2, -1, -3):
        got = fn(x, axis)
        assert got.dtype == x.dtype and got.shape == x.shape and got.device == dev
        want = reference(exact, axis, log)
        # log_softmax rounds on the scale of its terms, |x - m| and log(n), too.
        scale = np.abs(want) + (np.log(x.shape[axis]) + 1 if log else 0)
        err = np.abs(got.to(bp.float64).numpy() - want)
        assert (err <= atol + rtol * scale).all(), (axis, err.max(), (err / (atol + rtol * scale)).max())


def test_torch_spellings(dev):
    x = bp.tensor(np.arange(12.0).reshape(3, 4) / 7, device=dev)
    want = reference(x.numpy(), 1)
    for got in (bp.softmax(x, 1), bp.softmax(x, dim=1), bp.softmax(x, axis=1), x.softmax(1), x.softmax(dim=-1),
                F.softmax(x, dim=1), F.softmax(x, 1), nn.Softmax(dim=1)(x), nn.Softmax(-1)(x)):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-13)
    log_want = reference(x.numpy(), 0, log=True)
    for got in (bp.log_softmax(x, 0), x.log_softmax(dim=0), F.log_softmax(x, dim=0), nn.LogSoftmax(dim=0)(x)):
        np.testing.assert_allclose(got.numpy(), log_want, rtol=1e-13)
    # Without dim: bp's own default, the last axis (torch.softmax requires dim).
    np.testing.assert_allclose(bp.softmax(x).numpy(), want, rtol=1e-13)
    with pytest.raises(TypeError, match="axis= .* and dim= .* name the same argument"):
        bp.softmax(x, dim=1, axis=1)
    assert repr(nn.LogSoftmax(dim=1)) == "LogSoftmax(dim=1)"


def test_functional_without_dim_takes_pytorchs_legacy_choice_with_its_warning(dev):
    for shape, dim in (((5,), 0), ((2, 5), 1), ((2, 3, 5), 0), ((2, 3, 4, 5), 1)):
        x = bp.tensor(np.linspace(-1, 1, int(np.prod(shape))).reshape(shape), device=dev)
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
            got = F.softmax(x)
        np.testing.assert_allclose(got.numpy(), reference(x.numpy(), dim), rtol=1e-13)
        with pytest.warns(UserWarning, match="Implicit dimension choice for log_softmax"):
            got = nn.LogSoftmax()(x)
        np.testing.assert_allclose(got.numpy(), reference(x.numpy(), dim, log=True), rtol=1e-13)


def test_dtype_casts_first(dev):
    x = tensor_or_skip([[1.0, 2.0, 3.0]], "float32", dev)
    got = F.softmax(x, dim=1, dtype=bp.float64)
    assert got.dtype == bp.float64
    np.testing.assert_allclose(got.numpy(), reference([[1.0, 2.0, 3.0]], 1), rtol=1e-15)
    assert x.log_softmax(1, dtype="float64").dtype == bp.float64
    assert bp.softmax(bp.tensor([1, 2, 3], device=dev), 0, dtype=bp.float32).dtype == bp.float32


def test_integers_compute_in_float64(dev):
    got = bp.softmax(bp.tensor([[0, 1], [2, 2]], device=dev), 1)
    assert got.dtype == bp.float64
    np.testing.assert_allclose(got.numpy(), reference([[0, 1], [2, 2]], 1), rtol=1e-15)


def test_rows_near_the_float_maximum_do_not_overflow(dev):
    big = float(np.finfo(np.float32).max)
    x = bp.tensor([[big, big, 0.0], [big, -big, big]], dtype="float32", device=dev)
    np.testing.assert_array_equal(bp.softmax(x, 1).numpy(), [[0.5, 0.5, 0.0], [0.5, 0.0, 0.5]])
    log = bp.log_softmax(x, 1).numpy()
    np.testing.assert_allclose(log[0, :2], [-math.log(2)] * 2, rtol=1e-6)
    assert log[0, 2] == -big  # 0 - max - log(2) rounds to -max
    assert log[1, 1] == -np.inf  # -max - max is below the lowest float


def test_special_rows_give_pytorchs_values(dev):
    inf, nan = math.inf, math.nan
    rows = [[-inf, -inf, -inf], [-inf, 0.0, 1.0], [1.0, inf, 2.0], [1.0, nan, 2.0]]
    x = bp.tensor(rows, device=dev)
    s, log = bp.softmax(x, 1).numpy(), bp.log_softmax(x, 1).numpy()
    assert np.isnan(s[0]).all() and np.isnan(log[0]).all()
    np.testing.assert_allclose(s[1], [0.0, *reference([0.0, 1.0], 0)], rtol=1e-6)  # float32
    assert log[1, 0] == -inf
    assert np.isnan(s[2]).all() and np.isnan(log[2]).all()
    assert np.isnan(s[3]).all() and np.isnan(log[3]).all()
    assert bp.softmax(bp.empty((3, 0), device=dev), 1).shape == (3, 0)
    assert bp.tensor(2.5, device=dev).softmax(0).item() == 1.0


def test_log_softmax_stays_finite_where_softmax_underflows(dev):
    x = bp.tensor([[0.0, -2000.0]], device=dev)
    assert bp.softmax(x, 1).numpy().tolist() == [[1.0, 0.0]]
    assert bp.log_softmax(x, 1).numpy().tolist() == [[0.0, -2000.0]]


def test_bad_dims_name_the_operator(dev):
    x = bp.zeros((2, 3), device=dev)
    with pytest.raises(bp.ShapeError, match="softmax: axis 2 is out of range for a tensor of rank 2"):
        bp.softmax(x, 2)
    with pytest.raises(bp.ShapeError, match="log_softmax: axis -3"):
        F.log_softmax(x, dim=-3)


def test_cross_entropy_runs_log_softmax(dev):
    logits = bp.tensor([[1e4, 0.0, -1e4], [0.5, 1.5, -0.5]], device=dev)
    bp.trace_clear()
    bp.trace(True)
    try:
        loss = F.cross_entropy(logits, bp.tensor([1, 1], device=dev), reduction="none").numpy()
        lines = bp.trace_lines()
    finally:
        bp.trace(False)
    np.testing.assert_allclose(loss, -reference(logits.numpy(), 1, log=True)[[0, 1], [1, 1]], rtol=1e-6)
    assert any(line.startswith("log_softmax") for line in lines), lines


def test_agrees_with_torch(dev):
    torch = pytest.importorskip("torch")
    rng = np.random.RandomState(5)
    big = float(np.finfo(np.float32).max)
    values = np.concatenate([rng.uniform(-20, 20, size=(6, 33)),
                             [[big] * 11 + [-big] * 11 + [0.0] * 11, [-math.inf] * 33,
                              [-math.inf, 1.0, 2.0] * 11, [math.inf] + [0.0] * 32]]).astype(np.float32)
    x, t = bp.tensor(values, device=dev), torch.from_numpy(values)
    for dim in (0, 1):
        for ours, theirs in ((F.softmax(x, dim=dim), torch.nn.functional.softmax(t, dim=dim)),
                             (F.log_softmax(x, dim=dim), torch.nn.functional.log_softmax(t, dim=dim))):
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=2e-5, atol=1e-6, equal_nan=True)


def test_a_backend_older_than_the_operator_gets_the_composite():
    """On a device whose plugin was built before 1.6 (the 1.0 eigen-like
    plugin of tests/compat), softmax and log_softmax are made of 1.0's
    operators, as bp_softmax was until 1.6: same values, gradients."""
    plugins = os.environ.get("BACKPLANE_TEST_PLUGIN_DIR", "")
    eigenlike = os.path.normpath(os.path.join(plugins, "..", "compat", "eigenlike"))
    if not os.path.exists(os.path.join(eigenlike, "libbackplane-eigenlike.so")):
        pytest.skip("the 1.0 eigen-like plugin (tests/compat) is not built in {}".format(eigenlike))
    code = """
import math
import numpy as np
import backplane as bp
d = bp.device("eigenlike:0")
values = np.array([[1.0, 2.0, 3.0], [0.0, -math.inf, 1.0]], dtype=np.float32)
x = bp.tensor(values, device=d, requires_grad=True)
bp.trace(True)
s = bp.softmax(x, 1)
lines = bp.trace_lines()
bp.trace(False)
e = np.exp(values - values.max(axis=1, keepdims=True))
np.testing.assert_allclose(s.numpy(), e / e.sum(axis=1, keepdims=True), rtol=1e-6)
assert not any(l.startswith("softmax") for l in lines) and any(l.startswith("exp") for l in lines), lines
assert all("eigenlike:0" in l for l in lines), lines
log = bp.log_softmax(x, 0).numpy()
np.testing.assert_allclose(log[0], [-math.log(1 + math.exp(-1)), 0.0, -math.log(1 + math.exp(-2))], rtol=1e-6)
(s * bp.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], device=d)).sum().backward()
p = s.detach().numpy()
np.testing.assert_allclose(x.grad.numpy()[0], p[0, 0] * (np.eye(3)[0] - p[0]), rtol=1e-5, atol=1e-7)
try:
    bp._C.softmax(x, 5)
except bp.ShapeError as err:
    assert "softmax: axis 5 is out of range" in str(err), err
else:
    raise AssertionError("no ShapeError")
print("composite ok")
"""
    r = run_python(code, env={"BACKPLANE_PLUGIN_PATH": eigenlike})
    assert r.returncode == 0, r.stderr + r.stdout
    assert "composite ok" in r.stdout
