"""The seed chapter (examples/seed_chapter.py, the "GPUs" chapter of Dive into
Deep Learning) in bfloat16 and float16 on cpu:0, opencl:0 and reference:0,
step by step against the same steps in float64 NumPy on the recorded
(rounded) inputs, rounded as plugin.h says the dtype rounds.

The reference never comes from another library's half-precision kernels:
their accuracy depends on the CPU (PyTorch 1.13's bfloat16 matmul
accumulates in float32 only where oneDNN has AVX-512 BF16, in bfloat16
elsewhere), so a test against them would pass or fail by machine.

Exact where plugin.h says the result is the correctly rounded one (ones, the
rounded float32 random stream, ADD); within the dtype's rounding otherwise:
exp and log may differ in their last bit, sums accumulate in float32 and
round once, GEMM's tolerance grows with K."""
import os

import numpy as np
import pytest

import backplane as bp
from conftest import REPO, require, run_python

SCRIPT = os.path.join(REPO, "examples", "seed_chapter.py")
DTYPES = ["bfloat16", "float16"]
DEVICES = ["cpu:0", "opencl:0", "reference:0"]
EPS = {"bfloat16": 2.0 ** -7, "float16": 2.0 ** -10}  # one unit in the last place at 1
EPS32 = 2.0 ** -23
BF16_MAX = (2 - 2.0 ** -7) * 2.0 ** 127


def rounded(x, dtype):
    """float64 values rounded once to the dtype, to nearest even (overflow to
    infinity, subnormals kept), as float64."""
    x = np.asarray(x, np.float64)
    if dtype == "float16":  # NumPy rounds float64 -> float16 once
        with np.errstate(over="ignore"):
            return x.astype(np.float16).astype(np.float64)
    # bfloat16: 8 significant bits over float32's exponents (the smallest
    # subnormal is 2^-133).
    with np.errstate(invalid="ignore", over="ignore"):
        _, e = np.frexp(x)
        quantum = np.maximum(e - 8, -133)
        r = np.ldexp(np.rint(np.ldexp(x, -quantum)), quantum)  # rint: ties to even
        r = np.where(np.abs(r) > BF16_MAX, np.copysign(np.inf, x), r)
    return np.where(np.isfinite(x), r, x)


@pytest.fixture(scope="module", params=[(d, t) for d in DEVICES for t in DTYPES],
                ids=lambda p: "{}-{}".format(*p))
def chapter(request, tmp_path_factory):
    """Runs the chapter once per device and dtype; returns (its steps'
    results, the dtype name)."""
    device, dtype = request.param
    require(device)
    path = tmp_path_factory.mktemp("seed") / "steps.npz"
    r = run_python(script=SCRIPT, timeout=600,
                   args=["--dtype", dtype, "--device", device, "--record", str(path)])
    assert r.returncode == 0, "exit {}\nstdout:\n{}\nstderr:\n{}".format(
        r.returncode, r.stdout, r.stderr)
    assert "done: all cells ran" in r.stdout and "same values: True" in r.stdout
    steps = dict(np.load(str(path)))
    return steps, dtype


def _within(got, want, tol):
    """|got - want| <= tol elementwise, NaN where the other has NaN."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape
    assert np.array_equal(np.isnan(got), np.isnan(want)), (got, want)
    ok = np.isnan(got) | (got == want) | (np.abs(got - want) <= tol)
    assert ok.all(), "got {}\nwant {}\ntolerance {}".format(got[~ok], want[~ok],
                                                          np.broadcast_to(tol, got.shape)[~ok])


def test_rounded_is_round_to_nearest_even_once():
    """The reference's own rounding, on values whose bits are known."""
    tie_down, tie_up = 1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8  # bfloat16 ties at 1
    assert rounded([tie_down, tie_up, tie_down + 2.0 ** -40], "bfloat16").tolist() == [
        1.0, 1 + 2 * 2.0 ** -7, 1 + 2.0 ** -7]
    assert rounded([BF16_MAX, BF16_MAX + 2.0 ** 119, -3e38 * 2], "bfloat16").tolist() == [
        BF16_MAX, np.inf, -np.inf]
    assert rounded([2.0 ** -133, 1.5 * 2.0 ** -133, 2.0 ** -134], "bfloat16").tolist() == [
        2.0 ** -133, 2.0 ** -132, 0.0]
    # Rounded through float32 first, 1 + 2^-11 + 2^-40 would tie and go to 1.
    assert rounded([1 + 2.0 ** -11 + 2.0 ** -40, 65520.0, 2.0 ** -25], "float16").tolist() == [
        1 + 2.0 ** -10, np.inf, 0.0]
    assert np.isnan(rounded([np.nan], "bfloat16")).all()


