"""nn.Softmax and nn.LogSoftmax (torch.nn's): the functions of
nn.functional over a fixed dim."""
from . import functional as F
from .module import Module


class _AlongDim(Module):
    """nn.functional's function of the name _function along dim (None:
    PyTorch's legacy choice, with its warning), looked up at each call."""

    _function = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return getattr(F, self._function)(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return "dim={}".format(self.dim)


class Softmax(_AlongDim):
    """softmax along dim (None: PyTorch's legacy choice, with its warning)."""

    _function = "softmax"


class LogSoftmax(_AlongDim):
    """log_softmax along dim (None: PyTorch's legacy choice, with its warning)."""

    _function = "log_softmax"
