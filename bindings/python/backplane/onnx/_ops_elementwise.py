"""Elementwise ONNX operators: arithmetic, comparisons, logic, activations,
casts. Each is a short chain of Backplane's elementwise operators, which
the core defers and runs as one fused program (docs/fusion.md)."""
import math

import numpy as np

import backplane as bp

from .. import _C
from .._dtype import as_dtype
from .._tensor import OP
from .. import _tensor as T
from ._registry import converter, require

FLOATS = ("float32", "float64", "float16", "bfloat16")


def promote(a, b):
    """The dtype name two operands meet in (types.h's bp_vocab_promote)."""
    code = _C.promote(as_dtype(a).code, as_dtype(b).code)
    return as_dtype(_C.dtype_name(code)).name if code else None


def float_only(n, i=0):
    require(n.t(i) in FLOATS or n.t(i) is None,
            "{} runs on float inputs, not {}".format(n.op_type, n.t(i)))


def same(*ops):
    """needs: each of ops on input 0's dtype."""
    return lambda n: [(op, n.t(0)) for op in ops]


def floats(*ops):
    """needs: each of ops on input 0's dtype, which must be a float."""
    def needs(n):
        float_only(n)
        return [(op, n.t(0)) for op in ops]
    return needs


def cast(x, dtype):
    """x in dtype (a name or DType): x itself when it is already."""
    dt = as_dtype(str(dtype))
    return x if x._dtype_code == dt.code else _C.cast(x, dt.code)


def _binary(name):
    op = OP[name]
    return lambda n, a, b: _C.binary(op, a, b)


def _unary(name):
    op = OP[name]
    return lambda n, x: _C.unary(op, x)


# ---- arithmetic -------------------------------------------------------------

for _onnx, _bp in {"Add": "add", "Sub": "sub", "Mul": "mul"}.items():
    converter(_onnx, needs=same(_bp))(_binary(_bp))


def _div_needs(n):
    t = n.t(0)
    if t in FLOATS:
        return [("div", t)]
    # Integers: C's division (truncation toward zero) from Python's floor.
    return [("floor_divide", t), ("remainder", t), ("ne", t), ("lt", t),
            ("bitwise_xor", "bool"), ("bitwise_and", "bool"), ("copy", "bool", t), ("add", t)]


def _signs_differ(a, b, r):
    """Where the remainder r of a and b is nonzero and a's and b's signs
    differ: there C's truncating division and fmod part from Python's."""
    return (r != 0) & ((a < 0) ^ (b < 0))


@converter("Div", needs=_div_needs)
def div(n, a, b):
    if n.t(0) in FLOATS:
        return _C.binary(OP["div"], a, b)
    q = T.floor_divide(a, b)
    return q + cast(_signs_differ(a, b, T.remainder(a, b)), q.dtype)


def _mod_needs(n):
    t = n.t(0)
    if not n.attr("fmod", 0):
        require(t not in FLOATS, "Mod of floats needs fmod=1 (ONNX)")
        return [("remainder", t)]
    return [("remainder", t), ("ne", t), ("lt", t), ("bitwise_xor", "bool"),
            ("bitwise_and", "bool"), ("sub", t), ("where", t)]


@converter("Mod", needs=_mod_needs)
def mod(n, a, b):
    r = T.remainder(a, b)
    if not n.attr("fmod", 0):
        return r
    # C's fmod takes the dividend's sign, Python's % the divisor's.
    return T.where(_signs_differ(a, b, r), r - b, r)


def _pow_needs(n):
    t, e = n.t(0), n.t(1)
    compute = promote(t, e)
    needs = [("pow", compute)]
    needs += [("copy", x, compute) for x in {t, e} if x != compute]
    if compute != t:
        needs.append(("copy", compute, t))
    return needs


@converter("Pow", needs=_pow_needs)
def pow_(n, a, b):
    return cast(T.power(a, b), n.t(0))


def _variadic(name, op):
    def needs(n):
        return [(op, n.t(0))] if len(n.inputs) > 1 else []

    def fn(n, *xs):
        out = xs[0]
        for x in xs[1:]:
            out = _C.binary(OP[op], out, x)
        return out
    converter(name, needs=needs)(fn)


_variadic("Sum", "add")
_variadic("Max", "maximum")
_variadic("Min", "minimum")


def _mean_needs(n):
    float_only(n)
    return [("add", n.t(0)), ("div", n.t(0))] if len(n.inputs) > 1 else []


