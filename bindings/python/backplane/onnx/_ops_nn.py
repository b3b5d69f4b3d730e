"""ONNX's neural-network operators over Backplane's: matrix products,
softmax, the normalisations, global pooling, einsum, LRN."""
import numpy as np

import backplane as bp

from .. import _C
from .. import _tensor as T
from .._tensor import OP, _reduce
from .._torch_api import broadcast_to
from ._registry import converter, require
from ._ops_elementwise import FLOATS, cast, float_only
from ._ops_shape import reshape_to


def matmul_needs(t):
    return [("matmul", t), ("copy", t, t)]


@converter("MatMul", needs=lambda n: matmul_needs(n.t(0)))
def matmul(n, a, b):
    return _C.matmul(a, b, False, False, None)


def _gemm_needs(n):
    t = n.t(0)
    needs = matmul_needs(t) + [("mul", t)]
    if n.has(2):
        needs.append(("add", t))
    return needs


@converter("Gemm", needs=_gemm_needs)
def gemm(n, a, b, c=None):
    y = _C.matmul(a, b, bool(n.attr("transA", 0)), bool(n.attr("transB", 0)), None)
    alpha, beta = n.attr("alpha", 1.0), n.attr("beta", 1.0)
    if alpha != 1.0:
        y = y * (alpha if str(y.dtype) in FLOATS else int(alpha))
    if c is not None and beta != 0.0:
        y = y + (c if beta == 1.0 else c * (beta if str(c.dtype) in FLOATS else int(beta)))
    return y


# ---- softmax -------------------------------------------------------------------

def softmax_needs(t):
    """SOFTMAX where the vocabulary has it (ABI 1.6), else the composite's
    steps (max, sub, exp, sum, div)."""
    if "softmax" in OP:
        return [("softmax", t)]
    return [("max", t), ("sub", t), ("exp", t), ("sum", t), ("div", t)]


def _softmax_needs(n):
    float_only(n)
    return softmax_needs(n.t(0))


@converter("Softmax", needs=_softmax_needs)
def softmax(n, x):
    return _C.softmax(x, int(n.attr("axis", -1)))


def _log_softmax_needs(n):
    float_only(n)
    if "log_softmax" in OP:
        return [("log_softmax", n.t(0))]
    return [("logsumexp", n.t(0)), ("sub", n.t(0))]


@converter("LogSoftmax", needs=_log_softmax_needs)
def log_softmax(n, x):
    from ..nn import functional as F
    return F.log_softmax(x, dim=int(n.attr("axis", -1)))


def _hardmax_needs(n):
    t = n.t(0)
    return [("argmax", t), ("arange", "int64"), ("eq", "int64"), ("copy", "bool", t)]


@converter("Hardmax", needs=_hardmax_needs)
def hardmax(n, x):
    axis = int(n.attr("axis", -1)) % x.ndim
    best = _reduce(OP["argmax"], x, axis, True, None)
    positions = reshape_to(T.arange(x.shape[axis], dtype="int64", device=x.device),
                           (x.shape[axis],) + (1,) * (x.ndim - 1 - axis))
    return cast(best == positions, x.dtype)


# ---- normalisations ---------------------------------------------------------------

def _bn_needs(n):
    float_only(n)
    require(not n.attr("training_mode", 0), "BatchNormalization in training mode")
    t = n.t(0)
    needs = [("add", t), ("rsqrt", t), ("mul", t), ("sub", t), ("copy", t, t)]
    return needs + [("copy", n.t(k), t) for k in (1, 2, 3, 4) if n.t(k) != t]


@converter("BatchNormalization", needs=_bn_needs)
def batch_norm(n, x, scale, bias, mean, var):
    # y = x * s + (bias - mean * s), s = scale / sqrt(var + eps): two
    # elementwise operators on x, fused with whatever follows.
    shape = (-1,) + (1,) * (x.ndim - 2)
    scale, bias, mean, var = (cast(v, x.dtype) for v in (scale, bias, mean, var))
    s = scale * bp.rsqrt(var + n.attr("epsilon", 1e-5))
    return x * reshape_to(s, shape) + reshape_to(bias - mean * s, shape)


def _group_needs(n):
    float_only(n)
    t = n.t(0)
    return [("layer_norm", t), ("copy", t, t), ("mul", t), ("add", t)]


@converter("InstanceNormalization", needs=_group_needs)
def instance_norm(n, x, scale, bias):
    return _C.group_norm(x, x.shape[1], scale, bias, float(n.attr("epsilon", 1e-5)))


@converter("GroupNormalization", needs=_group_needs)
def group_norm(n, x, scale, bias):
    groups, channels = int(n.attr("num_groups")), x.shape[1]
    if scale.shape[0] != channels:  # opset 18: one scale and bias per group
        per = channels // groups
        scale, bias = (reshape_to(broadcast_to(reshape_to(v, (groups, 1)), (groups, per)),
                                  (channels,)) for v in (scale, bias))
    return _C.group_norm(x, groups, scale, bias, float(n.attr("epsilon", 1e-5)))


def _layer_norm_needs(n):
    float_only(n)
    t = n.t(0)
    needs = [("layer_norm", t), ("mul", t), ("add", t), ("copy", t, t)]
    for k in (1, 2):
        if n.has(k) and n.t(k) != t:
            needs.append(("copy", n.t(k), t))
    for k in (1, 2):
        if n.out_t(k) and n.out_t(k) not in ("float32", t):
            needs.append(("copy", "float32", n.out_t(k)))
    return needs


