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


# The training kit of transformers (1.6): embedding, the smooth
# activations and cross_entropy, each in the module of its layer.
from .sparse import embedding  # noqa: E402
from .smooth_activation import gelu, silu  # noqa: E402
from ._cross_entropy import cross_entropy  # noqa: E402
