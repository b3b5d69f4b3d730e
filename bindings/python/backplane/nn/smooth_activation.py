"""GELU and SiLU, the smooth activations of transformer MLPs, as functions
(nn.functional.gelu, silu) and layers (nn.GELU, nn.SiLU): compositions of
the recorded operators in torch 1.13's order of operations, so values
agree with PyTorch's to float32 rounding and the gradients come from
autograd on every device."""
import math

from .module import Module

_SQRT1_2 = math.sqrt(0.5)
_TANH_BETA = math.sqrt(2.0 / math.pi)  # PyTorch's kBeta: M_SQRT2 * M_2_SQRTPI * 0.5
_TANH_KAPPA = 0.044715


def gelu(input, approximate="none"):
    """x * Phi(x), Phi the standard normal CDF: exactly x * 0.5 * (1 +
    erf(x / sqrt(2))) through the ERF operator (approximate='none'), or
    PyTorch's tanh form 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 *
    x**3))) (approximate='tanh')."""
    if approximate == "none":
        return input * 0.5 * ((input * _SQRT1_2).erf() + 1.0)
    if approximate == "tanh":
        inner = (input + input * input * input * _TANH_KAPPA) * _TANH_BETA
        return input * 0.5 * (inner.tanh() + 1.0)
    raise ValueError("gelu: approximate is 'none' or 'tanh', not {!r}".format(approximate))


def _in_place(input, result):
    """result written into input (PyTorch's inplace=True), which is returned."""
    input.copy_(result)
    return input


def silu(input, inplace=False):
    """x * sigmoid(x) (the swish). With inplace the result is written into
    input, whose writes follow the package's in-place rules (a tensor that
    requires gradients is written only under bp.no_grad())."""
    result = input * input.sigmoid()
    return _in_place(input, result) if inplace else result


class GELU(Module):
    """gelu(x, approximate) as a layer: 'none' (exact, erf) or 'tanh'."""

    def __init__(self, approximate="none"):
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError("GELU: approximate is 'none' or 'tanh', not {!r}".format(approximate))
        self.approximate = approximate

    def forward(self, input):
        return gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return "approximate={!r}".format(self.approximate)


class SiLU(Module):
    """silu(x) = x * sigmoid(x) as a layer."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return silu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""
