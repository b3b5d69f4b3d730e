"""Losses as modules: MSELoss and CrossEntropyLoss (class-index targets)."""
from . import functional as F
from .module import Module


class MSELoss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, target):
        return F.mse_loss(input, target, self.reduction)


class CrossEntropyLoss(Module):
    """Softmax cross-entropy of logits (N, C) against class indices (N,),
    int64 on the logits' device; no class weights, label smoothing or
    probability targets."""

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, target):
        return F.cross_entropy(input, target, self.reduction)
