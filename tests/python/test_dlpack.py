"""DLPack both ways: NumPy reads host tensors without a copy; bp.from_dlpack
adopts foreign host memory without one (test_dlpack_adopt.py has more)."""
import gc

import numpy as np
import pytest

import backplane as bp
from conftest import require

HOST = ["cpu:0", "reference:0"]
NUMPY_DLPACK_DTYPES = ["float32", "float64", "int32", "int64"]  # NumPy 1.24: no bool


@pytest.fixture(params=HOST)
def host(request):
    return require(request.param)


@pytest.mark.parametrize("dtype", NUMPY_DLPACK_DTYPES)
def test_numpy_reads_without_copy(host, dtype):
    t = bp.arange(12, dtype=dtype, device=host).reshape(3, 4)
    assert t.__dlpack_device__() == (1, 0)
    a = np.from_dlpack(t)
    assert a.dtype == dtype and a.shape == (3, 4)
    np.testing.assert_array_equal(a, np.arange(12).reshape(3, 4).astype(dtype))
    t[1, 2] = 100  # written through the tensor, seen by NumPy: same memory
    assert a[1, 2] == 100
    assert not a.flags.writeable  # NumPy 1.24 makes DLPack imports read-only
    assert a.ctypes.data == bp._C.host_address(t)


def test_views_keep_strides(host):
    t = bp.arange(20, dtype="float32", device=host).reshape(4, 5)
    v = t.T[1:, ::2]
    a = np.from_dlpack(v)
    np.testing.assert_array_equal(a, np.arange(20, dtype=np.float32).reshape(4, 5).T[1:, ::2])
    assert not a.flags.c_contiguous


def test_capsule_keeps_the_tensor_alive(host):
    gc.collect()
    base = bp.live_tensor_count()
    t = bp.full((1000,), 3.0, device=host)
    a = np.from_dlpack(t)
    del t
    gc.collect()
    assert bp.live_tensor_count() == base + 1  # held by the capsule NumPy keeps
    assert a.sum() == 3000.0
    del a
    gc.collect()
    assert bp.live_tensor_count() == base


def test_unconsumed_capsule_releases(host):
    gc.collect()
    base = bp.live_tensor_count()
    t = bp.ones(4, device=host)
    cap = t.__dlpack__()
    del t
    assert bp.live_tensor_count() == base + 1
    del cap
    gc.collect()
    assert bp.live_tensor_count() == base


def test_waits_for_pending_work(host):
    x = bp.random.uniform((256, 256), device=host, seed=1)
    y = x @ x
    a = np.from_dlpack(y)
    np.testing.assert_allclose(a, x.numpy() @ x.numpy(), rtol=1e-4)


@pytest.mark.parametrize("dtype", NUMPY_DLPACK_DTYPES)
def test_from_numpy_via_dlpack(dtype):
    a = np.arange(12).reshape(3, 4).astype(dtype)
    t = bp.from_dlpack(a)
    assert t.device is bp.cpu() and t.dtype == dtype
    np.testing.assert_array_equal(t.numpy(), a)
    a[0, 0] = 99  # the same memory: the tensor sees the write
    assert t[0, 0].item() == 99


def test_from_dlpack_strided_and_device():
    a = np.arange(30, dtype=np.float64).reshape(5, 6)[::2, 1::3]
    t = bp.from_dlpack(a)
    np.testing.assert_array_equal(t.numpy(), a)
    r = bp.from_dlpack(a, device="reference:0")
    assert r.device.name == "reference:0"
    np.testing.assert_array_equal(r.numpy(), a)


def test_from_dlpack_of_a_read_only_array():
    t = bp.arange(4, dtype="float64", device="cpu")
    a = np.from_dlpack(t)  # NumPy marks DLPack imports read-only ...
    assert not a.flags.writeable
    back = bp.from_dlpack(a)  # ... and will not export them: we copy through the buffer
    assert back.tolist() == [0.0, 1.0, 2.0, 3.0] and back._handle != t._handle


def test_from_dlpack_of_a_tensor_is_itself():
    t = bp.ones(3, device="cpu")
    assert bp.from_dlpack(t) is t
    assert bp.from_dlpack(t, device="cpu") is t


def test_bool_through_a_capsule(host):
    # NumPy 1.24 has no bool in DLPack; our own consumer does (kDLBool).
    t = bp.tensor([True, False, True], device=host)
    back = bp.from_dlpack(t.__dlpack__())
    assert back.dtype == bp.bool_ and back.tolist() == [True, False, True]


def test_capsule_round_trip_through_from_dlpack(host):
    t = bp.arange(6, dtype="int32", device=host).reshape(2, 3)
    back = bp.from_dlpack(t.T.__dlpack__())
    np.testing.assert_array_equal(back.numpy(), np.arange(6, dtype=np.int32).reshape(2, 3).T)


def test_unsupported_numpy_dtype():
    with pytest.raises(TypeError):
        bp.from_dlpack(np.zeros(3, dtype=np.uint16))


def test_device_tensor_refuses_dlpack():
    d = require("opencl:0")
    t = bp.ones(3, device=d)
    assert t.__dlpack_device__() == (4, 0)
    with pytest.raises(BufferError) as e:
        t.__dlpack__()
    assert "opencl:0" in str(e.value)
    with pytest.raises(BufferError):
        np.from_dlpack(t)
    np.testing.assert_array_equal(np.from_dlpack(t.to(bp.cpu())), np.ones(3))
