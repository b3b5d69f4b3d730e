"""ONNX's sliding-window operators (Conv, ConvTranspose, MaxPool,
AveragePool) over Backplane's CONV and POOL families (ABI 1.6), through
torch.nn.functional's spellings (conv2d, max_pool2d, ...). ONNX pads each
side of an axis on its own; torch's functions pad both alike, so uneven
pads are made explicit first (a constant pad, or a crop of a transposed
convolution's output). A build whose vocabulary lacks the family refuses
the node at prepare time, naming the operator."""
import numpy as np

from .._tensor import OP
from ._registry import converter, require
from ._ops_elementwise import float_only
from ._ops_shape import pad_constant


def _functional():
    from ..nn import functional
    return functional


def _rank(n, kernel_input=None):
    """The node's spatial rank: from kernel_shape, else from the weight's
    or the input's inferred rank."""
    kernel = n.attr("kernel_shape")
    if kernel:
        rank = len(kernel)
    else:
        shape = n.shape(1 if kernel_input is None else kernel_input)
        require(shape is not None, "{}: the rank of its input is unknown after shape inference"
                .format(n.op_type))
        rank = len(shape) - 2
    require(1 <= rank <= 3, "{} over {} spatial axes (Backplane's windows have 1 to 3)"
            .format(n.op_type, rank))
    return rank


def _family(op):
    require(op in OP, "this build of Backplane has no {} operator (ABI 1.6's window families)"
            .format(op))