@converter("Mean", needs=_mean_needs)
def mean(n, *xs):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out / len(xs) if len(xs) > 1 else out


# ---- comparisons and logic ---------------------------------------------------

for _onnx, _bp in {"Equal": "eq", "Less": "lt", "LessOrEqual": "le", "Greater": "gt",
                   "GreaterOrEqual": "ge", "And": "bitwise_and", "Or": "bitwise_or",
                   "Xor": "bitwise_xor", "BitwiseAnd": "bitwise_and",
                   "BitwiseOr": "bitwise_or", "BitwiseXor": "bitwise_xor"}.items():
    converter(_onnx, needs=same(_bp))(_binary(_bp))
converter("Not", "BitwiseNot", needs=same("bitwise_not"))(_unary("bitwise_not"))


@converter("Where", needs=lambda n: [("where", n.t(1))])
def where(n, cond, a, b):
    return _C.where(cond, a, b)


@converter("IsNaN", needs=floats("ne"))
def isnan(n, x):
    return x != x


def _isinf_needs(n):
    float_only(n)
    both = n.attr("detect_negative", 1) and n.attr("detect_positive", 1)
    return [("eq", n.t(0))] + ([("bitwise_or", "bool")] if both else [])


@converter("IsInf", needs=_isinf_needs)
def isinf(n, x):
    pos, neg = n.attr("detect_positive", 1), n.attr("detect_negative", 1)
    if pos and neg:
        return (x == math.inf) | (x == -math.inf)
    return x == (math.inf if pos else -math.inf) if (pos or neg) else x == math.nan


# ---- unary math -----------------------------------------------------------------

for _onnx, _bp, _float in [("Abs", "abs", False), ("Neg", "neg", False), ("Exp", "exp", True),
                           ("Log", "log", True), ("Sqrt", "sqrt", True), ("Tanh", "tanh", True),
                           ("Sigmoid", "sigmoid", True), ("Relu", "relu", False),
                           ("Sin", "sin", True), ("Cos", "cos", True), ("Erf", "erf", True),
                           ("Floor", "floor", False), ("Ceil", "ceil", False),
                           ("Round", "round", False), ("Sign", "sign", False)]:
    converter(_onnx, needs=(floats if _float else same)(_bp))(_unary(_bp))


@converter("Reciprocal", needs=floats("div"))
def reciprocal(n, x):
    return 1.0 / x


@converter("Tan", needs=floats("sin", "cos", "div"))
def tan(n, x):
    return T.sin(x) / T.cos(x)


@converter("Sinh", needs=floats("exp", "neg", "sub", "mul"))
def sinh(n, x):
    return (T.exp(x) - T.exp(-x)) * 0.5


@converter("Cosh", needs=floats("exp", "neg", "add", "mul"))
def cosh(n, x):
    return (T.exp(x) + T.exp(-x)) * 0.5


# ---- activations -----------------------------------------------------------------

@converter("LeakyRelu", needs=floats("lt", "mul", "where"))
def leaky_relu(n, x):
    return T.where(x < 0, x * n.attr("alpha", 0.01), x)


@converter("PRelu", needs=lambda n: [("lt", n.t(0)), ("mul", n.t(0)), ("where", n.t(0))])
def prelu(n, x, slope):
    return T.where(x < 0, x * slope, x)


@converter("Elu", needs=floats("lt", "expm1", "mul", "where"))
def elu(n, x):
    return T.where(x < 0, bp.expm1(x) * n.attr("alpha", 1.0), x)


@converter("Selu", needs=floats("le", "expm1", "mul", "where"))
def selu(n, x):
    alpha, gamma = n.attr("alpha", 1.67326319217681884765625), n.attr("gamma", 1.05070102214813232421875)
    return T.where(x <= 0, bp.expm1(x) * alpha, x) * gamma


@converter("Celu", needs=floats("div", "expm1", "mul", "maximum", "minimum", "add"))
def celu(n, x):
    alpha = n.attr("alpha", 1.0)
    return T.maximum(x, 0.0) + T.minimum(bp.expm1(x / alpha) * alpha, 0.0)


def _clip01(t):
    return T.minimum(T.maximum(t, 0.0), 1.0)


@converter("HardSigmoid", needs=floats("mul", "add", "maximum", "minimum"))
def hard_sigmoid(n, x):
    return _clip01(x * n.attr("alpha", 0.2) + n.attr("beta", 0.5))


