"""DLPack with PyTorch in every dtype the two share, the dtypes of 1.4
included (kDLFloat 16 bits is float16, kDLBfloat 16 bits bfloat16, kDLInt 8
and 16, kDLUInt 8): PyTorch reads host tensors without a copy; memory a
tensor lent comes back to Backplane as that tensor; other PyTorch memory is
copied in (the C API cannot adopt memory it did not allocate)."""
import gc

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
def test_torch_memory_is_copied_in_with_its_dtype(dtype):
    p = torch.tensor(_values(dtype), dtype=getattr(torch, dtype))
    t = bp.from_dlpack(torch_dlpack.to_dlpack(p))
    assert t.dtype == dtype and t.device is bp.cpu() and t.tolist() == p.tolist()
    assert bp.from_dlpack(p).tolist() == p.tolist()  # the producer object itself (__dlpack__)
    p[0, 0] = 9  # a copy: the tensor keeps its value
    assert t[0, 0].item() == 0


def test_torch_views_keep_their_strides():
    p = torch.arange(20, dtype=torch.bfloat16).reshape(4, 5).t()[1:, ::2]
    t = bp.from_dlpack(p)
    assert t.dtype is bp.bfloat16 and t.tolist() == p.tolist()


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
    # A different view of the same memory (PyTorch's own slice) is copied.
    part = bp.from_dlpack(p[1:])
    assert part._handle != t._handle and part.tolist() == t[1:].tolist()


def test_a_lent_tensor_asked_for_on_another_device_is_copied():
    t = bp.tensor([1.0, 2.0], dtype="bfloat16", device="cpu")
    p = torch_dlpack.from_dlpack(t)
    r = bp.from_dlpack(p, device=require("reference:0"))
    assert r.device.name == "reference:0" and r.tolist() == [1.0, 2.0]


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
