"""bp.from_dlpack adopts foreign host memory without a copy (bp_wrap_host):
the tensor reads and writes the producer's memory, and the producer's deleter
runs exactly once, after the last view is gone. A producer written here with
ctypes shows what NumPy and PyTorch never hand out (a byte_offset, negative
strides, misaligned data) and counts its deleter's calls."""
import ctypes
import gc
import sys
import threading
import textwrap

import numpy as np
import pytest

import backplane as bp
from conftest import require, run_python

HOST = ["cpu:0", "reference:0"]


@pytest.fixture(params=HOST)
def host(request):
    return require(request.param)


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", DELETER)]

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_capsule_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_is_valid.restype = ctypes.c_int
_capsule_is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]

kDLFloat, kDLBfloat = 2, 4


class Producer:
    """One DLPack tensor over `memory` (a NumPy array holding the bytes):
    `data` is the array's address plus `skew` bytes, `byte_offset` is added by
    the consumer. `deleted` counts the deleter's calls."""

    def __init__(self, memory, code, bits, shape, strides=None, byte_offset=0, skew=0):
        self.memory = memory
        self.deleted = 0
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.strides = (ctypes.c_int64 * len(shape))(*strides) if strides is not None else None
        self.deleter = DELETER(self._delete)
        m = self.managed = DLManagedTensor()
        m.dl_tensor.data = memory.ctypes.data + skew
        m.dl_tensor.device = DLDevice(1, 0)
        m.dl_tensor.ndim = len(shape)
        m.dl_tensor.dtype = DLDataType(code, bits, 1)
        m.dl_tensor.shape = self.shape
        if self.strides is not None:
            m.dl_tensor.strides = self.strides
        m.dl_tensor.byte_offset = byte_offset
        m.deleter = self.deleter
        self.capsule = _capsule_new(ctypes.addressof(m), b"dltensor", None)

    def _delete(self, managed):
        assert ctypes.addressof(managed.contents) == ctypes.addressof(self.managed)
        self.deleted += 1


def _settle():
    # The deleter runs in a pending call of the main thread: give it a turn.
    gc.collect()
    sum(range(10))


