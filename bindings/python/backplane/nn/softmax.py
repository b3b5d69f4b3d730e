"""nn.Softmax and nn.LogSoftmax (torch.nn's): the functions of
nn.functional over a fixed dim."""
from . import functional as F
from .module import Module


class Softmax(Module):
    """softmax along dim (None: PyTorch's legacy choice, with its warning)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return "dim={}".format(self.dim)


class LogSoftmax(Module):
    """log_softmax along dim (None: PyTorch's legacy choice, with its warning)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return "dim={}".format(self.dim)
