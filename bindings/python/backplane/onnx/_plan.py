"""prepare()'s work: the model brought to opset 13 or later, shape
inference, constant folding, where each node runs, the support check
against the device, and when each intermediate is last read."""
import numpy as np
import onnx
from onnx import helper, numpy_helper, shape_inference

from .._dtype import as_dtype
from . import _dtypes
from ._registry import CONVERTERS, Refused

MIN_OPSET = 13

# Operators whose results are not a function of their inputs: never folded.
_NONDETERMINISTIC = frozenset({
    "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
    "Bernoulli"})
# Operators that make data from a shape: on the device even when their
# inputs are shapes computed at run time (their results are not shapes).
_CREATORS = frozenset({"ConstantOfShape", "EyeLike", "Range", "RandomNormalLike",
                       "RandomUniformLike", "Expand", "Tile"})
# Metadata: read from a tensor's shape, no operator runs.
_METADATA = frozenset({"Shape", "Size"})
# A folded result this many elements or more that is 4 times larger than the
# node's inputs is left to the device (a broadcast is cheaper made there than
# uploaded).
_FOLD_LIMIT = 1 << 20


class Node:
    """One node of the prepared graph and where it runs.

    where: "device" (Backplane operators on .device), "folded" (computed
    once at prepare time), "host" (shape arithmetic on values only known at
    run time, on the host with onnx's reference implementation) or
    "metadata" (Shape, Size of a tensor: read from its shape)."""

    def __init__(self, proto, index, opset, types, constants):
        self.proto = proto
        self.index = index
        self.op_type = proto.op_type
        self.domain = proto.domain
        self.name = proto.name or "{}_{}".format(proto.op_type, index)
        self.opset = opset
        self.inputs = list(proto.input)
        self.outputs = list(proto.output)
        self.attrs = {a.name: helper.get_attribute_value(a) for a in proto.attribute}
        self._types = types
        self._constants = constants
        self.where = "device"
        self.device = None
        self.converter = None
        self.needs = []
        self.needs_known = True  # False: what it runs depends on dtypes inference left unknown

    # ---- what converters read --------------------------------------------

    def attr(self, name, default=None):
        """An attribute's value (bytes decoded to str), or default."""
        v = self.attrs.get(name, default)
        return v.decode() if isinstance(v, bytes) else v

    def _type(self, name):
        return self._types.get(name, (None, None))

    def t(self, i):
        """Backplane dtype name of input i ("float32"), None when absent or unknown."""
        if i >= len(self.inputs) or not self.inputs[i]:
            return None
        return self._type(self.inputs[i])[0]

    def out_t(self, i=0):
        """Backplane dtype name of output i, None when unknown."""
        if i >= len(self.outputs) or not self.outputs[i]:
            return None
        return self._type(self.outputs[i])[0]

    def out_codes(self):
        """The bp_dtype code of each output (None where unknown), computed
        once: the check of every run's outputs compares these."""
        codes = self.__dict__.get("_out_codes")
        if codes is None:
            codes = self._out_codes = [None if t is None else as_dtype(t).code
                                       for t in map(self.out_t, range(len(self.outputs)))]
        return codes

    def shape(self, i):
        """Inferred shape of input i: a tuple of ints and None (unknown
        extents), or None when the rank is unknown."""
        if i >= len(self.inputs) or not self.inputs[i]:
            return None
        return self._type(self.inputs[i])[1]

    def out_shape(self, i=0):
        return self._type(self.outputs[i])[1] if i < len(self.outputs) else None

    def const(self, i):
        """Input i's value when it is a constant at prepare time (a NumPy
        array), else None."""
        if not self.has(i):
            return None
        return self._constants.get(self.inputs[i])

    def has(self, i):
        """Whether optional input i is given."""
        return i < len(self.inputs) and bool(self.inputs[i])

    def signature(self):
        """"float32, int64 -> float32": the dtypes prepare()'s messages show."""
        def names(ts):
            return ", ".join(t or "?" for t in ts) or "none"
        ins = [self._raw_type(n) for n in self.inputs if n]
        outs = [self._raw_type(n) for n in self.outputs if n]
        return "{} -> {}".format(names(ins), names(outs))

    def _raw_type(self, name):
        return self._types.get(name + "#onnx", self._type(name)[0])

    def describe(self):
        domain = self.domain + "." if self.domain else ""
        return "node '{}' ({}{}, opset {}; {})".format(
            self.name, domain, self.op_type, self.opset, self.signature())


def load(model):
    """A ModelProto from a path (external data next to it is read) or a
    ModelProto."""
    if isinstance(model, onnx.ModelProto):
        return model
    if isinstance(model, (bytes, bytearray)):
        return onnx.load_from_string(bytes(model))
    return onnx.load(model)


def default_opset(model):
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            return imp.version
    return None


