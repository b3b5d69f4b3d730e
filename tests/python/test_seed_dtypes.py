"""The seed chapter (examples/seed_chapter.py, the "GPUs" chapter of Dive into
Deep Learning) in bfloat16 and float16 on cpu:0, opencl:0 and reference:0,
step by step against PyTorch computing in the same dtype on its CPU.

Exact where plugin.h says the result is the correctly rounded one (ones, the
rounded float32 random stream, ADD); within the dtype's rounding otherwise:
exp and log may differ in their last bit, sums accumulate in float32 and
round once, GEMM's tolerance grows with K. Where PyTorch 1.13's CPU has no
float16 kernel (exp, log, addmm) it computes in float32 and rounds once, what
its kernels for the dtype do."""
import os

import numpy as np
import pytest

import backplane as bp
from conftest import REPO, require, run_python

torch = pytest.importorskip("torch")

SCRIPT = os.path.join(REPO, "examples", "seed_chapter.py")
DTYPES = ["bfloat16", "float16"]
DEVICES = ["cpu:0", "opencl:0", "reference:0"]
EPS = {"bfloat16": 2.0 ** -7, "float16": 2.0 ** -10}  # one unit in the last place at 1
EPS32 = 2.0 ** -23


@pytest.fixture(scope="module", params=[(d, t) for d in DEVICES for t in DTYPES],
                ids=lambda p: "{}-{}".format(*p))
def chapter(request, tmp_path_factory):
    """Runs the chapter once per device and dtype; returns (its steps'
    results, the dtype name, the torch dtype)."""
    device, dtype = request.param
    require(device)
    path = tmp_path_factory.mktemp("seed") / "steps.npz"
    r = run_python(script=SCRIPT, timeout=600,
                   args=["--dtype", dtype, "--device", device, "--record", str(path)])
    assert r.returncode == 0, "exit {}\nstdout:\n{}\nstderr:\n{}".format(
        r.returncode, r.stdout, r.stderr)
    assert "done: all cells ran" in r.stdout and "same values: True" in r.stdout
    steps = dict(np.load(str(path)))
    return steps, dtype, getattr(torch, dtype)


def _t(values, tdtype):
    """The recorded values (each exact in the dtype) as a torch tensor of it."""
    return torch.from_numpy(np.ascontiguousarray(values)).to(tdtype)


def _np(t):
    return t.to(torch.float64).numpy()


def _torch(fn, *tensors):
    """fn over tensors in their dtype; where PyTorch's CPU lacks the kernel
    for it, over their float32 values, rounded to the dtype once."""
    try:
        return fn(*tensors)
    except RuntimeError as e:
        if "not implemented for" not in str(e):
            raise
        wide = (t.float() if isinstance(t, torch.Tensor) else t for t in tensors)
        return fn(*wide).to(tensors[0].dtype)


