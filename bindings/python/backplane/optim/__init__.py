"""backplane.optim: SGD, Adam and AdamW, shaped like torch.optim, and the
learning-rate schedules of torch.optim.lr_scheduler. A step updates the
parameters in place on their devices, with grad mode off, and allocates
nothing after the first (which makes the state)."""
from . import lr_scheduler
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler"]
