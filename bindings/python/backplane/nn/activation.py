"""Layers without parameters: the activations and Flatten."""
from . import functional as F
from .module import Module


class ReLU(Module):
    def forward(self, x):
        return F.relu(x)


class Sigmoid(Module):
    def forward(self, x):
        return F.sigmoid(x)


class Tanh(Module):
    def forward(self, x):
        return F.tanh(x)


class Flatten(Module):
    """Merges axes start_dim..end_dim into one (by default all but the
    first, the batch): a view where the strides allow."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x):
        shape = x.shape
        start, end = self.start_dim % len(shape), self.end_dim % len(shape)
        return x.reshape(*shape[:start], -1, *shape[end + 1:])

    def extra_repr(self):
        return "start_dim={}, end_dim={}".format(self.start_dim, self.end_dim)