def _within(got, want, tol):
    """|got - want| <= tol elementwise, NaN where the other has NaN."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape
    assert np.array_equal(np.isnan(got), np.isnan(want)), (got, want)
    ok = np.isnan(got) | (got == want) | (np.abs(got - want) <= tol)
    assert ok.all(), "got {}\nwant {}\ntolerance {}".format(got[~ok], want[~ok],
                                                          np.broadcast_to(tol, got.shape)[~ok])


def test_every_step_keeps_the_dtype(chapter):
    steps, dtype, _ = chapter
    for name in ("X", "Y", "Z", "Y + Z", "(Z + 2).exp() * Y", "Y.sum()", "net(X)",
                 "x ** 0.5 - log(|x|)", "A", "A @ A", "norm(A @ A)"):
        assert str(steps[name + ".dtype"]) == dtype, name


def test_creation_and_the_random_stream_are_exact(chapter):
    steps, _, tdtype = chapter
    assert np.array_equal(steps["X"], _np(torch.ones(2, 3, dtype=tdtype)))
    assert np.array_equal(steps["Z"], steps["X"])
    # The uniform draw is the float32 stream's value rounded to the dtype.
    want = _np(torch.from_numpy(steps["Y.float32"].astype(np.float32)).to(tdtype))
    assert np.array_equal(steps["Y"], want)
    assert ((0 <= steps["Y"]) & (steps["Y"] <= 1)).all()


def test_addition_is_exact(chapter):
    steps, _, tdtype = chapter
    X, Y = _t(steps["X"], tdtype), _t(steps["Y"], tdtype)
    assert np.array_equal(steps["Y + Z"], _np(Y + X))
    if "X + Y" in steps:  # when the chapter's X and Y share a device
        assert np.array_equal(steps["X + Y"], _np(X + Y))


def test_exp_times_y_within_the_dtype_rounding(chapter):
    steps, dtype, tdtype = chapter
    Z, Y = _t(steps["Z"], tdtype), _t(steps["Y"], tdtype)
    want = _np((_torch(torch.exp, Z + 2)) * Y)
    # exp may differ in its last bit, which the product can round on.
    _within(steps["(Z + 2).exp() * Y"], want, 2 * EPS[dtype] * np.abs(want))


def test_sum_accumulates_and_rounds_once(chapter):
    steps, dtype, tdtype = chapter
    Y = _t(steps["Y"], tdtype)
    want = _np(Y.sum())
    _within(steps["Y.sum()"], want, EPS[dtype] * np.abs(want))
    exact = steps["Y"].sum()  # float64: within half a unit of the dtype
    _within(steps["Y.sum()"], exact, EPS[dtype] / 2 * abs(exact) + 6 * EPS32 * abs(exact))


def test_the_network_matches_torch_linear(chapter):
    steps, dtype, tdtype = chapter
    X, W, b = (_t(steps[k], tdtype) for k in ("X", "net.weight", "net.bias"))
    want = _np(_torch(torch.nn.functional.linear, X, W, b))
    scale = np.abs(steps["X"]) @ np.abs(steps["net.weight"]).T + np.abs(steps["net.bias"])
    # The matmul rounds once, the bias add once more (PyTorch may fuse them).
    _within(steps["net(X)"], want, 2 * EPS[dtype] * scale)


def test_the_lazy_expression_within_the_dtype_rounding(chapter):
    steps, dtype, tdtype = chapter
    x = torch.arange(1, 200_001, dtype=torch.float64).to(tdtype)  # integers: exact or inf
    want = _np(_torch(torch.pow, x, 0.5) - _torch(torch.log, x.abs()))
    got = steps["x ** 0.5 - log(|x|)"]
    if dtype == "float16":  # past 65504 the values are inf, and inf - inf is NaN
        assert np.isnan(got[-1]) and np.isnan(want[-1])
    xs = _np(x)
    # pow and log each within a unit; the difference rounds once more.
    _within(got, want, 2 * EPS[dtype] * (np.sqrt(xs) + np.abs(np.log(xs))))


def test_matmul_within_its_k_scaled_tolerance(chapter):
    steps, dtype, tdtype = chapter
    A = _t(steps["A"], tdtype).float()
    # The product accumulated in float32 and rounded to the dtype once:
    # Debian's python3-torch 1.13 (generic BLAS) keeps the partial sums of a
    # bfloat16 matmul in bfloat16, an error far beyond the bound below.
    want = _np((A @ A).to(tdtype))
    k = steps["A"].shape[1]
    magnitude = np.abs(steps["A"]) @ np.abs(steps["A"])
    # Both accumulate in float32 (in their own order) and round once.
    _within(steps["A @ A"], want, EPS[dtype] * np.abs(want) + 2 * k * EPS32 * magnitude)


def test_the_logged_norms_match_torch(chapter):
    steps, dtype, tdtype = chapter
    C = _t(steps["A @ A"], tdtype)
    want = _np(_torch(torch.linalg.vector_norm, C))
    log = steps["norm(A @ A)"]
    assert log.shape == (100,) and (log == log[0]).all()  # one value, logged on the device
    n = steps["A @ A"].size
    _within(log[0], want, EPS[dtype] * abs(want) + n * EPS32 * abs(want))


def test_the_chapter_refuses_an_unknown_dtype():
    r = run_python(script=SCRIPT, args=["--dtype", "float8"])
    assert r.returncode != 0 and "DtypeError" in r.stderr and "float8" in r.stderr
    assert bp.as_dtype("bfloat16") is bp.bfloat16
