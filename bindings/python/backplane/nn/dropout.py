"""Dropout: torch.nn.Dropout(p=0.5) and Gluon's nn.Dropout(rate), one layer.
Active in training mode (Module.train(), the default), the identity in
evaluation mode (Module.eval()); each call draws a new mask from the next
seed of bp.manual_seed's sequence."""
from . import _spatial as F
from .module import Module


class Dropout(Module):
    def __init__(self, p=0.5, inplace=False, *, rate=None):
        super().__init__()
        p = p if rate is None else rate
        if not 0.0 <= p <= 1.0:
            raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
        self.p, self.inplace = float(p), inplace

    def forward(self, x):
        return F.dropout(x, self.p, self.training, self.inplace)

    def extra_repr(self):
        return "p={}, inplace={}".format(self.p, self.inplace)
