"""The dtypes of 1.4 in the Python binding: bp.float16, bp.bfloat16, bp.int8,
bp.uint8, bp.int16 as names, NumPy interop (bfloat16 has no NumPy dtype),
PyTorch-style conversion methods, and scalar operands whose Python type is
their kind (backplane.h, "Dtypes (promotion)")."""
import pickle

import numpy as np
import pytest

import backplane as bp
from conftest import require

HOST = ["cpu:0", "reference:0"]
NUMPY_SMALL = ["float16", "int8", "uint8", "int16"]


@pytest.fixture(params=HOST)
def host(request):
    return require(request.param)


def test_the_new_dtypes_are_exported():
    for name, size in [("float16", 2), ("bfloat16", 2), ("int8", 1), ("uint8", 1), ("int16", 2)]:
        d = getattr(bp, name)
        assert isinstance(d, bp.DType) and name in bp.__all__
        assert d.itemsize == size and bp.as_dtype(name) is d and d == name
    assert bp.as_dtype("half") is bp.float16
    assert bp.as_dtype(np.float16) is bp.float16 and bp.as_dtype("u1") is bp.uint8
    assert bp.as_dtype("f2") is bp.float16  # NumPy's code, never bfloat16
    assert bp.float16 == np.float16 and bp.int8 == np.dtype("int8")
    assert not bp.bfloat16.has_numpy and bp.float16.has_numpy


def test_bfloat16_has_no_numpy_dtype():
    with pytest.raises(TypeError, match="NumPy has no bfloat16"):
        bp.bfloat16.numpy


@pytest.mark.parametrize("dtype", NUMPY_SMALL)
def test_numpy_arrays_keep_their_small_dtype(host, dtype):
    info = np.finfo(dtype) if dtype == "float16" else np.iinfo(dtype)
    a = np.array([[info.min, 0], [1, info.max]], dtype=dtype)
    t = bp.tensor(a, device=host)
    assert t.dtype == dtype and t.dtype is bp.as_dtype(dtype)
    back = t.numpy()
    assert back.dtype == dtype
    np.testing.assert_array_equal(back, a)
    assert bp.from_numpy(a, device=host).dtype == dtype


@pytest.mark.parametrize("dtype", NUMPY_SMALL)
def test_numpy_reads_small_dtypes_without_copy(host, dtype):
    t = bp.tensor(np.arange(6, dtype=dtype).reshape(2, 3), device=host)
    a = np.from_dlpack(t)
    assert a.dtype == dtype and a.ctypes.data == bp._C.host_address(t)
    np.testing.assert_array_equal(a, np.arange(6, dtype=dtype).reshape(2, 3))


def test_float16_values_round_trip_exactly(host):
    special = np.array([0.0, -0.0, 6.1e-05, 6e-08, 65504.0, np.inf, -np.inf, np.nan],
                       dtype=np.float16)
    t = bp.tensor(special, device=host)
    np.testing.assert_array_equal(t.numpy().view(np.uint16), special.view(np.uint16))
    assert [type(v) for v in t.tolist()] == [float] * len(special)
    assert t[4].item() == 65504.0


def test_float16_from_python_rounds_and_overflows_to_infinity(host):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # infinity is the rule, not a warning
        t = bp.tensor([65519.0, 65520.0, -1e6, 0.1], dtype=bp.float16, device=host)
    assert t.tolist() == [65504.0, float("inf"), float("-inf"), 0.0999755859375]


def test_bfloat16_from_python_rounds_once_to_nearest_even(host):
    # 1 + 2^-8 is halfway between 1 and 1 + 2^-7: to even, 1. Just above it
    # (by 2^-40, which a float32 would drop) rounds up.
    values = [1.0, 1 + 2 ** -8, 1 + 2 ** -8 + 2 ** -40, 1 + 3 * 2 ** -8, -0.0, 3.5e38, 1e-40,
              float("inf")]
    t = bp.tensor(values, dtype=bp.bfloat16, device=host)
    assert t.dtype is bp.bfloat16 and t.shape == (8,)
    got = t.tolist()
    assert got[:4] == [1.0, 1.0, 1 + 2 ** -7, 1 + 2 ** -6]
    assert str(got[4]) == "-0.0"
    assert got[5] == float("inf")  # past bfloat16's largest finite value after rounding
    assert got[6] == 2.0 ** -133  # the smallest subnormal, kept
    assert got[7] == float("inf")
    assert bp.tensor(np.float32([0.1]), dtype="bfloat16", device=host).item() == 0.10009765625