def normalise(model):
    """The model as the plan reads it: local functions inlined, an opset
    older than 13 converted to 13 (onnx.version_converter), shapes and
    types inferred, operators without a converter that the standard defines
    by a function body replaced by it (_expand.py). Raises ValueError for an opset newer than the pinned
    onnx knows."""
    newest = onnx.defs.onnx_opset_version()
    opset = default_opset(model)
    if opset is not None and opset > newest:
        raise ValueError("backplane.onnx: the model imports opset {} of the default domain; "
                         "the installed onnx {} knows opsets up to {}".format(
                             opset, onnx.__version__, newest))
    if model.functions:
        from onnx import inliner
        model = inliner.inline_local_functions(model)
    if opset is not None and opset < MIN_OPSET:
        from onnx import version_converter
        model = version_converter.convert_version(model, MIN_OPSET)
    model = _infer(model)
    from ._expand import expand_functions
    return expand_functions(model, CONVERTERS, default_opset(model) or MIN_OPSET, _infer)


def _infer(model):
    try:
        return shape_inference.infer_shapes(model, check_type=False, strict_mode=False,
                                            data_prop=True)
    except Exception:  # a model onnx cannot infer still runs; dtypes come from what is known
        return model


def _value_types(graph, out):
    """name -> (Backplane dtype name or None, shape tuple or None) of every
    typed value of the graph, and name + "#onnx" -> ONNX's type name where
    Backplane has no such dtype (for messages)."""
    def record(vi):
        tt = vi.type.tensor_type
        if not vi.type.HasField("tensor_type"):
            out[vi.name + "#onnx"] = vi.type.WhichOneof("value") or "unknown type"
            out[vi.name] = (None, None)
            return
        dt = _dtypes.bp_dtype(tt.elem_type)
        shape = None
        if tt.HasField("shape"):
            shape = tuple(d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim)
        out[vi.name] = (None if dt is None else dt.name, shape)
        if dt is None and tt.elem_type:
            out[vi.name + "#onnx"] = _dtypes.type_name(tt.elem_type)
    for vi in list(graph.input) + list(graph.value_info) + list(graph.output):
        record(vi)
    for init in graph.initializer:
        dt = _dtypes.bp_dtype(init.data_type)
        out[init.name] = (None if dt is None else dt.name, tuple(init.dims))
        if dt is None:
            out[init.name + "#onnx"] = _dtypes.type_name(init.data_type)
    return out


def _const_type(arr):
    name = "bool" if arr.dtype == np.bool_ else arr.dtype.name
    try:
        from .._dtype import as_dtype
        return as_dtype(name).name, tuple(arr.shape)
    except Exception:
        return None, tuple(arr.shape)


def subgraph_reads(proto):
    """Names a node's subgraphs (If, Loop, Scan) read from outer scopes."""
    names = set()
    for a in proto.attribute:
        graphs = [a.g] if a.type == onnx.AttributeProto.GRAPH else list(a.graphs)
        for g in graphs:
            local = {i.name for i in g.input} | {i.name for i in g.initializer}
            for n in g.node:
                local.update(n.output)
            for n in g.node:
                names.update(i for i in n.input if i and i not in local)
                names.update(r for r in subgraph_reads(n) if r not in local)
    return names


