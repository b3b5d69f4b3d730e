"""What the layers of a weight and an optional bias (Linear and Dense, the
convolutions) share: PyTorch's initialisation or, in its place, a Gluon
initializer object, and Gluon's activation argument."""
import math

from . import functional as F
from . import init as _init
from .module import Module

_ACTIVATIONS = {None: None, "relu": F.relu, "sigmoid": F.sigmoid, "tanh": F.tanh}


def check_activation(activation):
    """Gluon's activation: None, 'relu', 'sigmoid' or 'tanh'."""
    if activation not in _ACTIVATIONS:
        raise ValueError("activation must be one of {}, not {!r}".format(
            [a for a in _ACTIVATIONS if a], activation))


def activate(activation, y):
    act = _ACTIVATIONS[activation]
    return y if act is None else act(y)


class WeightedLayer(Module):
    """A layer of self.weight (None while a lazy layer waits for its first
    input) and self.bias (None without one), initialised by self._init: None
    for PyTorch's initialisation, else an nn.init object for the weight and
    zeros for the bias, as Gluon's initialize(init=...)."""

    def reset_parameters(self):
        """PyTorch's: weight kaiming_uniform_(a=sqrt(5)), the bias uniform in
        +-1/sqrt(fan_in), fan_in = weight.shape[1] * prod(kernel_size)."""
        if self._init is not None:
            Module._initialize(self, self._init)
            return
        _init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = _init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            _init.uniform_(self.bias, -bound, bound)

    def _initialize(self, init):
        self._init = init
        if self.weight is not None:
            self.reset_parameters()
