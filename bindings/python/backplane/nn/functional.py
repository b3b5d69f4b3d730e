"""Functions of the layers and losses (torch.nn.functional's spellings):
differentiable compositions of the recorded operators, so they run on the
device of their inputs and backward() goes through them."""
import warnings

from .. import _softmax, _tensor
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


def _implicit_dim(name, ndim, stacklevel):
    """PyTorch's choice for a softmax called without dim (deprecated there
    too): dim 0 for 0-, 1- and 3-D inputs, else 1."""
    warnings.warn("Implicit dimension choice for {} has been deprecated. Change the call to include "
                  "dim=X as an argument.".format(name), stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x - m) / sum(exp(x - m)) along dim (bp.softmax: the SOFTMAX
    operator); dtype casts the input first."""
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim, _stacklevel)
    return _softmax.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """(x - m) - log(sum(exp(x - m))) along dim (bp.log_softmax: the
    LOG_SOFTMAX operator); dtype casts the input first."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim, _stacklevel)
    return _softmax.log_softmax(input, dim, dtype)


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
