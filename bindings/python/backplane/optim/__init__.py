"""backplane.optim: SGD and Adam, shaped like torch.optim. A step updates
the parameters in place on their devices, with grad mode off, and allocates
nothing after the first (which makes the state)."""
from .adam import Adam
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam"]
