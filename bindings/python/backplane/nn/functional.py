"""Functions of the layers and losses (torch.nn.functional's spellings):
differentiable compositions of the recorded operators, so they run on the
device of their inputs and backward() goes through them."""
import warnings

from .. import _C, _softmax, _tensor
from ._normalization_functional import batch_norm, group_norm, layer_norm, rms_norm  # noqa: F401
from ._attention_fn import scaled_dot_product_attention  # noqa: F401  (torch.nn.functional's name)
from ._spatial import (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d,  # noqa: F401
                       adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool3d, avg_pool1d, avg_pool2d,
                       avg_pool3d, dropout, interpolate, max_pool1d, max_pool2d, max_pool3d, pad)


def linear(x, weight, bias=None):
    """x @ weight.T + bias (the transpose is matmul's flag, not a copy)."""
    y = _tensor.matmul(x, weight, transpose_b=True)
    return y if bias is None else y + bias


def relu(x):
    return x.relu()


def sigmoid(x):
    return x.sigmoid()


def tanh(x):
    return x.tanh()


def _implicit_dim(name, ndim, stacklevel):
    """PyTorch's choice for a softmax called without dim (deprecated there
    too): dim 0 for 0-, 1- and 3-D inputs, else 1."""
    warnings.warn("Implicit dimension choice for {} has been deprecated. Change the call to include "
                  "dim=X as an argument.".format(name), stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x - m) / sum(exp(x - m)) along dim (bp.softmax: the SOFTMAX
    operator); dtype casts the input first."""
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim, _stacklevel)
    return _softmax.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """(x - m) - log(sum(exp(x - m))) along dim (bp.log_softmax: the
    LOG_SOFTMAX operator); dtype casts the input first."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim, _stacklevel)
    return _softmax.log_softmax(input, dim, dtype)


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError("reduction must be 'mean', 'sum' or 'none', not {!r}".format(reduction))


def mse_loss(input, target, reduction="mean"):
    """The squared differences, averaged (or summed, or as they are)."""
    return _reduce((input - target).square(), reduction)


# The training kit of transformers (1.6): embedding, the smooth
# activations and cross_entropy, each in the module of its layer.
from .sparse import embedding  # noqa: E402
from .smooth_activation import gelu, silu  # noqa: E402
from ._cross_entropy import cross_entropy  # noqa: E402


# ---- convolution (since 1.6) ---------------------------------------------------------------

def _ntuple(value, n, name):
    """torch's int-or-tuple argument as a tuple of n ints."""
    if isinstance(value, int):
        return (value,) * n
    t = tuple(value)
    if len(t) == 1:
        t = t * n
    if len(t) != n or not all(isinstance(v, int) for v in t):
        raise ValueError("{} must be an int or a tuple of {} ints, not {!r}".format(name, n, value))
    return t


def _padding(padding, kernel, stride, dilation, n):
    """Padding before and after each spatial axis from torch's argument: an
    int, a tuple, 'valid' (none) or 'same' (the output as long as the input:
    dilation * (kernel - 1) zeros in all, the odd one after, as torch puts
    it; stride 1 only, as in torch)."""
    if isinstance(padding, str):
        if padding == "valid":
            return (0,) * n, (0,) * n
        if padding == "same":
            if any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            total = [d * (k - 1) for d, k in zip(dilation, kernel)]
            return tuple(t // 2 for t in total), tuple(t - t // 2 for t in total)
        raise ValueError("Invalid padding string {!r}, should be one of {{'valid', 'same'}}".format(padding))
    p = _ntuple(padding, n, "padding")
    return p, p


def _conv(n, name, input, weight, bias, stride, padding, dilation, groups, transposed=False,
          output_padding=0):
    """conv<n>d and conv_transpose<n>d: input (N, C, *spatial) or, as torch
    allows, unbatched (C, *spatial)."""
    if weight.ndim != n + 2:
        raise ValueError("{}: weight must have {} dimensions (out, in / groups, *kernel), not shape {}"
                         .format(name, n + 2, tuple(weight.shape)))
    unbatched = input.ndim == n + 1
    if unbatched:
        input = input.reshape(1, *input.shape)
    elif input.ndim != n + 2:
        raise ValueError("{}: expected a {}-D (unbatched) or {}-D (batched) input, not shape {}"
                         .format(name, n + 1, n + 2, tuple(input.shape)))
    stride, dilation = _ntuple(stride, n, "stride"), _ntuple(dilation, n, "dilation")
    before, after = _padding(padding, weight.shape[2:], stride, dilation, n)
    y = _C.conv(input, weight, bias, stride, before, after, dilation,
                _ntuple(output_padding, n, "output_padding"), groups, transposed)
    return y.reshape(*y.shape[1:]) if unbatched else y


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """torch.nn.functional.conv1d: input (N, C_in, L), weight (C_out, C_in / groups, K)."""
    return _conv(1, "conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """torch.nn.functional.conv2d: input (N, C_in, H, W), weight (C_out, C_in / groups, kH, kW);
    padding an int, a pair, 'valid' or 'same'."""
    return _conv(2, "conv2d", input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """torch.nn.functional.conv3d: input (N, C_in, D, H, W)."""
    return _conv(3, "conv3d", input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """torch.nn.functional.conv_transpose1d: weight (C_in, C_out / groups, K)."""
    return _conv(1, "conv_transpose1d", input, weight, bias, stride, padding, dilation, groups, True,
                 output_padding)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """torch.nn.functional.conv_transpose2d: input (N, C_in, H, W), weight (C_in, C_out / groups, kH, kW);
    the output is (H - 1) stride - 2 padding + dilation (kH - 1) + output_padding + 1 high."""
    return _conv(2, "conv_transpose2d", input, weight, bias, stride, padding, dilation, groups, True,
                 output_padding)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """torch.nn.functional.conv_transpose3d."""
    return _conv(3, "conv_transpose3d", input, weight, bias, stride, padding, dilation, groups, True,
                 output_padding)