def _auto_pads(n, sizes, kernel, stride, dilation):
    """ONNX's pads (begin..., end...) of the node for input extents sizes:
    the pads attribute, or what auto_pad SAME_UPPER/SAME_LOWER/VALID says."""
    rank = len(sizes)
    mode = n.attr("auto_pad", "NOTSET")
    if mode in ("SAME_UPPER", "SAME_LOWER"):
        before, after = [], []
        for size, k, s, d in zip(sizes, kernel, stride, dilation):
            out = -(-size // s)
            total = max((out - 1) * s + d * (k - 1) + 1 - size, 0)
            small, large = total // 2, total - total // 2
            before.append(small if mode == "SAME_UPPER" else large)
            after.append(large if mode == "SAME_UPPER" else small)
        return before, after
    if mode == "VALID":
        return [0] * rank, [0] * rank
    pads = list(n.attr("pads", None) or [0] * (2 * rank))
    return pads[:rank], pads[rank:]


def _window(n, rank, kernel):
    stride = list(n.attr("strides", None) or [1] * rank)
    dilation = list(n.attr("dilations", None) or [1] * rank)
    return stride, dilation


def _sliding(n, x, kernel, function):
    """(stride, dilation, pads before, pads after, torch's function<rank>d)
    of a node sliding kernel over x's spatial axes."""
    rank = len(kernel)
    stride, dilation = _window(n, rank, kernel)
    before, after = _auto_pads(n, x.shape[2:], kernel, stride, dilation)
    return stride, dilation, before, after, getattr(_functional(), "{}{}d".format(function, rank))


def _even(x, rank, before, after, fill):
    """(x, padding): x padded explicitly where ONNX's pads differ between
    the two sides of an axis, and the even padding left to the operator."""
    if before == after:
        return x, tuple(before)
    lead = [0] * (x.ndim - rank)
    return pad_constant(x, lead + list(before), lead + list(after), fill), (0,) * rank


# ---- convolution ------------------------------------------------------------------------

def _conv_needs(n):
    float_only(n)
    _family("conv")
    _rank(n)
    t = n.t(0)
    return [("conv", t), ("fill", t), ("copy", t, t)]


@converter("Conv", needs=_conv_needs)
def conv(n, x, w, b=None):
    # The window's numbers follow from the attributes and the shapes alone:
    # worked out on the node's first run with these shapes, not on every run.
    shapes = (x.shape, w.shape)
    memo = n.__dict__.get("_conv_memo")
    if memo is None or memo[0] != shapes:
        rank = w.ndim - 2
        stride, dilation, before, after, fn = _sliding(n, x, list(w.shape[2:]), "conv")
        memo = n._conv_memo = (shapes, rank, fn, tuple(stride), tuple(dilation), before, after,
                               int(n.attr("group", 1)))
    _, rank, fn, stride, dilation, before, after, groups = memo
    x, padding = _even(x, rank, before, after, 0.0)
    return fn(x, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups)


def _conv_transpose_needs(n):
    float_only(n)
    _family("conv_transpose")
    _rank(n)
    t = n.t(0)
    return [("conv_transpose", t), ("copy", t, t)]


@converter("ConvTranspose", needs=_conv_transpose_needs)
def conv_transpose(n, x, w, b=None):
    """The full transposed convolution (no padding), cropped by ONNX's pads
    or to its output_shape."""
    rank = w.ndim - 2
    kernel = list(w.shape[2:])
    stride, dilation = _window(n, rank, kernel)
    extra = list(n.attr("output_padding", None) or [0] * rank)
    full = [s * (i - 1) + e + (k - 1) * d + 1
            for i, s, e, k, d in zip(x.shape[2:], stride, extra, kernel, dilation)]
    target = n.attr("output_shape", None)
    mode = n.attr("auto_pad", "NOTSET")
    if target:
        target = list(target)[-rank:]
    elif mode in ("SAME_UPPER", "SAME_LOWER"):
        target = [i * s for i, s in zip(x.shape[2:], stride)]
    if target:
        before, after = [], []
        for f, o in zip(full, target):
            total = f - o
            if total < 0:
                raise ValueError("backplane.onnx: {}: output_shape {} is larger than the "
                                 "transposed convolution's {}".format(n.describe(), target, full))
            small, large = total // 2, total - total // 2
            upper = mode != "SAME_LOWER"
            before.append(small if upper else large)
            after.append(large if upper else small)
    elif mode == "VALID":
        before = after = [0] * rank
    else:
        pads = list(n.attr("pads", None) or [0] * (2 * rank))
        before, after = pads[:rank], pads[rank:]
    fn = getattr(_functional(), "conv_transpose{}d".format(rank))
    groups = int(n.attr("group", 1))
    if before == after:
        return fn(x, w, b, stride=tuple(stride), padding=tuple(before),
                  output_padding=tuple(extra), groups=groups, dilation=tuple(dilation))
    y = fn(x, w, b, stride=tuple(stride), padding=0, output_padding=tuple(extra), groups=groups,
           dilation=tuple(dilation))
    crop = tuple(slice(p, y.shape[2 + a] - q) for a, (p, q) in enumerate(zip(before, after)))
    return y[(slice(None), slice(None)) + crop].contiguous()


# ---- pooling ------------------------------------------------------------------------------

def _lowest(dtype):
    name = str(dtype)
    if name in ("float32", "float64", "float16", "bfloat16"):
        return float("-inf")
    return int(np.iinfo(np.dtype(name)).min)


def _max_pool_needs(n):
    _family("max_pool")
    rank = _rank(n, kernel_input=0)
    require(n.attr("storage_order", 0) == 0, "MaxPool's column-major indices (storage_order=1)")
    t = n.t(0)
    needs = [("max_pool", t), ("fill", t), ("copy", t, t)]
    if len(n.outputs) > 1 and n.outputs[1]:
        pads = n.attr("pads", None) or [0] * (2 * rank)
        require(list(pads[:rank]) == list(pads[rank:]) and n.attr("auto_pad", "NOTSET") in
                ("NOTSET", "VALID"), "MaxPool's Indices with pads that differ between the sides")
        needs += [("add", "int64"), ("mul", "int64"), ("arange", "int64")]
    return needs


@converter("MaxPool", needs=_max_pool_needs)
def max_pool(n, x):
    kernel = list(n.attr("kernel_shape"))
    rank = len(kernel)
    stride, dilation, before, after, fn = _sliding(n, x, kernel, "max_pool")
    x, padding = _even(x, rank, before, after, _lowest(x.dtype))
    want_indices = len(n.outputs) > 1 and bool(n.outputs[1])
    result = fn(x, tuple(kernel), stride=tuple(stride), padding=padding, dilation=tuple(dilation),
                ceil_mode=bool(n.attr("ceil_mode", 0)), return_indices=want_indices)
    if not want_indices:
        return result
    y, plane = result
    # ONNX's indices count over the whole tensor, torch's within each plane.
    from .. import _tensor as T
    batch, channels = x.shape[0], x.shape[1]
    area = int(np.prod(x.shape[2:], dtype=np.int64))
    planes = T.arange(batch * channels, dtype="int64", device=x.device).reshape(
        batch, channels, *([1] * rank))
    return y, plane + planes * area


def _avg_pool_needs(n):
    float_only(n)
    _family("avg_pool")
    rank = _rank(n, kernel_input=0)
    require(all(d == 1 for d in (n.attr("dilations", None) or [1] * rank)),
            "AveragePool with dilations (torch's avg_pool has none)")
    t = n.t(0)
    return [("avg_pool", t), ("fill", t), ("copy", t, t), ("div", t)]


@converter("AveragePool", needs=_avg_pool_needs)
def average_pool(n, x):
    kernel = list(n.attr("kernel_shape"))
    rank = len(kernel)
    stride, _, before, after, fn = _sliding(n, x, kernel, "avg_pool")
    include = bool(n.attr("count_include_pad", 0))
    ceil = bool(n.attr("ceil_mode", 0))
    if before == after:
        return fn(x, tuple(kernel), stride=tuple(stride), padding=tuple(before), ceil_mode=ceil,
                  count_include_pad=include)
    padded, _ = _even(x, rank, before, after, 0.0)
    sums = fn(padded, tuple(kernel), stride=tuple(stride), padding=0, ceil_mode=ceil,
              count_include_pad=True)
    if include:
        return sums
    # Mean over the input's elements only: the same window means of a mask
    # that is 1 on the input and 0 on the pads.
    from .. import _tensor as T
    ones = T.ones(*x.shape[2:], dtype=x.dtype, device=x.device).reshape(1, 1, *x.shape[2:])
    mask, _ = _even(ones, rank, before, after, 0.0)
    counts = fn(mask, tuple(kernel), stride=tuple(stride), padding=0, ceil_mode=ceil,
                count_include_pad=True)
    return sums / counts
