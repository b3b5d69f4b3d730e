"""bp.from_numpy shares the array's memory (bp_wrap_host) and says why when it
cannot; host tensors go to NumPy and PyTorch by np.asarray, t.numpy() and
DLPack."""
import gc

import numpy as np
import pytest

import backplane as bp
from conftest import require

DTYPES = ["float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8", "bool"]


@pytest.fixture(params=["cpu:0", "reference:0"])
def host(request):
    return require(request.param)


@pytest.mark.parametrize("dtype", DTYPES)
def test_shares_memory_both_ways(host, dtype):
    a = np.arange(12).reshape(3, 4).astype(dtype)
    t = bp.from_numpy(a, device=host)
    assert t.device == host and t.dtype == dtype and t.shape == (3, 4)
    assert bp._C.host_address(t) == a.ctypes.data  # no copy
    a[0, 1] = 0
    assert t[0, 1].item() == 0
    t[2, 3] = 1
    t.wait()
    assert a[2, 3] == 1


def test_lands_on_cpu_whatever_the_default_device():
    require("reference:0")
    a = np.ones(3, dtype=np.float32)
    with bp.default_device("reference:0"):
        assert bp.from_numpy(a).device is bp.cpu()  # PyTorch: from_numpy is a CPU tensor


def test_in_place_operators_write_the_array():
    a = np.array([1.0, 2.0, 3.0])
    t = bp.from_numpy(a)
    t += 1.0
    t.mul_(bp.tensor([2.0, 2.0, 2.0], dtype="float64", device="cpu")).wait()
    np.testing.assert_array_equal(a, [4.0, 6.0, 8.0])


def test_keeps_strides_of_a_non_contiguous_array():
    base = np.arange(30, dtype=np.float32).reshape(5, 6)
    a = base[::2, 1::2]
    t = bp.from_numpy(a)
    assert not t.is_contiguous() and t.strides == (12, 2)
    np.testing.assert_array_equal(t.numpy(), a)
    t.fill_(-1)
    t.wait()
    assert (base[::2, 1::2] == -1).all() and base[1, 1] == 7


def test_keeps_the_array_alive():
    a = np.arange(1000, dtype=np.float64)
    t = bp.from_numpy(a)
    del a
    gc.collect()
    np.testing.assert_array_equal(t.numpy(), np.arange(1000, dtype=np.float64))
    view = t[10:20]
    del t
    gc.collect()
    assert view.tolist() == list(map(float, range(10, 20)))


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "complex64", "float128"])
def test_an_unsupported_dtype_is_refused(dtype):
    with pytest.raises(bp.DtypeError, match=dtype):
        bp.from_numpy(np.zeros(2, dtype=dtype))


def test_layouts_that_cannot_be_shared_are_refused():
    reversed_ = np.arange(4, dtype=np.float32)[::-1]
    with pytest.raises(ValueError, match="negative stride.*bp.tensor"):
        bp.from_numpy(reversed_)
    misaligned = np.zeros(17, dtype=np.uint8)[1:].view(np.float32)
    with pytest.raises(ValueError, match="not aligned"):
        bp.from_numpy(misaligned)
    read_only = np.ones(3)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        bp.from_numpy(read_only)
    with pytest.raises(TypeError, match="NumPy array"):
        bp.from_numpy([1.0, 2.0])


def test_a_device_without_host_memory_is_refused():
    dev = require("opencl:0")
    with pytest.raises(bp.UnsupportedError, match="opencl:0 cannot share host memory.*bp.tensor"):
        bp.from_numpy(np.ones(3, dtype=np.float32), device=dev)


def test_numpy_reads_host_tensors(host):
    t = bp.tensor([[1.5, 2.0], [3.0, -4.0]], device=host)
    a = np.asarray(t)
    np.testing.assert_array_equal(a, [[1.5, 2.0], [3.0, -4.0]])
    assert a.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(t, dtype=np.float64), a)


def test_pytorch_reads_host_tensors(host):
    torch = pytest.importorskip("torch")
    t = bp.tensor([[1.5, 2.0], [3.0, -4.0]], device=host)
    want = torch.tensor([[1.5, 2.0], [3.0, -4.0]])
    assert torch.equal(torch.tensor(np.asarray(t)), want)
    assert torch.equal(torch.as_tensor(t.numpy()), want)
    shared = torch.from_dlpack(t)  # no copy
    assert torch.equal(shared, want) and shared.data_ptr() == bp._C.host_address(t)


def test_pytorch_builds_tensors_of_host_tensors(host):
    torch = pytest.importorskip("torch")

    class DLPackOnly:  # what torch.tensor would need to take a backplane tensor
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__()

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    t = bp.tensor([1.0, 2.0], device=host)
    try:
        torch.tensor(DLPackOnly(t))
    except (RuntimeError, TypeError) as e:
        pytest.skip("PyTorch {} builds tensors only of its own tensors, ndarrays and sequences of "
                    "numbers, not of DLPack or __array__ objects ({}); bindings/python/README.md "
                    "gives the spellings that work".format(torch.__version__, e))
    assert torch.equal(torch.tensor(t), torch.tensor([1.0, 2.0]))
    assert torch.equal(torch.as_tensor(t), torch.tensor([1.0, 2.0]))