def _affine(x, axes, scale, bias):
    """scale and bias as the normalised shape, when they are that shape."""
    shape = tuple(x.shape[x.ndim - axes:])
    fits = all(v is None or tuple(v.shape) == shape for v in (scale, bias))
    return fits


@converter("LayerNormalization", needs=_layer_norm_needs)
def layer_norm(n, x, scale, bias=None):
    axis = int(n.attr("axis", -1)) % x.ndim
    axes = x.ndim - axis
    scale = cast(scale, x.dtype)
    bias = None if bias is None else cast(bias, x.dtype)
    eps = float(n.attr("epsilon", 1e-5))
    stats = len(n.outputs) > 1 and any(n.outputs[1:])
    if _affine(x, axes, scale, bias):
        out = _C.layer_norm(x, scale, bias, axes, eps, stats)
    else:
        out = _C.layer_norm(x, None, None, axes, eps, stats)
        y = out[0] if stats else out
        y = y * scale if bias is None else y * scale + bias
        out = (y,) + tuple(out[1:]) if stats else y
    if not stats:
        return out
    return tuple(cast(v, n.out_t(k)) if n.out_t(k) else v for k, v in enumerate(out))


def _rms_needs(n):
    float_only(n)
    t = n.t(0)
    return [("rms_norm", t), ("mul", t), ("copy", t, t)] + (
        [("copy", n.t(1), t)] if n.t(1) != t else [])


@converter("RMSNormalization", needs=_rms_needs)
def rms_norm(n, x, scale):
    axis = int(n.attr("axis", -1)) % x.ndim
    axes = x.ndim - axis
    scale = cast(scale, x.dtype)
    eps = float(n.attr("epsilon", 1e-5))
    if _affine(x, axes, scale, None):
        return _C.rms_norm(x, scale, None, axes, eps, False)
    return _C.rms_norm(x, None, None, axes, eps, False) * scale


def _mvn_needs(n):
    float_only(n)
    t = n.t(0)
    return [("mean", t), ("mul", t), ("sub", t), ("sqrt", t), ("add", t), ("div", t)]


@converter("MeanVarianceNormalization", needs=_mvn_needs)
def mean_variance_norm(n, x):
    axes = tuple(int(a) % x.ndim for a in n.attr("axes", [0, 2, 3]))
    mean = _reduce(OP["mean"], x, axes, True, None)
    var = _reduce(OP["mean"], x * x, axes, True, None) - mean * mean
    return (x - mean) / (T.sqrt(var) + 1e-9)


def _lp_needs(n):
    float_only(n)
    t = n.t(0)
    require(n.attr("p", 2) in (1, 2), "LpNormalization with p = {}".format(n.attr("p")))
    return [("abs", t), ("sum", t), ("square", t), ("sqrt", t), ("div", t), ("eq", t),
            ("where", t)]


@converter("LpNormalization", needs=_lp_needs)
def lp_norm(n, x):
    axis = int(n.attr("axis", -1)) % x.ndim
    if n.attr("p", 2) == 1:
        norm = _reduce(OP["sum"], T.abs(x), axis, True, None)
    else:
        norm = T.sqrt(_reduce(OP["sum"], T.square(x), axis, True, None))
    return T.where(norm == 0, 0.0, x / norm)


# ---- global pooling and LRN -------------------------------------------------------

@converter("GlobalAveragePool", needs=lambda n: [("mean", n.t(0))])
def global_average_pool(n, x):
    return _reduce(OP["mean"], x, tuple(range(2, x.ndim)), True, None)


@converter("GlobalMaxPool", needs=lambda n: [("max", n.t(0))])
def global_max_pool(n, x):
    return _reduce(OP["max"], x, tuple(range(2, x.ndim)), True, None)


def _lrn_needs(n):
    float_only(n)
    t = n.t(0)
    return [("square", t), ("fill", t), ("copy", t, t), ("add", t), ("mul", t), ("pow", t),
            ("div", t)]


@converter("LRN", needs=_lrn_needs)
def lrn(n, x):
    size = int(n.attr("size"))
    alpha, beta, bias = n.attr("alpha", 1e-4), n.attr("beta", 0.75), n.attr("bias", 1.0)
    c = x.shape[1]
    before = (size - 1) // 2
    sq = T.square(x)
    padded = T.zeros((x.shape[0], c + size - 1) + tuple(x.shape[2:]), dtype=x.dtype,
                     device=x.device)
    _C.assign(padded[:, before:before + c], sq)
    total = padded[:, 0:c]
    for k in range(1, size):
        total = total + padded[:, k:k + c]
    return x / T.power(total * (alpha / size) + bias, beta)


# ---- einsum -----------------------------------------------------------------------

def _einsum_needs(n):
    require(len(n.inputs) <= 2, "Einsum of more than two operands")
    eq = n.attr("equation")
    require("." not in eq, "Einsum with '...'")
    require(all(s != 0 for s in (len(n.shape(i) or ()) for i in range(len(n.inputs)))),
            "Einsum of a 0-d operand")
    lhs = eq.split("->")[0].split(",")
    require(all(len(set(s.strip())) == len(s.strip()) for s in lhs),
            "Einsum with a repeated subscript (a diagonal)")
    t = n.t(0)
    return matmul_needs(t) + [("sum", t), ("mul", t)]


@converter("Einsum", needs=_einsum_needs)
def einsum(n, *xs):
    from .._einsum import einsum as bp_einsum
    return bp_einsum(n.attr("equation"), *xs)