def test_byte_offset_is_added_to_the_data(host):
    a = np.arange(16, dtype=np.float32)
    prod = Producer(a, kDLFloat, 32, (2, 3), byte_offset=4 * 4)
    t = bp.from_dlpack(prod.capsule, device=host)
    assert bp._C.host_address(t) == a.ctypes.data + 16
    assert t.tolist() == [[4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]
    assert _capsule_is_valid(prod.capsule, b"used_dltensor")
    t[0, 0] = -1.0
    t.wait()
    assert a[4] == -1.0
    assert prod.deleted == 0


def test_the_deleter_runs_once_after_the_last_view(host):
    a = np.arange(12, dtype=np.uint16)  # bfloat16 bits
    prod = Producer(a, kDLBfloat, 16, (3, 4))
    t = bp.from_dlpack(prod.capsule, device=host)
    view = t.T[1:]
    del t
    _settle()
    assert prod.deleted == 0  # the view still reads the memory
    assert view.dtype is bp.bfloat16 and view.shape == (3, 3)
    del view
    _settle()
    assert prod.deleted == 1
    _settle()
    assert prod.deleted == 1


def test_strided_memory_is_adopted_with_its_strides(host):
    a = np.arange(24, dtype=np.float32)
    prod = Producer(a, kDLFloat, 32, (3, 2), strides=(1, 8), byte_offset=4)
    t = bp.from_dlpack(prod.capsule, device=host)
    assert t.strides == (1, 8) and bp._C.host_address(t) == a.ctypes.data + 4
    assert t.tolist() == [[1.0, 9.0], [2.0, 10.0], [3.0, 11.0]]
    del t
    _settle()
    assert prod.deleted == 1


def test_negative_strides_are_copied(host):
    a = np.arange(6, dtype=np.float32)
    prod = Producer(a, kDLFloat, 32, (3,), strides=(-2,), byte_offset=4 * 4)
    t = bp.from_dlpack(prod.capsule, device=host)
    assert t.tolist() == [4.0, 2.0, 0.0]
    assert prod.deleted == 1  # a copy: the producer's memory is free at once
    a[4] = 100
    assert t[0].item() == 4.0


def test_misaligned_data_is_copied(host):
    a = np.zeros(9, dtype=np.float32)
    a.view(np.uint8)[1:9] = np.array([1.5, 2.5], dtype=np.float32).view(np.uint8)
    prod = Producer(a, kDLFloat, 32, (2,), skew=1)
    t = bp.from_dlpack(prod.capsule, device=host)
    assert t.tolist() == [1.5, 2.5] and prod.deleted == 1


def test_an_unsupported_dtype_still_consumes_the_capsule():
    a = np.zeros(4, dtype=np.float32)
    prod = Producer(a, kDLFloat, 24, (1,))
    with pytest.raises(TypeError):
        bp.from_dlpack(prod.capsule)
    assert prod.deleted == 1 and _capsule_is_valid(prod.capsule, b"used_dltensor")


def test_a_used_capsule_is_refused():
    a = np.zeros(4, dtype=np.float32)
    prod = Producer(a, kDLFloat, 32, (4,))
    t = bp.from_dlpack(prod.capsule)
    with pytest.raises(ValueError):
        bp.from_dlpack(prod.capsule)
    assert t.tolist() == [0.0] * 4


def test_numpy_float16_comes_in_without_copy(host):
    a = np.array([[0.5, -1.0], [65504.0, 2.0 ** -24]], dtype=np.float16)
    held = sys.getrefcount(a)
    t = bp.from_dlpack(a, device=host)
    assert t.dtype is bp.float16 and t.device is host
    assert bp._C.host_address(t) == a.ctypes.data
    assert sys.getrefcount(a) == held + 1  # the capsule's reference, now Backplane's
    a[0, 0] = 3.0
    assert t[0, 0].item() == 3.0
    t[1, 0] = -7.0
    t.wait()
    assert a[1, 0] == -7.0
    del t
    _settle()
    assert sys.getrefcount(a) == held


def test_numpy_slices_come_in_without_copy(host):
    a = np.arange(30, dtype=np.float64).reshape(5, 6)
    v = a[1::2, 2::3]
    t = bp.from_dlpack(v, device=host)
    assert bp._C.host_address(t) == v.ctypes.data and t.strides == (12, 3)
    np.testing.assert_array_equal(t.numpy(), v)


def test_numpy_memory_on_a_device_without_host_memory_is_copied():
    d = require("opencl:0")
    a = np.array([1.0, 2.0], dtype=np.float16)
    held = sys.getrefcount(a)
    t = bp.from_dlpack(a, device=d)
    assert t.device is d and t.tolist() == [1.0, 2.0]
    assert sys.getrefcount(a) == held  # copied and let go at once
    a[0] = 9
    assert t[0].item() == 1.0


def test_a_tensor_dropped_in_another_thread_frees_the_memory():
    a = np.ones(1000, dtype=np.float16)
    held = sys.getrefcount(a)
    made = []

    def work():
        t = bp.from_dlpack(a)
        made.append((t + 1).sum().item())
        del t

    threads = [threading.Thread(target=work) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    _settle()
    assert made == [2000.0] * 4
    assert sys.getrefcount(a) == held


def test_memory_still_adopted_at_exit_does_not_crash_the_interpreter():
    # The deleters would need the interpreter being torn down: the memory is
    # leaked instead, and the process exits cleanly.
    code = textwrap.dedent("""
        import numpy as np
        import backplane as bp
        a = np.arange(100, dtype=np.float16)
        kept = [bp.from_dlpack(a), bp.from_dlpack(a[1::2])]
        pending = bp.from_dlpack(np.ones(10, dtype=np.float32))
        pending = pending * 2  # the adopted tensor is dropped with work recorded on it
        print(kept[1][0].item(), pending.sum().item())
    """)
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["1.0", "20.0"]
