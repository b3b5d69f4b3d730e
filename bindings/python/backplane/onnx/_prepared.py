"""The prepared model (onnx's BackendRep): runs the plan node by node with
Backplane operators on its device, dropping each intermediate right after
its last reader ran, so that elementwise runs fuse (docs/fusion.md) and
memory is returned early."""
import numpy as np
from onnx.backend.base import BackendRep, namedtupledict

from .. import _C
from .._errors import DeviceMismatchError, InternalError
from .._tensor import Tensor
from . import _dtypes
from ._report import Report


class PreparedModel(BackendRep):
    """A model prepared for one device: run(inputs) returns its outputs as
    tensors on that device. Its initialisers and folded constants were put
    on the device once, at prepare time. report() says how each node runs
    and every copy between devices it costs."""

    def __init__(self, plan):
        self.plan = plan
        self.device = plan.device
        self.fallback = plan.fallback
        self.input_names = list(plan.inputs)
        self.output_names = list(plan.outputs)
        self.copies = []  # (what, value name, from device, to device), planned at prepare
        self._outputs_type = namedtupledict("Outputs", self.output_names)
        self._resident = {}  # (value name, device name) -> tensor
        self._place_constants()
        self._plan_copies()
        self._report = Report(self)

    # ---- prepare time ------------------------------------------------------

    def _device_reads(self, node):
        """Indices of the inputs node reads as tensors (not on the host)."""
        host = node.converter.host_inputs if node.converter else ()
        return [i for i, n in enumerate(node.inputs) if n and i not in host]

    def _place_constants(self):
        """Each constant a device node reads as a tensor, put once on the
        devices that read it."""
        for node in self.plan.nodes:
            if node.where != "device":
                continue
            for i in self._device_reads(node):
                name = node.inputs[i]
                if name in self.plan.constants and (name, node.device.name) not in self._resident:
                    self._resident[name, node.device.name] = _dtypes.to_device(
                        self.plan.constants[name], node.device)
        for name in self.output_names:
            if name in self.plan.constants and (name, self.device.name) not in self._resident:
                self._resident[name, self.device.name] = _dtypes.to_device(
                    self.plan.constants[name], self.device)

    def _plan_copies(self):
        """The copies the fallback device costs on every run: a tensor made on
        one device and read on the other, each listed once per edge."""
        made_on = {n: self.device for n in self.input_names}
        seen = set()
        for node in self.plan.nodes:
            if node.where != "device":
                continue
            for i in self._device_reads(node):
                name = node.inputs[i]
                src = made_on.get(name)
                if src is not None and src != node.device and (name, node.device) not in seen:
                    seen.add((name, node.device))
                    self.copies.append(("input {} of {}".format(i, node.describe()), name, src,
                                        node.device))
            for n in node.outputs:
                made_on[n] = node.device
        for name in self.output_names:
            src = made_on.get(name)
            if src is not None and src != self.device:
                self.copies.append(("model output", name, src, self.device))

    # ---- run time ----------------------------------------------------------

    def _bind(self, inputs):
        if isinstance(inputs, dict):
            missing = [n for n in self.input_names if n not in inputs]
            if missing:
                raise ValueError("backplane.onnx: run() is missing input(s) {}".format(missing))
            values = [inputs[n] for n in self.input_names]
        else:
            values = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
            if len(values) != len(self.input_names):
                raise ValueError("backplane.onnx: the model takes {} input(s) {}, run() got {}"
                                 .format(len(self.input_names), self.input_names, len(values)))
        env = {}
        for name, v in zip(self.input_names, values):
            if isinstance(v, Tensor):
                if v.device != self.device:
                    raise DeviceMismatchError(
                        "backplane.onnx: input '{}' is on {}, the model was prepared for {} "
                        "(move it with .to('{}'): nothing is copied silently)".format(
                            name, v.device, self.device, self.device),
                        op="onnx.run", devices=(v.device, self.device))
                env[name] = v
            else:
                env[name] = _dtypes.to_device(np.asarray(v), self.device)
        return env

    def _value(self, env, name, device):
        v = env.get(name)
        if v is None:
            v = self._resident.get((name, device.name))
            if v is None:
                v = self.plan.constants[name]
        return v

    def run(self, inputs, **kwargs):
        """The model's outputs for inputs (a list in the order of the graph's
        inputs, or a dict by name; NumPy arrays are copied to the device,
        tensors must be on it), as a named tuple of tensors on the device."""
        env = self._bind(inputs)
        release = self.plan.release
        for node in self.plan.nodes:
            if node.where == "folded":
                continue
            if node.where == "metadata":
                env[node.outputs[0]] = _metadata(node, self._value(env, node.inputs[0], self.device))
            elif node.where == "host":
                _run_host(node, env, self)
            else:
                self._run_device(node, env)
            for name in release.get(node.index, ()):
                env.pop(name, None)
        results = []
        for name in self.output_names:
            v = env.get(name)
            if v is None:
                v = self._resident[name, self.device.name].copy()
            elif isinstance(v, np.ndarray):
                v = _dtypes.to_device(v, self.device)
            elif v.device != self.device:
                v = v.to(self.device)  # listed in report(): a model output of the fallback
            results.append(v)
        return self._outputs_type(*results)

    # Run for every node of every run: the checks compare the runtime's
    # numbers (device ids, dtype codes), not the objects that carry them.
    def _run_device(self, node, env):
        device = node.device
        device_id = device._id
        host = node.converter.host_inputs
        args = []
        for i, name in enumerate(node.inputs):
            if not name:
                args.append(None)
                continue
            v = self._value(env, name, device)
            if i in host:
                if isinstance(v, Tensor):
                    v = _dtypes.to_host(v)  # a shape or axes computed on the device
            elif isinstance(v, np.ndarray):
                v = _dtypes.to_device(v, device)  # a shape computed at run time
            elif v._device_id != device_id:
                v = v.to(device)  # a copy to or from the fallback, listed in report()
            args.append(v)
        out = node.converter.fn(node, *args)
        outs = out if isinstance(out, tuple) else (out,)
        for k, (name, v, want) in enumerate(zip(node.outputs, outs, node.out_codes())):
            if not name:
                continue
            if v is None:
                raise InternalError("backplane.onnx: {} made no output {}".format(
                    node.describe(), k))
            if want is not None and v._dtype_code != want:
                raise InternalError("backplane.onnx: {} made output {} in {}, ONNX says {}".format(
                    node.describe(), k, v.dtype, node.out_t(k)))
            env[name] = v

    # ---- what it did ---------------------------------------------------------

    def report(self):
        """The node-to-operator report (text): where each node runs, the
        Backplane operators it runs, what was folded, every copy."""
        return self._report.text()

    @property
    def nodes(self):
        """One dict per node: name, op_type, opset, where, device, operators."""
        return self._report.rows()


def _metadata(node, v):
    shape = tuple(v.shape)
    if node.op_type == "Size":
        return np.array(int(np.prod(shape, dtype=np.int64)), dtype=np.int64)
    return np.array(shape[slice(node.attr("start", 0), node.attr("end", None))], dtype=np.int64)


def _run_host(node, env, rep):
    """Shape arithmetic on the host (onnx's reference implementation): its
    inputs are shapes known only now and constants."""
    from onnx.reference import ReferenceEvaluator
    evaluator = getattr(node, "_host_evaluator", None)
    if evaluator is None:
        evaluator = node._host_evaluator = ReferenceEvaluator(node.proto,
                                                              opsets={"": node.opset})
    feeds = {}
    for name in node.inputs:
        if name:
            v = env.get(name)
            feeds[name] = rep.plan.constants[name] if v is None else v
    for name, r in zip(node.outputs, evaluator.run(None, feeds)):
        if name:
            env[name] = np.asarray(r)
