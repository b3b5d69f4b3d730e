"""The unary operators of ABI 1.5 on every device, against references that
need no SciPy (Python's math module, NumPy): the function, the method, the
in-place method and out=, in float32, float64 and float16, on NaN, the
infinities, signed zeros and rounding ties, and on integers (converted to
float64 by the float operators, kept by the others); and the predicates of
1.6 (isnan, isinf, and the isfinite made of them), which give bool.
Gradients: test_gradcheck.py."""
import math

import numpy as np
import pytest

import backplane as bp

X = [-3.0, -2.5, -1.5, -0.5, -0.0, 0.0, 1e-5, 0.25, 0.5, 1.0, 1.5, 2.5, math.inf, -math.inf,
     math.nan]
INTEGERS = [-7, -1, 0, 2, 5]


def _rsqrt(a):
    return 1 / np.sqrt(a)


# name -> (the float64 function it computes, whether integers stay integers)
REFERENCE = {
    "erf": (np.vectorize(math.erf, otypes=[np.float64]), False),
    "expm1": (np.expm1, False),
    "log1p": (np.log1p, False),
    "rsqrt": (_rsqrt, False),
    "floor": (np.floor, True),
    "ceil": (np.ceil, True),
    "round": (np.rint, True),  # half to even, as torch.round
    "sign": (np.sign, True),  # +0 for -0, as torch.sign
}


def expected(name, values):
    with np.errstate(divide="ignore", invalid="ignore"):
        return REFERENCE[name][0](np.asarray(values, dtype=np.float64))


def same_zero_signs(got, want):
    zeros = want == 0
    return np.array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]))


@pytest.mark.parametrize("name", sorted(REFERENCE))
# float16: half an ulp relative, and half the smallest subnormal below 2**-14
@pytest.mark.parametrize("dtype,rtol,atol", [("float32", 2e-6, 0), ("float64", 1e-13, 0),
                                             ("float16", 1e-3, 2.0 ** -25)])
def test_matches_the_reference(dev, name, dtype, rtol, atol):
    try:
        x = bp.tensor(X, dtype=dtype, device=dev)
    except (bp.DtypeError, bp.UnsupportedError) as e:
        pytest.skip("{} has no {}: {}".format(dev, dtype, e))
    want = expected(name, np.array(X, dtype=dtype))
    for got in (getattr(bp, name)(x), getattr(x, name)()):
        assert got.dtype == x.dtype and got.device == dev
        got = got.numpy().astype(np.float64)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
        assert same_zero_signs(got, want), (name, got, want)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_integers(dev, name):
    x = bp.tensor(INTEGERS, device=dev)
    got = getattr(bp, name)(x)
    if REFERENCE[name][1]:
        assert got.dtype == x.dtype
        assert got.numpy().tolist() == expected(name, INTEGERS).astype(np.int64).tolist()
    else:
        assert got.dtype == bp.float64
        np.testing.assert_allclose(got.numpy(), expected(name, INTEGERS), rtol=1e-13)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_in_place_and_out(dev, name):
    values = [0.5, 1.5, 2.25]
    want = expected(name, values)
    x = bp.tensor(values, dtype="float32", device=dev)
    out = bp.empty((3,), dtype="float32", device=dev)
    assert getattr(bp, name)(x, out=out) is out
    np.testing.assert_allclose(out.numpy(), want, rtol=2e-6)
    assert getattr(x, name + "_")() is x
    np.testing.assert_allclose(x.numpy(), want, rtol=2e-6)


def test_round_is_not_exported_by_star():
    namespace = {}
    exec("from backplane import *", namespace)
    assert namespace.get("round", round) is round
    assert bp.round(bp.tensor([2.5], device="cpu:0")).item() == 2.0


# ---- the predicates of 1.6: bool out ----------------------------------------------------------

PREDICATES = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite}


@pytest.mark.parametrize("name", sorted(PREDICATES))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_predicates_give_bool(dev, name, dtype):
    try:
        x = bp.tensor(X, dtype=dtype, device=dev)
    except (bp.DtypeError, bp.UnsupportedError) as e:
        pytest.skip("{} has no {}: {}".format(dev, dtype, e))
    want = PREDICATES[name](np.array(X, dtype=np.float64))
    for got in (getattr(bp, name)(x), getattr(x, name)()):
        assert got.dtype == bp.bool_ and got.device == dev and got.shape == x.shape
        assert got.numpy().tolist() == want.tolist()


@pytest.mark.parametrize("name", sorted(PREDICATES))
def test_predicates_of_integers_and_bool(dev, name):
    for values in (INTEGERS, [True, False]):
        got = getattr(bp, name)(bp.tensor(values, device=dev))
        assert got.dtype == bp.bool_
        assert got.numpy().tolist() == [name == "isfinite"] * len(values)


def test_isnan_and_isinf_are_operators_with_out(dev):
    x = bp.tensor([1.0, math.nan, -math.inf], device=dev)
    out = bp.empty((3,), dtype=bp.bool_, device=dev)
    assert bp.isnan(x, out=out) is out and out.numpy().tolist() == [False, True, False]
    assert bp.isinf(x, out=out) is out and out.numpy().tolist() == [False, False, True]
    with pytest.raises(bp.DtypeError):
        bp.isnan(x, out=bp.empty((3,), dtype="float32", device=dev))
