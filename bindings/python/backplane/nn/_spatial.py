"""Pooling, dropout, padding and resizing as torch.nn.functional spells
them: max_pool1d/2d/3d, avg_pool1d/2d/3d, adaptive_avg_pool1d/2d/3d,
adaptive_max_pool1d/2d/3d, dropout, pad and interpolate, over the C API's
channels-first functions (backplane.h, since 1.6). Inputs are [N, C, S...]
or, without the batch axis, [C, S...], as in torch; each result records its
gradient, so backward() goes through them on the input's device."""
import math
import operator

from .. import _C
from .. import random as _random
from .._tensor import tensor as _tensor

_PAD_MODES = {"constant": 0, "reflect": 1, "replicate": 2}
_INTERPOLATE_MODES = {"nearest": (0, None), "linear": (1, 1), "bilinear": (1, 2), "trilinear": (1, 3)}


def _tuple(value, n, what):
    """An int or a sequence of n ints as an n-tuple (torch's _single,
    _pair, _triple)."""
    if isinstance(value, (tuple, list)):
        if len(value) != n:
            raise ValueError("{}: expected {} values, got {}".format(what, n, len(value)))
        return tuple(operator.index(v) for v in value)
    return (operator.index(value),) * n


def _check_rank(fn, x, rank):
    if x.ndim not in (rank + 1, rank + 2):
        raise ValueError("{}: expected a {}-d (unbatched) or {}-d (batched) input, got shape {}"
                         .format(fn, rank + 1, rank + 2, tuple(x.shape)))


