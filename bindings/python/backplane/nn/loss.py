"""Losses as modules: MSELoss and CrossEntropyLoss."""
from . import functional as F
from ._cross_entropy import _legacy_reduction
from .module import Module


class MSELoss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, target):
        return F.mse_loss(input, target, self.reduction)


class CrossEntropyLoss(Module):
    """F.cross_entropy(input, target, ...) as a layer, with PyTorch's
    arguments: class weight, ignore_index (-100), reduction ("mean") and
    label_smoothing (0.0); class-index or class-probability targets, inputs
    [N, C], [N, C, d1, ...] or [C] (F.cross_entropy says how each counts).
    size_average and reduce are PyTorch's deprecated spellings of
    reduction."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                 label_smoothing=0.0):
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = _legacy_reduction(size_average, reduce)
        self.weight, self.ignore_index = weight, ignore_index
        self.reduction, self.label_smoothing = reduction, label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)
