"""nn.functional.cross_entropy with PyTorch 1.13's arguments and formulas
(class indices with weight, ignore_index and label smoothing, class
probabilities, [N, C], [N, C, d1, ...] and unbatched [C] inputs): made of
nn.functional.log_softmax, looked up by name at each call, and the
recorded operators, so it runs on the input's device and differentiates
through them."""
from .. import _errors
from .._tensor import Tensor, where
from . import functional as F


def _legacy_reduction(size_average, reduce):
    """PyTorch's _Reduction.legacy_get_string for the deprecated arguments."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        return "mean"
    return "sum" if reduce else "none"


def _class_weight(weight, input, class_dim, n_classes):
    """weight (C,) shaped to broadcast along input's class axis."""
    shape = [1] * input.ndim
    shape[class_dim] = n_classes
    return weight.reshape(*shape)


def _probabilities(logp, target, weight, class_dim, n_classes, reduction, label_smoothing):
    if not target.dtype.kind == "f":
        raise TypeError("cross_entropy: a target of the input's shape holds class probabilities and "
                        "must be a float tensor, not {}".format(target.dtype))
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    terms = logp * target
    if weight is not None:
        terms = terms * _class_weight(weight, logp, class_dim, n_classes)
    if reduction == "none":
        return -terms.sum(axis=class_dim)
    if reduction == "sum":
        return -terms.sum()
    count = logp.numel() // n_classes
    return -terms.sum() / count if count else terms.sum() * float("nan")


def _class_indices(logp, target, weight, class_dim, n_classes, ignore_index, reduction, label_smoothing):
    if target.dtype.kind not in "iu":
        raise TypeError("cross_entropy: class indices must be an integer tensor, not {} (class "
                        "probabilities have the input's shape)".format(target.dtype))
    expected = logp.shape[:class_dim] + logp.shape[class_dim + 1:]
    if tuple(target.shape) != tuple(expected):
        raise ValueError("cross_entropy: input of shape {} takes class indices of shape {}, not {}".format(
            logp.shape, expected, target.shape))
    keep = target != ignore_index
    # Ignored positions read class 0; a negative index (which indexing would
    # count from the end) reads one past the classes, which indexing refuses.
    safe = where(keep, where(target < 0, n_classes, target), 0)
    try:
        picked = logp.gather(class_dim, safe.unsqueeze(class_dim)).squeeze(class_dim)
        target_weight = None if weight is None else weight[safe]
    except _errors.IndexError as e:
        raise type(e)("cross_entropy: a target is outside the {} classes (0..{}) and is not ignore_index "
                      "{}: {}".format(n_classes, n_classes - 1, ignore_index, e.message),
                      status=e.status, code=e.code) from None
    if target_weight is not None:
        picked = picked * target_weight
    nll = where(keep, -picked, 0.0)
    if reduction == "mean":
        denominator = keep.sum() if weight is None else where(keep, target_weight, 0.0).sum()

    def reduced(per_position):
        if reduction == "none":
            return per_position
        return per_position.sum() if reduction == "sum" else per_position.sum() / denominator

    loss = reduced(nll)
    if label_smoothing <= 0:
        return loss
    terms = logp if weight is None else logp * _class_weight(weight, logp, class_dim, n_classes)
    smoothed = reduced(where(keep, -terms.sum(axis=class_dim), 0.0))
    return loss * (1 - label_smoothing) + smoothed * (label_smoothing / n_classes)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """The cross-entropy of logits input against target, as PyTorch 1.13
    computes it (torch.nn.functional.cross_entropy):

    - input is [N, C], [N, C, d1, ...] (the class axis second) or [C]
      (one unbatched sample); log-probabilities are F.log_softmax(input)
      along the class axis.
    - target holds class indices (an integer tensor of input's shape
      without the class axis; ignore_index marks positions that count for
      nothing, also in the mean's denominator) or class probabilities (a
      float tensor of input's shape).
    - weight (C,) weighs each class; with class indices a "mean" divides by
      the summed weights of the targets, as PyTorch does.
    - label_smoothing in [0, 1] mixes the target with the uniform
      distribution over the C classes.
    - reduction: "mean", "sum" or "none" (size_average and reduce are
      PyTorch's deprecated spellings of it, mapped as PyTorch maps them).

    All classes ignored gives NaN for "mean" (0 / 0), as in PyTorch. A
    class index outside [0, C) that is not ignore_index raises IndexError."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError("cross_entropy: reduction must be 'mean', 'sum' or 'none', not {!r}".format(reduction))
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError("cross_entropy: label_smoothing must be between 0.0 and 1.0, not {}".format(
            label_smoothing))
    if not isinstance(input, Tensor) or not isinstance(target, Tensor):
        raise TypeError("cross_entropy: input and target are tensors")
    if input.ndim == 0:
        raise ValueError("cross_entropy: input has no class axis (a 0-d tensor)")
    class_dim = 0 if input.ndim == 1 else 1
    n_classes = input.shape[class_dim]
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != n_classes):
        raise ValueError("cross_entropy: weight must be a 1-D tensor of the {} classes, not of shape {}".format(
            n_classes, weight.shape))
    logp = F.log_softmax(input, dim=class_dim)
    if tuple(target.shape) == tuple(input.shape) and target.dtype.kind == "f":
        if ignore_index >= 0:
            raise ValueError("cross_entropy: ignore_index is not supported for class-probability targets")
        return _probabilities(logp, target, weight, class_dim, n_classes, reduction, label_smoothing)
    return _class_indices(logp, target, weight, class_dim, n_classes, ignore_index, reduction, label_smoothing)
