"""Normalisation layers over the last axes or over groups of channels:
LayerNorm, RMSNorm (PyTorch 2.4's) and GroupNorm, with torch.nn's arguments
and defaults, over the core's LAYER_NORM and RMS_NORM operators."""
import operator

from .. import _tensor
from . import functional as F
from .module import Module
from .parameter import Parameter


def _shape(normalized_shape):
    if isinstance(normalized_shape, int):
        return (operator.index(normalized_shape),)
    return tuple(operator.index(s) for s in normalized_shape)


class LayerNorm(Module):
    """y = (x - mean) / sqrt(var + eps) * weight + bias over the last
    len(normalized_shape) axes of x, which must be normalized_shape;
    weight (ones) and bias (zeros) of that shape when elementwise_affine
    (bias=False: no bias)."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self.register_parameter("weight", None)
        self.register_parameter("bias", None)
        if elementwise_affine:
            self.weight = Parameter(_tensor.ones(self.normalized_shape, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(_tensor.zeros(self.normalized_shape, dtype=dtype, device=device))

    def reset_parameters(self):
        if self.weight is not None:
            self.weight.fill_(1.0)
        if self.bias is not None:
            self.bias.fill_(0.0)

    def _initialize(self, init):
        pass  # Gluon's initialize(init=...) leaves the scale at 1 and the shift at 0

    def forward(self, x):
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "{}, eps={}, elementwise_affine={}".format(self.normalized_shape, self.eps, self.elementwise_affine)


class RMSNorm(Module):
    """y = x / sqrt(mean(x**2) + eps) * weight over the last
    len(normalized_shape) axes (PyTorch 2.4's nn.RMSNorm); eps None is the
    machine epsilon of x's dtype; weight (ones) when elementwise_affine."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self.register_parameter("weight", None)
        if elementwise_affine:
            self.weight = Parameter(_tensor.ones(self.normalized_shape, dtype=dtype, device=device))

    def reset_parameters(self):
        if self.weight is not None:
            self.weight.fill_(1.0)

    def _initialize(self, init):
        pass

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return "{}, eps={}, elementwise_affine={}".format(self.normalized_shape, self.eps, self.elementwise_affine)


class GroupNorm(Module):
    """x (N, C, *) with its num_channels channels in num_groups groups, each
    group of each sample normalised over its channels and spatial elements,
    then weight (ones) and bias (zeros) per channel when affine."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("GroupNorm: num_channels ({}) must be divisible by num_groups ({})"
                             .format(num_channels, num_groups))
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        self.register_parameter("weight", None)
        self.register_parameter("bias", None)
        if affine:
            self.weight = Parameter(_tensor.ones(num_channels, dtype=dtype, device=device))
            self.bias = Parameter(_tensor.zeros(num_channels, dtype=dtype, device=device))

    def reset_parameters(self):
        if self.affine:
            self.weight.fill_(1.0)
            self.bias.fill_(0.0)

    def _initialize(self, init):
        pass

    def forward(self, x):
        return F.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "{}, {}, eps={}, affine={}".format(self.num_groups, self.num_channels, self.eps, self.affine)
