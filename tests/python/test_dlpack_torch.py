"""DLPack with PyTorch in every dtype the two share, the dtypes of 1.4
included (kDLFloat 16 bits is float16, kDLBfloat 16 bits bfloat16, kDLInt 8
and 16, kDLUInt 8), without a copy either way on host devices: PyTorch reads
host tensors in place; memory a tensor lent comes back to Backplane as that
tensor; other PyTorch memory is adopted (bp_wrap_host) and stays PyTorch's
until Backplane lets go. Devices whose memory is not host memory get a copy."""
import gc
import sys

import numpy as np
import pytest

import backplane as bp
from conftest import require

torch = pytest.importorskip("torch")
from torch.utils import dlpack as torch_dlpack  # noqa: E402

HOST = ["cpu:0", "reference:0"]
# bool: PyTorch 1.13 has no kDLBool.
SHARED = ["float32", "float64", "int32", "int64", "float16", "bfloat16", "int8", "uint8",
          "int16"]


@pytest.fixture(params=HOST)
def host(request):
    return require(request.param)


def _values(dtype):
    return [[0, 1, 2], [3, 4, -5 if dtype != "uint8" else 250]]


@pytest.mark.parametrize("dtype", SHARED)
def test_torch_reads_a_tensor_without_copy(host, dtype):
    t = bp.tensor(_values(dtype), dtype=dtype, device=host)
    p = torch_dlpack.from_dlpack(t)
    assert p.dtype == getattr(torch, dtype) and tuple(p.shape) == (2, 3)
    assert p.data_ptr() == bp._C.host_address(t)
    assert p.tolist() == t.tolist()
    p[1, 2] = 7  # written through PyTorch, read through Backplane: one memory
    assert t[1, 2].item() == 7


@pytest.mark.parametrize("dtype", SHARED)
def test_torch_memory_comes_in_without_copy(host, dtype):
    p = torch.tensor(_values(dtype), dtype=getattr(torch, dtype))
    t = bp.from_dlpack(torch_dlpack.to_dlpack(p), device=host)
    assert t.dtype == dtype and t.device is host and t.tolist() == p.tolist()
    assert bp._C.host_address(t) == p.data_ptr()
    p[0, 0] = 9  # written by PyTorch, read by Backplane
    assert t[0, 0].item() == 9
    t[1, 0] = 6  # written by Backplane, read by PyTorch once the tensor is ready
    t.wait()
    assert p[1, 0].item() == 6
    # The producer object itself (__dlpack__), on cpu:0 by default.
    u = bp.from_dlpack(p)
    assert u.device is bp.cpu() and bp._C.host_address(u) == p.data_ptr()


def test_bfloat16_goes_to_backplane_and_back_without_copy():
    p = torch.tensor([1.5, -2.0, 3.25, 0.0], dtype=torch.bfloat16)
    t = bp.from_dlpack(p)
    assert t.dtype is bp.bfloat16 and bp._C.host_address(t) == p.data_ptr()
    bp.add(t, t, out=t)  # an operator writing into PyTorch's memory
    t.wait()
    assert p.tolist() == [3.0, -4.0, 6.5, 0.0]
    p.mul_(-1)
    assert t.tolist() == [-3.0, 4.0, -6.5, -0.0]
    back = torch_dlpack.from_dlpack(t)
    assert back.data_ptr() == p.data_ptr() and back.dtype == torch.bfloat16
    back[3] = 8
    assert p[3].item() == 8 and t[3].item() == 8


def test_torch_views_come_in_with_their_strides():
    p = torch.arange(20, dtype=torch.bfloat16).reshape(4, 5).t()[1:, ::2]
    t = bp.from_dlpack(p)
    assert t.dtype is bp.bfloat16 and t.tolist() == p.tolist()
    assert t.strides == p.stride() and not t.is_contiguous()
    assert bp._C.host_address(t) == p.data_ptr()  # the slice starts 5 elements in
    p.fill_(7)
    assert t.tolist() == [[7.0, 7.0]] * 4