def test_every_step_keeps_the_dtype(chapter):
    steps, dtype = chapter
    for name in ("X", "Y", "Z", "Y + Z", "(Z + 2).exp() * Y", "Y.sum()", "net(X)",
                 "x ** 0.5 - log(|x|)", "A", "A @ A", "norm(A @ A)"):
        assert str(steps[name + ".dtype"]) == dtype, name


def test_creation_and_the_random_stream_are_exact(chapter):
    steps, dtype = chapter
    assert np.array_equal(steps["X"], np.ones((2, 3)))
    assert np.array_equal(steps["Z"], steps["X"])
    # The uniform draw is the float32 stream's value rounded to the dtype.
    assert np.array_equal(steps["Y"], rounded(steps["Y.float32"], dtype))
    assert ((0 <= steps["Y"]) & (steps["Y"] <= 1)).all()


def test_addition_is_exact(chapter):
    steps, dtype = chapter
    X, Y = steps["X"], steps["Y"]
    assert np.array_equal(steps["Y + Z"], rounded(Y + X, dtype))
    if "X + Y" in steps:  # when the chapter's X and Y share a device
        assert np.array_equal(steps["X + Y"], rounded(X + Y, dtype))


def test_exp_times_y_within_the_dtype_rounding(chapter):
    steps, dtype = chapter
    Z, Y = steps["Z"], steps["Y"]
    want = rounded(rounded(np.exp(rounded(Z + 2, dtype)), dtype) * Y, dtype)
    # exp may differ in its last bit, which the product can round on.
    _within(steps["(Z + 2).exp() * Y"], want, 2 * EPS[dtype] * np.abs(want))


def test_sum_accumulates_and_rounds_once(chapter):
    steps, dtype = chapter
    exact = steps["Y"].sum()  # float64: exact for six halves
    # Half a unit of the dtype, and what a float32 accumulation in any order
    # may move the value by before it rounds.
    _within(steps["Y.sum()"], exact, EPS[dtype] / 2 * abs(exact) + 6 * EPS32 * abs(exact))
    _within(steps["Y.sum()"], rounded(exact, dtype), EPS[dtype] * abs(exact))


def test_the_network_matches_its_linear_map(chapter):
    steps, dtype = chapter
    X, W, b = (steps[k] for k in ("X", "net.weight", "net.bias"))
    want = rounded(rounded(X @ W.T, dtype) + b, dtype)
    scale = np.abs(X) @ np.abs(W).T + np.abs(b)
    # The matmul rounds once, the bias add once more (a fused one rounds once).
    _within(steps["net(X)"], want, 2 * EPS[dtype] * scale)


def test_the_lazy_expression_within_the_dtype_rounding(chapter):
    steps, dtype = chapter
    x = rounded(np.arange(1, 200_001, dtype=np.float64), dtype)  # integers: exact or inf
    with np.errstate(invalid="ignore"):
        want = rounded(rounded(np.sqrt(x), dtype) - rounded(np.log(np.abs(x)), dtype), dtype)
    got = steps["x ** 0.5 - log(|x|)"]
    if dtype == "float16":  # past 65504 the values are inf, and inf - inf is NaN
        assert np.isnan(got[-1]) and np.isnan(want[-1])
    # pow and log each within a unit; the difference rounds once more.
    _within(got, want, 2 * EPS[dtype] * (np.sqrt(x) + np.abs(np.log(x))))


def test_matmul_within_its_k_scaled_tolerance(chapter):
    steps, dtype = chapter
    A = steps["A"]
    exact = A @ A  # float64 of halves: within 2^-53 K |A| |A| of the true product
    k = A.shape[1]
    magnitude = np.abs(A) @ np.abs(A)
    # plugin.h: a float32 accumulation (in any order) rounded once; the
    # accumulation may move a value across a rounding boundary of the dtype.
    _within(steps["A @ A"], rounded(exact, dtype),
            EPS[dtype] * np.abs(exact) + 2 * k * EPS32 * magnitude)


def test_the_logged_norms_match_the_product_s(chapter):
    steps, dtype = chapter
    C = steps["A @ A"]
    want = rounded(np.sqrt(np.sum(C * C)), dtype)
    log = steps["norm(A @ A)"]
    assert log.shape == (100,) and (log == log[0]).all()  # one value, logged on the device
    n = C.size
    _within(log[0], want, EPS[dtype] * abs(want) + n * EPS32 * abs(want))


def test_the_chapter_refuses_an_unknown_dtype():
    r = run_python(script=SCRIPT, args=["--dtype", "float8"])
    assert r.returncode != 0 and "DtypeError" in r.stderr and "float8" in r.stderr
    assert bp.as_dtype("bfloat16") is bp.bfloat16
