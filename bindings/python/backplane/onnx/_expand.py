"""ONNX operators defined by a function body (the schema's own, e.g.
SoftmaxCrossEntropyLoss, NegativeLogLikelihoodLoss, Range, Celu) and
without a converter here: each node is replaced by the nodes of its body
before the plan is made, so the body's primitive operators run on the
device. Bodies that depend on the node's input types (context-dependent
functions) are asked for with the types shape inference gave."""
import onnx
from onnx import AttributeProto, NodeProto, helper

# Bodies inside bodies: a node expands at most this many levels deep.
_MAX_DEPTH = 8


def _function_of(node, opset, types):
    """The FunctionProto of node's schema at opset, or None."""
    try:
        schema = onnx.defs.get_schema(node.op_type, opset, node.domain)
    except Exception:
        return None, None
    body = None
    if schema.has_function:
        try:
            body = schema.get_function_with_opset_version(opset)
        except Exception:
            body = None
    if not body and schema.has_context_dependent_function:
        input_types = []
        for name in node.input:
            t = types.get(name)
            if t is None:
                if name:
                    return None, schema
                t = onnx.TypeProto()
            input_types.append(t.SerializeToString())
        try:
            body = schema.get_context_dependent_function_with_opset_version(
                opset, node.SerializeToString(), input_types)
        except Exception:
            body = None
    if not body:
        return None, schema
    f = onnx.FunctionProto()
    f.ParseFromString(body)
    return f, schema


def _attributes(node, schema):
    """The node's attributes by name, with the schema's defaults for the
    ones it leaves out (a body may refer to them)."""
    attrs = {}
    for name, a in schema.attributes.items():
        if a.default_value is not None and a.default_value.type != AttributeProto.UNDEFINED:
            d = AttributeProto()
            d.CopyFrom(a.default_value)
            d.name = name
            attrs[name] = d
    for a in node.attribute:
        attrs[a.name] = a
    return attrs


def _expand(node, function, schema, prefix):
    names = {}
    for k, name in enumerate(function.input):
        names[name] = node.input[k] if k < len(node.input) else ""
    for k, name in enumerate(function.output):
        if k < len(node.output) and node.output[k]:
            names[name] = node.output[k]

    def rename(name):
        if name in names:
            return names[name]
        return prefix + name if name else ""
    attrs = _attributes(node, schema)
    out = []
    for k, inner in enumerate(function.node):
        n = NodeProto()
        n.CopyFrom(inner)
        n.ClearField("input")
        n.ClearField("output")
        n.ClearField("attribute")
        n.input.extend(rename(i) for i in inner.input)
        n.output.extend(rename(o) for o in inner.output)
        for a in inner.attribute:
            if a.ref_attr_name:
                if a.ref_attr_name in attrs:
                    r = AttributeProto()
                    r.CopyFrom(attrs[a.ref_attr_name])
                    r.name = a.name
                    n.attribute.append(r)
            else:
                n.attribute.append(a)
        n.name = "{}/{}{}".format(node.name or node.op_type, inner.op_type, k)
        out.append(n)
    return out


def _types(model):
    types = {}
    g = model.graph
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        types[vi.name] = vi.type
    for init in g.initializer:
        types[init.name] = helper.make_tensor_type_proto(init.data_type, list(init.dims))
    return types


def expand_functions(model, keep, opset, infer):
    """model with every node of the default domain whose type is not in
    keep and whose schema has a function body replaced by that body;
    infer(model) re-runs shape inference between rounds."""
    for depth in range(_MAX_DEPTH):
        types = _types(model)
        new_nodes, changed = [], False
        for k, node in enumerate(model.graph.node):
            if node.domain in ("", "ai.onnx") and node.op_type not in keep:
                function, schema = _function_of(node, opset, types)
                if function is not None:
                    prefix = "{}_{}_{}__".format(node.name or node.op_type, depth, k)
                    new_nodes.extend(_expand(node, function, schema, prefix))
                    changed = True
                    continue
            new_nodes.append(node)
        if not changed:
            return model
        del model.graph.node[:]
        model.graph.node.extend(new_nodes)
        model = infer(model)
    return model