def test_a_row_slice_comes_in_at_its_offset():
    base = torch.arange(12, dtype=torch.float16).reshape(3, 4)
    p = base[1:]
    t = bp.from_dlpack(p)
    assert bp._C.host_address(t) == base.data_ptr() + 4 * 2
    assert t.tolist() == [[4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]


def test_torch_may_let_go_first():
    p = torch.arange(4096, dtype=torch.bfloat16)
    expected = p.tolist()
    t = bp.from_dlpack(p)
    del p
    gc.collect()
    # Memory freed too early would be handed out again and overwritten here.
    junk = [torch.full((4096,), -1.0, dtype=torch.bfloat16) for _ in range(8)]
    assert t.tolist() == expected
    del junk


def test_torch_storage_lives_as_long_as_the_tensor():
    # PyTorch's storage over a NumPy array holds a reference to it: the
    # array's count says whether the storage still lives.
    a = np.arange(64, dtype=np.int16)
    p = torch.from_numpy(a).view(torch.bfloat16)
    held = sys.getrefcount(a)
    t = bp.from_dlpack(p)
    del p
    gc.collect()
    assert sys.getrefcount(a) == held  # Backplane keeps PyTorch's storage
    assert bp._C.host_address(t) == a.ctypes.data
    del t
    gc.collect()
    assert sys.getrefcount(a) == held - 1


def test_a_device_without_host_memory_gets_a_copy():
    d = require("opencl:0")
    p = torch.tensor([1.0, 2.0, 3.0], dtype=torch.bfloat16)
    t = bp.from_dlpack(p, device=d)
    assert t.device is d and t.dtype is bp.bfloat16 and t.tolist() == [1.0, 2.0, 3.0]
    p[0] = 5  # a copy: the tensor keeps its value
    assert t[0].item() == 1.0


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "int8"])
def test_a_lent_tensor_comes_back_from_torch_without_copy(host, dtype):
    # Backplane -> PyTorch -> Backplane: the same memory both ways, and the
    # same tensor at the end.
    t = bp.tensor([[1, 2], [3, 4]], dtype=dtype, device=host)
    p = torch_dlpack.from_dlpack(t)
    back = bp.from_dlpack(torch_dlpack.to_dlpack(p))
    assert p.data_ptr() == bp._C.host_address(t) == bp._C.host_address(back)
    assert back._handle == t._handle and back.device is host
    p[0, 1] = 5
    assert back[0, 1].item() == 5
    again = torch_dlpack.from_dlpack(back)
    assert again.data_ptr() == p.data_ptr()


def test_a_lent_view_comes_back_as_the_view():
    t = bp.arange(12, dtype="bfloat16", device="cpu").reshape(3, 4).T
    p = torch_dlpack.from_dlpack(t)
    assert p.stride() == t.strides
    back = bp.from_dlpack(p)
    assert back._handle == t._handle
    # A different view of the same memory (PyTorch's own slice) is adopted
    # as PyTorch's memory: a tensor of its own over the same elements.
    part = bp.from_dlpack(p[1:])
    assert part._handle != t._handle and part.tolist() == t[1:].tolist()
    assert bp._C.host_address(part) == bp._C.host_address(t[1:])


def test_a_lent_tensor_asked_for_on_another_host_device_is_adopted_there():
    t = bp.tensor([1.0, 2.0], dtype="bfloat16", device="cpu")
    p = torch_dlpack.from_dlpack(t)
    r = bp.from_dlpack(p, device=require("reference:0"))
    assert r.device.name == "reference:0" and r.tolist() == [1.0, 2.0]
    assert bp._C.host_address(r) == bp._C.host_address(t)


def test_lending_to_torch_keeps_the_tensor_alive_until_torch_lets_go():
    gc.collect()
    base = bp.live_tensor_count()
    t = bp.tensor([1.5, 2.5], dtype="bfloat16", device="cpu")
    p = torch_dlpack.from_dlpack(t)
    del t
    gc.collect()
    assert bp.live_tensor_count() == base + 1
    assert p.tolist() == [1.5, 2.5]
    del p
    gc.collect()
    assert bp.live_tensor_count() == base


def test_float16_goes_to_numpy_and_torch_alike(host):
    t = bp.tensor(np.array([0.1, 65504.0, -np.inf], dtype=np.float16), device=host)
    p = torch_dlpack.from_dlpack(t)
    np.testing.assert_array_equal(p.numpy().view(np.uint16), np.from_dlpack(t).view(np.uint16))


def test_torch_dtypes_name_backplane_dtypes():
    assert bp.bfloat16 == torch.bfloat16 and bp.float16 == torch.float16
    assert bp.as_dtype(torch.int8) is bp.int8 and bp.as_dtype(torch.uint8) is bp.uint8
    assert bp.float32 != torch.float16
    t = bp.tensor([1.0, 2.0], device="cpu").to(torch.bfloat16)
    assert t.dtype is bp.bfloat16 and t.tolist() == [1.0, 2.0]


def test_from_dlpack_converts_to_the_dtype_asked_for():
    src = torch.tensor([1.5, -2.25], dtype=torch.bfloat16)
    t = bp.from_dlpack(src, dtype=bp.float32)
    assert t.dtype is bp.float32 and t.tolist() == [1.5, -2.25]
    same = bp.from_dlpack(src, dtype=bp.bfloat16)
    assert same.dtype is bp.bfloat16
    same[0] = 4.0
    same.wait()
    assert src[0].item() == 4.0  # no conversion asked for in effect: still shared