@converter("HardSwish", needs=floats("mul", "add", "maximum", "minimum"))
def hard_swish(n, x):
    return x * _clip01(x * (1.0 / 6.0) + 0.5)


@converter("Softplus", needs=floats("exp", "log1p"))
def softplus(n, x):
    return bp.log1p(T.exp(x))


@converter("Softsign", needs=floats("abs", "add", "div"))
def softsign(n, x):
    return x / (T.abs(x) + 1.0)


@converter("ThresholdedRelu", needs=floats("gt", "where"))
def thresholded_relu(n, x):
    return T.where(x > n.attr("alpha", 1.0), x, 0.0)


@converter("Shrink", needs=same("lt", "gt", "add", "sub", "where"))
def shrink(n, x):
    lambd, bias = n.attr("lambd", 0.5), n.attr("bias", 0.0)
    if str(x.dtype) not in FLOATS:
        lambd, bias = int(lambd), int(bias)
    return T.where(x < -lambd, x + bias, T.where(x > lambd, x - bias, 0))


@converter("Mish", needs=floats("exp", "log1p", "tanh", "mul"))
def mish(n, x):
    return x * T.tanh(bp.log1p(T.exp(x)))


def _gelu_needs(n):
    float_only(n)
    if n.attr("approximate", "none") == "tanh":
        return [("mul", n.t(0)), ("add", n.t(0)), ("tanh", n.t(0))]
    return [("mul", n.t(0)), ("add", n.t(0)), ("erf", n.t(0))]


@converter("Gelu", needs=_gelu_needs)
def gelu(n, x):
    if n.attr("approximate", "none") == "tanh":
        inner = (x + x * x * x * 0.044715) * math.sqrt(2.0 / math.pi)
        return x * (T.tanh(inner) + 1.0) * 0.5
    return x * (bp.erf(x * (1.0 / math.sqrt(2.0))) + 1.0) * 0.5


@converter("Swish", needs=floats("mul", "sigmoid"))
def swish(n, x):
    return x * T.sigmoid(x * n.attr("alpha", 1.0))


def _clip_needs(n):
    t = n.t(0)
    return ([("maximum", t)] if n.has(1) else []) + ([("minimum", t)] if n.has(2) else [])


def _bound(n, i, tensor):
    """Clip's bound i as a Python number when it is a constant at prepare
    time (ReLU6's 0 and 6): a scalar operand, which a fused program applies
    in place instead of broadcasting a tensor through its tiles."""
    bounds = n.__dict__.setdefault("_clip_bounds", {})
    if i not in bounds:  # constant or not, that is known once prepared
        value = n.const(i)
        if value is None or value.size != 1:
            bounds[i] = None
        else:
            v = value.reshape(())[()]
            bounds[i] = int(v) if np.issubdtype(value.dtype, np.integer) else float(v)
    bound = bounds[i]
    return tensor if bound is None else bound


@converter("Clip", needs=_clip_needs)
def clip(n, x, low=None, high=None):
    if low is not None:
        x = T.maximum(x, _bound(n, 1, low))
    if high is not None:
        x = T.minimum(x, _bound(n, 2, high))
    return x


# ---- casts and identity -------------------------------------------------------------

def _cast_needs(n):
    src, dst = n.t(0), n.out_t(0)
    return [] if src == dst else [("copy", src, dst)]


@converter("Cast", needs=_cast_needs)
def cast_(n, x):
    return cast(x, n.out_t(0))


@converter("CastLike", needs=_cast_needs)
def cast_like(n, x, like):
    return cast(x, like.dtype)


@converter("Identity", needs=lambda n: [])
def identity(n, x):
    return x


def _dropout_needs(n):
    if n.has(2):
        training = n.const(2)
        require(training is not None, "Dropout's training_mode is computed at run time")
        ratio = n.const(1) if n.has(1) else 0.5
        require(not bool(training) or (ratio is not None and float(ratio) == 0),
                "Dropout in training mode draws random numbers")
    return [("fill", "bool")] if len(n.outputs) > 1 and n.outputs[1] else []


@converter("Dropout", needs=_dropout_needs, host_inputs=(1, 2))
def dropout(n, x, ratio=None, training=None):
    if len(n.outputs) > 1 and n.outputs[1]:
        return x, T.ones(x.shape, dtype="bool", device=x.device)
    return x
