"""Initialisers: PyTorch's in-place functions (uniform_, normal_, xavier_uniform_,
kaiming_uniform_, ...) and Gluon's initializer objects (Normal, Uniform,
Xavier, Zero, One, Constant) for net.initialize(init=...).

They write into the tensor in place with grad mode off (a parameter requires
gradients, so the write must not be recorded) and draw from bp.random, whose
seed sequence bp.manual_seed restarts: the same seed gives the same weights
on every device."""
import math

from .. import random
from .._grad_mode import no_grad


def _fill_from(t, sample):
    with no_grad():
        return t.copy_(sample)


def uniform_(tensor, a=0.0, b=1.0):
    """Samples from [a, b)."""
    return _fill_from(tensor, random.uniform(a, b, tensor.shape, dtype=tensor.dtype,
                                             device=tensor.device))


def normal_(tensor, mean=0.0, std=1.0):
    """Samples from N(mean, std**2)."""
    return _fill_from(tensor, random.normal(mean, std, tensor.shape, dtype=tensor.dtype,
                                            device=tensor.device))


def constant_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def zeros_(tensor):
    return constant_(tensor, 0.0)


def ones_(tensor):
    return constant_(tensor, 1.0)


def _calculate_fan_in_and_fan_out(tensor):
    """PyTorch's fans: a weight is (out, in, *kernel)."""
    if tensor.ndim < 2:
        raise ValueError("fan in and fan out need a tensor of 2 or more dimensions, not {}"
                         .format(tensor.ndim))
    receptive = 1
    for n in tensor.shape[2:]:
        receptive *= n
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def calculate_gain(nonlinearity, param=None):
    """The gain PyTorch recommends for a nonlinearity (linear, sigmoid, tanh,
    relu, leaky_relu with negative slope param, default 0.01)."""
    if nonlinearity in ("linear", "sigmoid"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope ** 2))
    raise ValueError("unsupported nonlinearity {!r}".format(nonlinearity))


def xavier_uniform_(tensor, gain=1.0):
    """Glorot: uniform in +-gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound)


def xavier_normal_(tensor, gain=1.0):
    """Glorot: N(0, gain**2 * 2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)))


def _kaiming_std(tensor, a, mode, nonlinearity):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    if mode not in ("fan_in", "fan_out"):
        raise ValueError("mode must be 'fan_in' or 'fan_out', not {!r}".format(mode))
    return calculate_gain(nonlinearity, a) / math.sqrt(fan_in if mode == "fan_in" else fan_out)


def kaiming_uniform_(tensor, a=0.0, mode="fan_in", nonlinearity="leaky_relu"):
    """He: uniform in +-sqrt(3) * gain / sqrt(fan). Linear's default is
    a=sqrt(5), which makes the bound 1 / sqrt(fan_in)."""
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor, a=0.0, mode="fan_in", nonlinearity="leaky_relu"):
    """He: N(0, (gain / sqrt(fan))**2)."""
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity))


# ---- Gluon's initializer objects: net.initialize(init=nn.init.Normal(0.01)) ----
# Called with a weight, they fill it; initialize() sets biases to zero.

class Normal:
    def __init__(self, sigma=0.01):
        self.sigma = sigma

    def __call__(self, tensor):
        return normal_(tensor, 0.0, self.sigma)


class Uniform:
    """Uniform in [-scale, scale) (Gluon's default initializer, scale 0.07)."""

    def __init__(self, scale=0.07):
        self.scale = scale

    def __call__(self, tensor):
        return uniform_(tensor, -self.scale, self.scale)


class Constant:
    def __init__(self, value):
        self.value = value

    def __call__(self, tensor):
        return constant_(tensor, self.value)


class Zero(Constant):
    def __init__(self):
        super().__init__(0.0)


class One(Constant):
    def __init__(self):
        super().__init__(1.0)


class Xavier:
    """Gluon's Xavier: scale sqrt(magnitude / factor), factor the fan_in,
    fan_out or their average; uniform in +-scale or N(0, scale**2). The
    defaults are Glorot's uniform (xavier_uniform_)."""

    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        if rnd_type not in ("uniform", "gaussian"):
            raise ValueError("rnd_type must be 'uniform' or 'gaussian'")
        if factor_type not in ("avg", "in", "out"):
            raise ValueError("factor_type must be 'avg', 'in' or 'out'")
        self.rnd_type, self.factor_type, self.magnitude = rnd_type, factor_type, magnitude

    def __call__(self, tensor):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
        factor = {"avg": (fan_in + fan_out) / 2.0, "in": fan_in, "out": fan_out}[self.factor_type]
        scale = math.sqrt(self.magnitude / factor)
        if self.rnd_type == "uniform":
            return uniform_(tensor, -scale, scale)
        return normal_(tensor, 0.0, scale)
