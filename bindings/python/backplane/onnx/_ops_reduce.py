"""ONNX reductions over a set of axes (Backplane's reductions over axes,
bp_reduce_axes) and ArgMax/ArgMin."""
import math

import numpy as np

from .. import _tensor as T
from .._tensor import OP, _reduce
from ._registry import converter, require
from ._ops_elementwise import FLOATS, cast

# ONNX reduction -> (Backplane reduction, elementwise step before it, after it)
_REDUCTIONS = {
    "ReduceSum": ("sum", None, None), "ReduceMean": ("mean", None, None),
    "ReduceMax": ("max", None, None), "ReduceMin": ("min", None, None),
    "ReduceProd": ("prod", None, None), "ReduceL1": ("sum", "abs", None),
    "ReduceL2": ("sum", "square", "sqrt"), "ReduceSumSquare": ("sum", "square", None),
    "ReduceLogSum": ("sum", None, "log"), "ReduceLogSumExp": ("logsumexp", None, None),
}
# The value of a reduction over no element.
_EMPTY = {"ReduceSum": 0, "ReduceMean": math.nan, "ReduceMax": -math.inf, "ReduceMin": math.inf,
          "ReduceProd": 1, "ReduceL1": 0, "ReduceL2": 0, "ReduceSumSquare": 0,
          "ReduceLogSum": -math.inf, "ReduceLogSumExp": -math.inf}


def _compute_dtype(n):
    """The dtype the reduction runs in: bool max/min as uint8, integer means
    and float-only reductions through float64."""
    t, (op, pre, post) = n.t(0), _REDUCTIONS[n.op_type]
    if t == "bool":
        require(op in ("max", "min"), "{} of bool".format(n.op_type))
        return "uint8"
    if t not in FLOATS and (op in ("mean", "logsumexp") or post):
        return "float64"
    return t


def _reduce_needs(n):
    t = n.t(0)
    op, pre, post = _REDUCTIONS[n.op_type]
    c = _compute_dtype(n)
    needs = [(op, c), ("fill", t), ("copy", t, t)]
    needs += [(s, c) for s in (pre, post) if s]
    if c != t:
        needs += [("copy", t, c), ("copy", c, t)]
    if op in ("sum", "prod") and c not in FLOATS:
        needs.append(("copy", "int64", t))
    return needs


def _axes(n, x, axes):
    if axes is None:
        axes = n.attr("axes")
    if axes is None or len(np.asarray(axes).reshape(-1)) == 0:
        if n.attr("noop_with_empty_axes", 0):
            return None
        return tuple(range(x.ndim))
    return tuple(sorted({int(a) % x.ndim if x.ndim else 0 for a in np.asarray(axes).reshape(-1)}))


def _reduction(name):
    op, pre, post = _REDUCTIONS[name]

    def fn(n, x, axes=None):
        axes = _axes(n, x, axes)
        if axes is None:
            return x
        keep = bool(n.attr("keepdims", 1))
        if any(x.shape[a] == 0 for a in axes):
            shape = tuple(1 if a in axes else s for a, s in enumerate(x.shape)) if keep else \
                tuple(s for a, s in enumerate(x.shape) if a not in axes)
            value = _EMPTY[name]
            if str(x.dtype) not in FLOATS and math.isinf(value):
                info = np.iinfo(str(x.dtype)) if str(x.dtype) != "bool" else None
                value = (info.min if value < 0 else info.max) if info else int(value > 0)
            return T.full(shape, value, dtype=x.dtype, device=x.device)
        t = cast(x, _compute_dtype(n))
        if pre:
            t = getattr(T, pre)(t)
        r = _reduce(OP[op], t, axes, keep, None) if axes else t
        if post:
            r = getattr(T, post)(r)
        return cast(r, x.dtype)
    return fn


for _name in _REDUCTIONS:
    converter(_name, needs=_reduce_needs, host_inputs=(1,))(_reduction(_name))


def _arg_needs(n):
    t = n.t(0)
    op = "argmax" if n.op_type == "ArgMax" else "argmin"
    c = "uint8" if t == "bool" else t
    needs = [(op, c)]
    if c != t:
        needs.append(("copy", t, c))
    if n.attr("select_last_index", 0):
        needs += [("gather_nd", c), ("copy", c, c), ("sub", "int64")]
    return needs


def _arg(name):
    op = OP[name]

    def fn(n, x):
        axis = int(n.attr("axis", 0)) % max(x.ndim, 1)
        keep = bool(n.attr("keepdims", 1))
        x = cast(x, "uint8") if str(x.dtype) == "bool" else x
        last = n.attr("select_last_index", 0)
        if last:
            x = x[(slice(None),) * axis + (slice(None, None, -1),)]
        r = _reduce(op, x, axis, keep, None)
        return (x.shape[axis] - 1) - r if last else r
    return fn


converter("ArgMax", needs=_arg_needs)(_arg("argmax"))
converter("ArgMin", needs=_arg_needs)(_arg("argmin"))


