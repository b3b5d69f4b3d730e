"""Fully connected layers: Linear (PyTorch), LazyLinear (input size taken
from the first input) and Dense (Gluon's spelling of the same layer)."""
from .. import _tensor
from . import functional as F
from . import init as _init
from ._weighted import WeightedLayer, activate, check_activation
from .parameter import Parameter


class Linear(WeightedLayer):
    """y = x @ weight.T + bias, weight of shape (out_features, in_features).
    Initialised as PyTorch does: weight kaiming_uniform_(a=sqrt(5)) and bias
    uniform, both within +-1/sqrt(in_features). in_features=0 makes the
    parameters on the first call (LazyLinear)."""

    # The weight initializer (an nn.init object); None: PyTorch's, above.
    _default_init = None

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self._device, self._dtype = device, dtype
        self._init = self._default_init
        self.register_parameter("weight", None)
        self.register_parameter("bias", None)
        self._has_bias = bias
        if in_features:
            self._make_parameters(in_features)

    def _make_parameters(self, in_features):
        self.in_features = in_features
        self.weight = Parameter(_tensor.empty(self.out_features, in_features, dtype=self._dtype,
                                              device=self._device))
        if self._has_bias:
            self.bias = Parameter(_tensor.empty(self.out_features, dtype=self._dtype,
                                                device=self._device))
        self.reset_parameters()

    def forward(self, x):
        if self.weight is None:
            self._make_parameters(x.shape[-1])
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self):
        return "in_features={}, out_features={}, bias={}".format(
            self.in_features, self.out_features, self._has_bias)


class LazyLinear(Linear):
    """Linear whose in_features is the last extent of its first input; its
    parameters exist from that call on, on the device given to the
    constructor or to module.to() (else the current default device)."""

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, out_features, bias, device, dtype)


class Dense(Linear):
    """Gluon's nn.Dense(units, activation=None, use_bias=True, flatten=True,
    in_units=0): a Linear layer followed by the activation ('relu',
    'sigmoid', 'tanh'), flattening inputs of more than two axes first; the
    input size is inferred when in_units is 0. Gluon's initialisation:
    weight Uniform(0.07), bias zeros, unless initialize(init=...) says."""

    _default_init = _init.Uniform()

    def __init__(self, units, activation=None, use_bias=True, flatten=True, in_units=0,
                 device=None, dtype=None):
        check_activation(activation)
        super().__init__(in_units, units, use_bias, device, dtype)
        self.activation, self.flatten = activation, flatten

    def forward(self, x):
        if self.flatten and x.ndim > 2:
            x = x.reshape(x.shape[0], -1)
        return activate(self.activation, super().forward(x))

    def extra_repr(self):
        return "{} -> {}, {}".format(self.in_features or None, self.out_features,
                                     self.activation or "linear")
