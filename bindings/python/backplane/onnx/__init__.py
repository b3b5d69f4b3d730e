"""backplane.onnx: ONNX models on any Backplane device.

    import backplane.onnx as bponnx
    model = bponnx.prepare("resnet18.onnx", device="opencl:0")
    (logits,) = model.run([x])          # NumPy arrays or tensors on opencl:0
    print(model.report())               # each node -> the Backplane operators it runs

prepare() reads the model with the `onnx` package, converts an opset older
than 13 to 13, infers shapes and types, folds every node whose inputs are
constants (onnx's reference implementation, once), and maps each remaining
node to Backplane operators on the device. The initialisers and folded
constants are put on the device once; run() then only runs operators, and
drops each intermediate right after its last reader, so elementwise runs
fuse and memory returns early.

Nothing runs where you did not ask: a node the device cannot run is an
error at prepare() (UnsupportedModelError) naming every such node, its
operator, opset and dtypes, why, and which devices would run it. With
prepare(..., fallback="cpu:0") those nodes run on the fallback instead and
report() lists every copy that costs on each run.

Shapes known only at run time (symbolic dimensions) are computed on the
host: Shape and Size read a tensor's shape, and nodes whose inputs are all
such shapes or constants run with onnx's reference implementation (the
report says "host"). Control flow: If, Loop and Scan are not supported
yet (prepare names them).

It implements onnx.backend.base.Backend, so onnx's backend test suite runs
against it (backend_for(device) gives the Backend of one device).
"""
try:
    import onnx  # noqa: F401
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError("backplane.onnx needs the onnx package (pip install onnx; "
                      "scripts/install-deps.sh installs the pinned one): {}".format(e)) from None

from onnx.backend.base import Backend

from .._device import device as _device
from . import _ops_elementwise, _ops_nn, _ops_reduce, _ops_shape, _ops_window  # noqa: F401  (register)
from ._convert import convert_float_model
from ._errors import UnsupportedModelError
from ._plan import MIN_OPSET, Plan, load
from ._prepared import PreparedModel
from ._registry import CONVERTERS

__all__ = ["load", "prepare", "run_model", "supported_operators", "backend_for",
           "convert_float_model", "BackplaneBackend", "PreparedModel", "UnsupportedModelError",
           "MIN_OPSET"]


def _resolve(device):
    """A Backplane device from a Backplane name ("opencl:0") or onnx's
    device strings ("CPU" is cpu:0, "CUDA" and "CUDA:i" cuda:i)."""
    if isinstance(device, str):
        kind, _, index = device.partition(":")
        if kind == "CPU":
            return _device("cpu:0")
        if kind == "CUDA":
            return _device("cuda:" + (index or "0"))
    return _device(device)


def prepare(model, device="cpu:0", fallback=None, **kwargs):
    """The model (a path, bytes or an onnx.ModelProto) prepared for device:
    a PreparedModel whose run(inputs) returns tensors on device. fallback
    names a device for the nodes device cannot run (each copy is listed in
    report()); without it such nodes are an UnsupportedModelError."""
    dev = _resolve(device)
    fb = None if fallback is None else _resolve(fallback)
    if fb is not None and fb == dev:
        fb = None
    return PreparedModel(Plan(load(model), dev, fb))


def run_model(model, inputs, device="cpu:0", **kwargs):
    return prepare(model, device, **kwargs).run(inputs)


def supported_operators():
    """The ONNX operators (default domain) backplane.onnx converts, sorted.
    Whether a device runs one for given dtypes is its backend's answer,
    asked at prepare time."""
    return sorted(CONVERTERS)


class BackplaneBackend(Backend):
    """onnx.backend.base.Backend over backplane.onnx. Devices are
    Backplane's names ("cpu:0", "opencl:0") or onnx's ("CPU", "CUDA").
    is_compatible stays the base class's (True): a model the device cannot
    run is refused by prepare() with UnsupportedModelError naming why, so
    the backend suite counts it as a failure, not a skip."""

    device = None  # the device onnx's "CPU" means (backend_for); None: cpu:0

    @classmethod
    def _device_of(cls, device):
        if cls.device is not None and device in ("CPU", None):
            return cls.device
        return device

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        return prepare(model, cls._device_of(device), **kwargs)

    @classmethod
    def run_model(cls, model, inputs, device="CPU", **kwargs):
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node, inputs, device="CPU", outputs_info=None, **kwargs):
        from onnx import helper
        from ._dtypes import onnx_elem_type
        import numpy as np
        ins = []
        for name, v in zip(node.input, inputs):
            dt = str(getattr(v, "dtype", np.asarray(v).dtype))
            ins.append(helper.make_tensor_value_info(name, onnx_elem_type(
                "bool" if dt == "bool_" else dt), list(np.shape(v))))
        outs = [helper.make_tensor_value_info(o, 0, None) for o in node.output]
        graph = helper.make_graph([node], "run_node", ins, outs)
        opset = kwargs.pop("opset_version", None) or onnx.defs.onnx_opset_version()
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        return cls.prepare(model, device, **kwargs).run(list(inputs))

    @classmethod
    def supports_device(cls, device):
        if cls.device is not None:
            return device == "CPU"
        try:
            _resolve(device)
        except Exception:
            return False
        return True


def backend_for(device):
    """A BackplaneBackend class whose onnx "CPU" device is `device` (for
    onnx.backend.test.BackendTest, which only knows CPU and CUDA)."""
    dev = _resolve(device)
    return type("BackplaneBackend_" + dev.name.replace(":", "_"), (BackplaneBackend,),
                {"device": dev})
