"""ONNX element types against Backplane dtypes, and moving arrays between
NumPy and a device. bfloat16 arrays are ml_dtypes' (what onnx's
numpy_helper gives); they travel as their 16-bit patterns."""
import numpy as np
from onnx import TensorProto, helper

from .. import _C
from .._dtype import as_dtype

# ONNX TensorProto.DataType -> Backplane dtype name: the types both have.
_TO_BP = {
    TensorProto.FLOAT: "float32", TensorProto.DOUBLE: "float64",
    TensorProto.FLOAT16: "float16", TensorProto.BFLOAT16: "bfloat16",
    TensorProto.INT8: "int8", TensorProto.UINT8: "uint8", TensorProto.INT16: "int16",
    TensorProto.INT32: "int32", TensorProto.INT64: "int64", TensorProto.BOOL: "bool",
}
_FROM_BP = {name: t for t, name in _TO_BP.items()}


def bp_dtype(elem_type):
    """The Backplane DType of an ONNX element type, or None when Backplane
    has no such dtype (uint16, uint32, uint64, strings, complex, float8...)."""
    name = _TO_BP.get(elem_type)
    return None if name is None else as_dtype(name)


def onnx_elem_type(dtype):
    """The ONNX element type of a Backplane dtype (or its name)."""
    return _FROM_BP[str(dtype)]


def type_name(elem_type):
    """The name messages use for an ONNX element type: Backplane's where it
    has the type, else ONNX's own in lower case ("uint16", "string")."""
    name = _TO_BP.get(elem_type)
    if name is not None:
        return name
    try:
        return TensorProto.DataType.Name(elem_type).lower()
    except ValueError:
        return "element type {}".format(elem_type)


def numpy_dtype(dtype):
    """The NumPy dtype holding a Backplane dtype's values (ml_dtypes'
    bfloat16 for bfloat16)."""
    return np.dtype(helper.tensor_dtype_to_np_dtype(_FROM_BP[str(dtype)]))


def to_device(arr, device):
    """A new tensor on device holding a copy of the NumPy array arr (its
    dtype kept; bfloat16 by its bit patterns, never through a float)."""
    if not arr.flags.c_contiguous:  # (np.ascontiguousarray would make a 0-d array 1-d)
        arr = arr.copy(order="C")
    name = "bool" if arr.dtype == np.bool_ else arr.dtype.name
    dt = as_dtype(name)
    data = arr.view(np.uint16) if name == "bfloat16" else arr
    return _C.from_buffer(device.id, dt.code, arr.shape, data)


def to_host(t):
    """A NumPy copy of tensor t in the dtype ONNX gives it (bfloat16 as
    ml_dtypes' bfloat16, exactly)."""
    if str(t.dtype) == "bfloat16":
        bits = np.empty(t.shape, dtype=np.uint16)
        _C.to_buffer(t, bits)
        return bits.view(numpy_dtype("bfloat16"))
    return t.numpy()