def test_creation_converts_as_the_backends_do_not_as_numpy_casts(host):
    # plugin.h's COPY: truncate, saturate, NaN to 0 (NumPy would wrap 200.0
    # to -56 and refuse the NaN); an int64 rounds once to bfloat16 (through a
    # float64 it would lose the +1 and tie to 2^62).
    floats = [200.0, 1e10, -1.5, float("nan"), -300.0]
    assert bp.tensor(floats, dtype=bp.int8, device=host).tolist() == [127, 127, -1, 0, -128]
    assert bp.tensor(floats, dtype=bp.uint8, device=host).tolist() == [200, 255, 0, 0, 0]
    assert bp.tensor([2 ** 62 + 2 ** 54 + 1], dtype=bp.bfloat16, device=host).item() == 2.0 ** 62 + 2.0 ** 55
    assert bp.tensor(np.float64([70000.0]), dtype=bp.int16, device=host).item() == 32767


def test_bfloat16_reads_as_python_floats_and_refuses_numpy(host):
    t = bp.tensor([[0.5, -2.0], [3.0, 100.0]], dtype=bp.bfloat16, device=host)
    assert t.tolist() == [[0.5, -2.0], [3.0, 100.0]]
    assert isinstance(t[0, 0].item(), float) and t[1, 1].item() == 100.0
    with pytest.raises(TypeError, match=r"DLPack.*\.float\(\)"):
        t.numpy()
    with pytest.raises(TypeError):
        np.asarray(t)
    np.testing.assert_array_equal(np.asarray(t, dtype=np.float32), [[0.5, -2.0], [3.0, 100.0]])
    assert repr(t) == ("tensor([[  0.5,  -2. ],\n        [  3. , 100. ]], device='{}', "
                       "dtype=bfloat16)".format(host))
    assert float(bp.tensor([2.5], dtype=bp.bfloat16, device=host)) == 2.5


def test_small_dtypes_pickle_with_their_dtype(host):
    for dtype in ("bfloat16", "float16", "int8", "uint8", "int16"):
        t = bp.tensor([[1, 2], [3, 4]], dtype=dtype, device=host)
        back = pickle.loads(pickle.dumps(t))
        assert back.dtype == dtype and back.device is host and back.tolist() == t.tolist()


def test_asarray_returns_a_tensor_as_it_is():
    t = bp.tensor([1, 2], dtype=bp.int16, device="cpu")
    assert bp.asarray(t) is t and bp.asarray(t, dtype="int16", device="cpu:0") is t
    assert bp.asarray(np.int8([1, -1])).dtype == bp.int8
    assert bp.asarray([1.0, 2.0], dtype=bp.bfloat16).tolist() == [1.0, 2.0]


def test_pytorch_conversion_methods_of_the_small_dtypes(dev):
    x = bp.tensor([1.5, -2.5, 300.0], device=dev)
    assert x.half().dtype is bp.float16 and x.half().tolist() == [1.5, -2.5, 300.0]
    assert x.bfloat16().dtype is bp.bfloat16 and x.bfloat16().tolist() == [1.5, -2.5, 300.0]
    assert x.short().dtype is bp.int16 and x.short().tolist() == [1, -2, 300]
    assert x.char().dtype is bp.int8 and x.char().tolist() == [1, -2, 127]  # saturates
    assert x.byte().dtype is bp.uint8 and x.byte().tolist() == [1, 0, 255]
    assert x.bfloat16().float().dtype is bp.float32


# ---- scalar kinds ------------------------------------------------------------------


def test_an_int_scalar_keeps_an_integer_tensor_and_a_float_makes_float64(host):
    i = bp.tensor([1, 2, 3], dtype=bp.int32, device=host)
    assert (i * 2).dtype is bp.int32 and (i * 2).tolist() == [2, 4, 6]
    assert (i * 2.0).dtype is bp.float64 and (i * 2.0).tolist() == [2.0, 4.0, 6.0]
    assert (2.0 * i).dtype is bp.float64 and (10 - i).tolist() == [9, 8, 7]
    assert (i + np.int64(1)).dtype is bp.int32  # NumPy scalars by their type
    assert (i + np.float32(1)).dtype is bp.float64
    assert (i == 2.0).tolist() == [False, True, False]


