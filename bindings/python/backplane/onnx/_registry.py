"""The one table of what backplane.onnx can run: for each ONNX operator
(default domain), the function that runs a node with Backplane operators
and the Backplane operators and dtypes it needs, which prepare() asks the
device about before anything runs.

A converter is written as

    @converter("Relu", needs=lambda n: [("relu", n.t(0))])
    def relu(n, x):
        return bp.relu(x)

- `n` is the planned node (_plan.Node): attributes (n.attr), input and
  output dtypes from shape inference (n.t(i), n.out_t(i)), opset, device.
- The tensors of the node's inputs follow, None for an absent optional
  one. Inputs listed in host_inputs (shapes, axes, pads...) arrive as
  NumPy arrays: constants at prepare time, or values of shape arithmetic.
- It returns the output tensor, or a tuple (None for an output not made).
- needs(n) lists (backplane operator, input dtype[, output dtype]) it
  runs; it may raise Refused(reason) for a form it does not run (an
  attribute value, a dtype), so prepare names that form.
"""


class Refused(Exception):
    """A node form a converter does not run; str() says what and why."""


class Converter:
    __slots__ = ("op_type", "fn", "needs", "host_inputs", "since")

    def __init__(self, op_type, fn, needs, host_inputs, since):
        self.op_type = op_type
        self.fn = fn
        self.needs = needs
        self.host_inputs = frozenset(host_inputs)
        self.since = since


CONVERTERS = {}


def converter(*op_types, needs, host_inputs=(), since=1):
    """Registers fn for each ONNX operator type in op_types (opset `since`
    and later: older forms are converted to opset 13 at prepare time)."""
    def register(fn):
        for t in op_types:
            if t in CONVERTERS:
                raise ValueError("backplane.onnx: two converters for " + t)
            CONVERTERS[t] = Converter(t, fn, needs, host_inputs, since)
        return fn
    return register


def require(condition, reason):
    """Refused(reason) unless condition."""
    if not condition:
        raise Refused(reason)
