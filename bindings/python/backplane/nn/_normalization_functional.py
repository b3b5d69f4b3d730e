"""The normalisations of torch.nn.functional (layer_norm, rms_norm,
group_norm, batch_norm), over the core's LAYER_NORM and RMS_NORM operators
and its group and batch norm composites (backplane.h): they run on the
inputs' device and record their gradients."""
import operator

from .. import _C
from .._errors import ShapeError

# torch.finfo(dtype).eps of each float dtype; integers compute in float64.
_EPSILON = {"float32": 2.0 ** -23, "float64": 2.0 ** -52, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


def _normalized_axes(fn, input, normalized_shape):
    """How many trailing axes normalized_shape names (an int or a sequence),
    after checking they are input's last extents, as PyTorch does."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    shape = tuple(operator.index(s) for s in shape)
    n = len(shape)
    if n == 0 or n > input.ndim or tuple(input.shape[input.ndim - n:]) != shape:
        raise ShapeError("{}: normalized_shape {} is not the last extents of the input of shape {}"
                         .format(fn, list(shape), list(input.shape)))
    return n


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """(input - mean) / sqrt(var + eps) * weight + bias over the last
    len(normalized_shape) axes (the biased variance), as torch's layer_norm;
    the statistics in float32 for float16 and bfloat16 inputs."""
    axes = _normalized_axes("layer_norm", input, normalized_shape)
    return _C.layer_norm(input, weight, bias, axes, float(eps), False)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """input / sqrt(mean(input**2) + eps) * weight over the last
    len(normalized_shape) axes, as torch's rms_norm (PyTorch 2.4); eps None
    is the machine epsilon of input's dtype (torch.finfo(dtype).eps)."""
    axes = _normalized_axes("rms_norm", input, normalized_shape)
    if eps is None:
        eps = _EPSILON.get(input.dtype.name, _EPSILON["float64"])
    return _C.rms_norm(input, weight, None, axes, float(eps), False)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """torch's group_norm: input (N, C, *) with its C channels in
    num_groups groups, each group of each sample normalised over its
    channels and spatial elements, then scaled and shifted per channel."""
    return _C.group_norm(input, operator.index(num_groups), weight, bias, float(eps))


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-5):
    """torch's batch_norm over input (N, C, *): in training, each channel's
    mean and biased variance over every other axis, and running_mean and
    running_var (when given) updated in place with momentum and the
    unbiased variance; otherwise the running statistics."""
    return _C.batch_norm(input, running_mean, running_var, weight, bias, bool(training), float(momentum),
                         float(eps))