class Plan:
    """The prepared graph: nodes, constants, inputs, outputs, liveness."""

    def __init__(self, model, device, fallback=None, fold=True):
        self.model = model = normalise(model)
        graph = model.graph
        self.opset = default_opset(model) or MIN_OPSET
        self.opsets = {imp.domain: imp.version for imp in model.opset_import}
        self.device = device
        self.fallback = fallback
        self.types = _value_types(graph, {})
        self.constants = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
        for name, arr in self.constants.items():
            self.types.setdefault(name, _const_type(arr))
        self.inputs = [i.name for i in graph.input if i.name not in self.constants]
        self.outputs = [o.name for o in graph.output]
        self.nodes = []
        for k, p in enumerate(graph.node):
            opset = self.opsets.get(p.domain, self.opset) if p.domain else self.opset
            self.nodes.append(Node(p, k, opset, self.types, self.constants))
        self._place(fold)
        self._check()
        self._liveness()

    # ---- folding and placement -------------------------------------------

    def _static_shape(self, name):
        shape = self.types.get(name, (None, None))[1]
        if name in self.constants:
            return tuple(self.constants[name].shape)
        return shape if shape is not None and None not in shape else None

    def _fold(self, node):
        """Computes a node whose inputs are all constants with onnx's
        reference implementation; False when it cannot (or should not)."""
        if node.op_type in _NONDETERMINISTIC or node.domain not in ("", "ai.onnx"):
            return False
        if any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
               for a in node.proto.attribute):
            return False
        from onnx.reference import ReferenceEvaluator
        feeds = {n: self.constants[n] for n in node.inputs if n}
        try:
            results = ReferenceEvaluator(node.proto, opsets={"": node.opset}).run(None, feeds)
        except Exception:
            return False
        size_in = sum(int(a.size) for a in feeds.values())
        results = [np.asarray(r) for r in results]
        if any(r.size >= _FOLD_LIMIT and r.size > 4 * size_in for r in results):
            return False
        for name, r in zip(node.outputs, results):
            if name:
                self.constants[name] = r
                self.types.setdefault(name, _const_type(r))
        return True

    def _fold_metadata(self, node):
        """Shape or Size of a value whose shape is static: a constant."""
        shape = self._static_shape(node.inputs[0])
        if shape is None:
            return False
        if node.op_type == "Size":
            value = np.array(int(np.prod(shape, dtype=np.int64)), dtype=np.int64)
        else:
            start, end = node.attr("start", 0), node.attr("end", None)
            value = np.array(shape[slice(start, end)], dtype=np.int64)
        self.constants[node.outputs[0]] = value
        self.types.setdefault(node.outputs[0], _const_type(value))
        return True

    def _place(self, fold):
        host_values = set()  # shapes known only at run time
        for node in self.nodes:
            given = [n for n in node.inputs if n]
            if fold and node.op_type in _METADATA and self._fold_metadata(node):
                node.where = "folded"
            elif fold and all(n in self.constants for n in given) and not subgraph_reads(
                    node.proto) and self._fold(node):
                node.where = "folded"
            elif node.op_type in _METADATA:
                node.where = "metadata"
                host_values.update(node.outputs)
            elif (any(n in host_values for n in given) and node.op_type not in _CREATORS
                  and all(n in host_values or n in self.constants for n in given)):
                node.where = "host"
                host_values.update(node.outputs)
            else:
                node.where = "device"
                node.device = self.device
        self.host_values = host_values

    # ---- the support check -----------------------------------------------

    def _problems(self, node, device):
        """Why `device` cannot run node (a list of reasons; empty: it can)."""
        conv = CONVERTERS.get(node.op_type) if node.domain in ("", "ai.onnx") else None
        if conv is None:
            where = "domain '{}'".format(node.domain) if node.domain else "its opset"
            return ["backplane.onnx has no converter for {} of {}".format(node.op_type, where)]
        node.converter = conv
        unknown = [n for n in node.inputs + node.outputs
                   if n and self.types.get(n, (None,))[0] is None]
        for n in unknown:
            onnx_type = self.types.get(n + "#onnx")
            if onnx_type:
                return ["'{}' is {}, which Backplane has no dtype for".format(n, onnx_type)]
        try:
            needs = [tuple(x) for x in conv.needs(node)]
        except Refused as e:
            return [str(e)]
        node.needs = needs
        missing = []
        for need in needs:
            op, dtype = need[0], need[1]
            out = need[2] if len(need) > 2 else None
            if dtype is None:
                node.needs_known = False
                return ["the dtypes of its inputs are unknown after shape inference"]
            if not device.supports(op, dtype, out):
                missing.append("{} {}{}".format(op, dtype, " -> " + out if out else ""))
        if missing:
            return ["{} ({}) does not implement {}".format(device, device.backend,
                                                          ", ".join(missing))]
        return []

    def _check(self):
        from .. import devices as all_devices
        refused = []
        for node in self.nodes:
            if node.where != "device":
                continue
            problems = self._problems(node, self.device)
            if problems and self.fallback is not None and not self._problems(node, self.fallback):
                node.device = self.fallback
                continue
            if problems:
                if node.converter is not None and node.needs_known and \
                        not problems[0].startswith("'"):
                    others = [d.name for d in all_devices()
                              if d != self.device and not self._problems(node, d)]
                    # _problems set needs for the last device asked: ask ours again.
                    self._problems(node, self.device)
                    hint = ("; runs on " + ", ".join(others) + " (prepare(..., fallback=...) "
                            "runs it there, its copies listed)") if others else \
                        "; no device of this process runs it"
                else:
                    hint = ""
                refused.append("  {}: {}{}".format(node.describe(), "; ".join(problems), hint))
        if refused:
            from ._errors import UnsupportedModelError
            raise UnsupportedModelError(
                "backplane.onnx: {} node(s) of the model cannot run on {}{}:\n{}".format(
                    len(refused), self.device,
                    "" if self.fallback is None else " nor on the fallback " + str(self.fallback),
                    "\n".join(refused)), nodes=refused)

    # ---- liveness ----------------------------------------------------------

    def _liveness(self):
        """release[k]: the values no node after node k reads."""
        last = {}
        for node in self.nodes:
            if node.where == "folded":
                continue
            for n in node.inputs:
                if n:
                    last[n] = node.index
            for n in subgraph_reads(node.proto):
                last[n] = node.index
        keep = set(self.outputs)
        self.release = {}
        for name, k in last.items():
            if name not in keep and name not in self.constants:
                self.release.setdefault(k, []).append(name)