def _max_pool(rank, fn, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    _check_rank(fn, input, rank)
    kernel = _tuple(kernel_size, rank, "kernel_size")
    stride = kernel if stride is None or stride == [] or stride == () else _tuple(stride, rank, "stride")
    pad = _tuple(padding, rank, "padding")
    return _C.max_pool(input, rank, kernel, stride, pad, pad, _tuple(dilation, rank, "dilation"),
                       bool(ceil_mode), False, bool(return_indices))


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The maxima of windows along the last axis (torch's ties: the first of
    equal values; a NaN wins); with return_indices also their positions."""
    return _max_pool(1, "max_pool1d", input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """max_pool1d over the last two axes; indices are flat in each H x W plane."""
    return _max_pool(2, "max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(3, "max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def _divisor_counts(shape, rank, kernel, stride, pad, out_shape):
    """The number of window positions within the padded input for every
    output position (torch's pool_size, which divisor_override replaces)."""
    counts = []
    for d in range(rank):
        size, k, s, p = shape[-rank + d], kernel[d], stride[d], pad[d]
        counts.append([min(o * s - p + k, size + p) - (o * s - p) for o in range(out_shape[-rank + d])])
    return counts


def _avg_pool(rank, fn, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    _check_rank(fn, input, rank)
    kernel = _tuple(kernel_size, rank, "kernel_size")
    stride = kernel if stride is None or stride == [] or stride == () else _tuple(stride, rank, "stride")
    pad = _tuple(padding, rank, "padding")
    if divisor_override is None:
        return _C.avg_pool(input, rank, kernel, stride, pad, pad, (1,) * rank, bool(ceil_mode),
                           bool(count_include_pad))
    divisor = operator.index(divisor_override)
    if divisor == 0:
        raise ValueError("{}: divisor_override must not be 0".format(fn))
    # The window sums: averages over the padded window, times its size.
    y = _C.avg_pool(input, rank, kernel, stride, pad, pad, (1,) * rank, bool(ceil_mode), True)
    counts = _divisor_counts(input.shape, rank, kernel, stride, pad, y.shape)
    factor = None
    for d, row in enumerate(counts):
        shape = [1] * y.ndim
        shape[y.ndim - rank + d] = len(row)
        t = _tensor([float(c) for c in row], dtype=y.dtype, device=y.device).reshape(*shape)
        factor = t if factor is None else factor * t
    return y * factor / float(divisor)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """Window means along the last axis; count_include_pad (torch's default)
    divides by the whole window within the padding."""
    return _avg_pool(1, "avg_pool1d", input, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """avg_pool1d over the last two axes; divisor_override divides each
    window's sum by that number instead."""
    return _avg_pool(2, "avg_pool2d", input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(3, "avg_pool3d", input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


def _adaptive_size(fn, input, rank, output_size):
    _check_rank(fn, input, rank)
    sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * rank
    if len(sizes) != rank:
        raise ValueError("{}: output_size needs {} values, got {}".format(fn, rank, len(sizes)))
    # None keeps the input's extent (torch).
    return tuple(input.shape[-rank + d] if s is None else operator.index(s) for d, s in enumerate(sizes))


def adaptive_avg_pool1d(input, output_size):
    """Means over torch's adaptive windows [floor(o S / O), ceil((o + 1) S / O))."""
    return _C.adaptive_pool(False, input, _adaptive_size("adaptive_avg_pool1d", input, 1, output_size), False)


def adaptive_avg_pool2d(input, output_size):
    return _C.adaptive_pool(False, input, _adaptive_size("adaptive_avg_pool2d", input, 2, output_size), False)


def adaptive_avg_pool3d(input, output_size):
    return _C.adaptive_pool(False, input, _adaptive_size("adaptive_avg_pool3d", input, 3, output_size), False)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    return _C.adaptive_pool(True, input, _adaptive_size("adaptive_max_pool1d", input, 1, output_size),
                            bool(return_indices))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Maxima over torch's adaptive windows; with return_indices also their
    flat positions in each plane."""
    return _C.adaptive_pool(True, input, _adaptive_size("adaptive_max_pool2d", input, 2, output_size),
                            bool(return_indices))


def adaptive_max_pool3d(input, output_size, return_indices=False):
    return _C.adaptive_pool(True, input, _adaptive_size("adaptive_max_pool3d", input, 3, output_size),
                            bool(return_indices))


def global_avg_pool(input, spatial_rank=2):
    """The mean over every spatial axis, [N, C, 1...] (Gluon's GlobalAvgPool2D)."""
    return _C.global_pool(False, input, operator.index(spatial_rank))


def global_max_pool(input, spatial_rank=2):
    return _C.global_pool(True, input, operator.index(spatial_rank))


def dropout(input, p=0.5, training=True, inplace=False, *, generator=None):
    """In training, input * keep / (1 - p) with keep(i) = u(i) >= p for the
    RANDOM_UNIFORM stream of the next seed (of generator, else of
    bp.manual_seed's sequence): every device draws the same mask for a seed.
    The input itself when not training."""
    if not 0.0 <= p <= 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    if inplace:
        raise NotImplementedError("dropout(inplace=True): the result is a new tensor; assign it instead")
    if not training:
        return input
    return _C.dropout(input, float(p), _random.next_seed(generator))


def pad(input, pad, mode="constant", value=None):
    """torch.nn.functional.pad: pad holds (before, after) pairs for the last
    axes, the last axis first; negative amounts remove elements. Modes:
    'constant' (value, 0 by default), 'reflect' and 'replicate'."""
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise ValueError("pad: {} amounts do not pair up over {} axes".format(len(pad), input.ndim))
    if mode not in _PAD_MODES:
        raise NotImplementedError("pad: mode {!r} (constant, reflect and replicate are supported)".format(mode))
    if mode != "constant" and value not in (None, 0):
        raise ValueError("pad: padding mode {!r} does not take a value".format(mode))
    before, after = [0] * input.ndim, [0] * input.ndim
    for k in range(len(pad) // 2):
        before[input.ndim - 1 - k] = operator.index(pad[2 * k])
        after[input.ndim - 1 - k] = operator.index(pad[2 * k + 1])
    return _C.pad(input, before, after, _PAD_MODES[mode], float(0 if value is None else value))


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None):
    """torch.nn.functional.interpolate for 'nearest', 'linear', 'bilinear'
    and 'trilinear': to size, or by scale_factor (size floor(S * factor),
    coordinates scaled by 1 / factor unless recompute_scale_factor)."""
    if mode not in _INTERPOLATE_MODES:
        raise NotImplementedError("interpolate: mode {!r} (nearest, linear, bilinear, trilinear)".format(mode))
    code, rank_for_mode = _INTERPOLATE_MODES[mode]
    rank = input.ndim - 2
    if rank < 1 or rank > 3:
        raise ValueError("interpolate: expected a 3-d, 4-d or 5-d input, got shape {}".format(tuple(input.shape)))
    if rank_for_mode is not None and rank != rank_for_mode:
        raise NotImplementedError("interpolate: mode {!r} needs a {}-d input, got {}-d".format(
            mode, rank_for_mode + 2, input.ndim))
    if code == 0 and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give either size or scale_factor")
    sizes = scales = None
    if size is not None:
        sizes = _tuple(size, rank, "size")
    else:
        scales = tuple(float(s) for s in scale_factor) if isinstance(scale_factor, (tuple, list)) \
            else (float(scale_factor),) * rank
        if len(scales) != rank:
            raise ValueError("interpolate: scale_factor needs {} values".format(rank))
        if recompute_scale_factor:
            sizes = tuple(int(math.floor(input.shape[2 + d] * scales[d])) for d in range(rank))
            scales = None
    return _C.interpolate(input, rank, sizes, scales, code, bool(align_corners))


__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "adaptive_max_pool3d", "global_avg_pool", "global_max_pool", "dropout", "pad",
           "interpolate"]
