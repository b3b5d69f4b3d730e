"""Functions of the layers and losses (torch.nn.functional's spellings):
differentiable compositions of the recorded operators, so they run on the
device of their inputs and backward() goes through them."""
from .. import _composite, _tensor
from ._normalization_functional import batch_norm, group_norm, layer_norm, rms_norm  # noqa: F401
from ._attention_fn import scaled_dot_product_attention  # noqa: F401  (torch.nn.functional's name)


def linear(x, weight, bias=None):
    """x @ weight.T + bias (the transpose is matmul's flag, not a copy)."""
    y = _tensor.matmul(x, weight, transpose_b=True)
    return y if bias is None else y + bias


def relu(x):
    return x.relu()


def sigmoid(x):
    return x.sigmoid()


def tanh(x):
    return x.tanh()


def softmax(x, dim=-1):
    return _composite.softmax(x, axis=dim)


def log_softmax(x, dim=-1):
    """x - logsumexp(x) along dim: the LOGSUMEXP reduction subtracts the
    maximum first, so there is no exp of a large x and no log of 0."""
    return x - x.logsumexp(axis=dim, keepdims=True)


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError("reduction must be 'mean', 'sum' or 'none', not {!r}".format(reduction))


def mse_loss(input, target, reduction="mean"):
    """The squared differences, averaged (or summed, or as they are)."""
    return _reduce((input - target).square(), reduction)


def cross_entropy(input, target, reduction="mean"):
    """-log softmax(input)[i, target[i]] for logits input of shape (N, C) and
    class indices target (int64, shape (N,)) on input's device, averaged
    over the N rows (or summed, or as they are). The picked log-probabilities
    are read with gather_nd, whose gradient scatters back into their rows."""
    if input.ndim != 2 or target.ndim != 1 or target.shape[0] != input.shape[0]:
        raise ValueError("cross_entropy: logits (N, C) and class indices (N,), not {} and {}"
                         .format(input.shape, target.shape))
    rows = _tensor.arange(input.shape[0], device=input.device)
    return _reduce(-log_softmax(input, dim=1)[rows, target], reduction)
