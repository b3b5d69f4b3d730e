"""A float32 model rewritten to compute in float16 or bfloat16: what
`python -m backplane.onnx --dtype` and the bfloat16 figure run."""
import onnx
from onnx import AttributeProto, TensorProto, numpy_helper

from . import _dtypes


def _tensor(t, np_dtype):
    if t.data_type != TensorProto.FLOAT:
        return t
    return numpy_helper.from_array(numpy_helper.to_array(t).astype(np_dtype), t.name)


def convert_float_model(model, dtype):
    """A copy of model in which every float32 value is `dtype` ("float16" or
    "bfloat16"): initialisers and constants converted once (rounded to
    nearest), the graph's inputs, outputs and Cast targets retyped. Shapes
    and types inside are inferred again at prepare time. Subgraphs (If,
    Loop) are left as they are."""
    elem = _dtypes.onnx_elem_type(dtype)
    np_dtype = _dtypes.numpy_dtype(dtype)
    if elem not in (TensorProto.FLOAT16, TensorProto.BFLOAT16):
        raise ValueError("convert_float_model: dtype must be float16 or bfloat16, not "
                         + str(dtype))
    out = onnx.ModelProto()
    out.CopyFrom(model)
    graph = out.graph
    converted = [_tensor(t, np_dtype) for t in graph.initializer]
    del graph.initializer[:]
    graph.initializer.extend(converted)
    del graph.value_info[:]
    for vi in list(graph.input) + list(graph.output):
        if vi.type.tensor_type.elem_type == TensorProto.FLOAT:
            vi.type.tensor_type.elem_type = elem
    for node in graph.node:
        for a in node.attribute:
            if a.type == AttributeProto.TENSOR:
                a.t.CopyFrom(_tensor(a.t, np_dtype))
            elif node.op_type == "Cast" and a.name == "to" and a.i == TensorProto.FLOAT:
                a.i = elem
            elif node.op_type in ("RandomNormal", "RandomUniform", "EyeLike") and \
                    a.name == "dtype" and a.i == TensorProto.FLOAT:
                a.i = elem
    return out