def test_a_bool_scalar_keeps_every_dtype(host):
    flags = bp.tensor([True, False], device=host)
    assert (flags & True).dtype is bp.bool_ and (flags & True).tolist() == [True, False]
    assert (flags | np.True_).dtype is bp.bool_
    assert (flags * 3).dtype is bp.int64 and (flags * 3).tolist() == [3, 0]
    i8 = bp.tensor([1, 2], dtype=bp.int8, device=host)
    assert (i8 * True).dtype is bp.int8


def test_an_int_scalar_the_dtype_cannot_hold_raises(host):
    i8 = bp.tensor([100, -100], dtype=bp.int8, device=host)
    assert (i8 + 27).dtype is bp.int8 and (i8 + 27).tolist() == [127, -73]
    with pytest.raises(ValueError, match="300"):
        i8 + 300
    with pytest.raises(bp.InvalidArgumentError):
        bp.tensor([1], dtype=bp.uint8, device=host) - 256
    with pytest.raises(ValueError):
        bp.tensor([1], dtype=bp.int64, device=host) + 2 ** 1000  # more than a double holds
    assert (i8 + 300.0).dtype is bp.float64  # a float scalar is never refused


def test_fills_refuse_an_int_the_integer_dtype_cannot_hold(host):
    # As an operand's INT scalar: refused, never saturated to the limit.
    i8 = bp.zeros(2, dtype=bp.int8, device=host)
    for fill in (lambda: bp.full((2,), 300, dtype=bp.int8, device=host),
                 lambda: bp.full_like(i8, -129),
                 lambda: i8.fill_(1000),
                 lambda: i8.__setitem__(0, 300),
                 lambda: bp.zeros(1, dtype=bp.uint8, device=host).__setitem__(0, -1)):
        with pytest.raises(bp.InvalidArgumentError, match="does not fit"):
            fill()
    assert i8.tolist() == [0, 0]
    assert bp.full((2,), 127, dtype=bp.int8, device=host).tolist() == [127, 127]
    assert bp.full((1,), np.int16(-32768), dtype=bp.int16, device=host).tolist() == [-32768]
    i8[1] = -128
    assert i8.tolist() == [0, -128]
    # A float converts by the conversion rules: truncated, saturated.
    assert bp.full((1,), 300.5, dtype=bp.int8, device=host).tolist() == [127]
    assert i8.fill_(True).tolist() == [1, 1]


def test_a_misspelt_dtype_in_to_is_named_as_neither_device_nor_dtype(host):
    t = bp.tensor([1.0], device=host)
    with pytest.raises(bp.UnknownDeviceError, match="nor is 'bfloat17' a dtype .*bfloat16"):
        t.to("bfloat17")
    with pytest.raises(bp.UnknownDeviceError) as caught:
        t.to(device="bfloat17")
    assert "dtype" not in str(caught.value)


def test_half_tensors_stay_half_with_float_and_int_scalars(host):
    for dtype in (bp.bfloat16, bp.float16):
        x = bp.tensor([2.0, -6.0], dtype=dtype, device=host)
        assert (x * 0.5).dtype is dtype and (x * 0.5).tolist() == [1.0, -3.0]
        assert (x + 1).dtype is dtype and (x + 1).tolist() == [3.0, -5.0]
        assert (1.0 - x).tolist() == [-1.0, 7.0]
        assert (x > 0).tolist() == [True, False]


def test_out_forms_pass_the_kind_too(host):
    i = bp.tensor([1, 2], dtype=bp.int16, device=host)
    out = bp.empty(2, dtype=bp.int16, device=host)
    assert bp.add(i, 3, out=out) is out and out.tolist() == [4, 5]
    with pytest.raises(ValueError):
        bp.add(i, 40000, out=out)


def test_where_takes_its_scalars_by_kind_too(host):
    i8 = bp.tensor([1, -2], dtype=bp.int8, device=host)
    mask = bp.tensor([True, False], device=host)
    assert bp.where(mask, i8, 0).dtype is bp.int8
    assert bp.where(mask, i8, 0).tolist() == [1, 0]
    assert bp.where(mask, i8, 0.0).dtype is bp.float64  # a float: float64, whatever its value
    assert bp.where(mask, 7, i8).tolist() == [7, -2]
    with pytest.raises(bp.InvalidArgumentError, match="300"):
        bp.where(mask, i8, 300)
    b = bp.tensor([0.5, 1.5], dtype=bp.bfloat16, device=host)
    assert bp.where(mask, b, 2).dtype is bp.bfloat16 and bp.where(mask, b, 2).tolist() == [0.5, 2.0]
    assert bp.where(mask, mask, 1).dtype is bp.int64
    assert bp.where(mask, mask, False).dtype is bp.bool_
