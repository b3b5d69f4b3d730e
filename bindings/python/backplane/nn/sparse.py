"""Embedding: rows of a weight matrix looked up by integer index
(nn.functional.embedding and the nn.Embedding layer, torch.nn's sparse
module). The lookup is the C API's indexing (bp_index: weight[input]), so
its gradient is a scatter-add of the output's gradient into the rows read,
repeated indices adding up, on the weight's device."""
from .. import _C
from .._errors import IndexError as _BpIndexError
from .._grad_mode import no_grad
from .._tensor import Tensor, empty, ones, where, zeros
from . import init as _init
from .module import Module
from .parameter import Parameter


def _padding_index(padding_idx, num_embeddings):
    """padding_idx as a row number (PyTorch's rule: -1 is the last row)."""
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise ValueError("embedding: padding_idx {} must be within num_embeddings {} (from {} to {})".format(
            padding_idx, num_embeddings, -num_embeddings, num_embeddings - 1))
    return padding_idx % num_embeddings


def _row_norms(rows, norm_type):
    """The norm_type-norm of each row of a 2-D tensor (torch.norm's p)."""
    magnitude = rows.abs()
    if norm_type == float("inf"):
        return magnitude.max(axis=1)
    if norm_type == 2:
        return rows.norm(axis=1)
    if norm_type == 1:
        return magnitude.sum(axis=1)
    return (magnitude ** norm_type).sum(axis=1) ** (1.0 / norm_type)


def _renorm_(weight, index, max_norm, norm_type):
    """PyTorch's embedding_renorm_: each row input names whose norm exceeds
    max_norm is scaled in place to max_norm / (norm + 1e-7) times itself.
    A row named twice is written twice with the same values."""
    with no_grad():
        flat = _C.reshape(index, (-1,))
        rows = weight[flat]
        norms = _row_norms(rows, norm_type)
        scale = where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[flat] = rows * scale.reshape(-1, 1)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """weight[input]: for integer indices input of any shape, the rows of
    weight (num_embeddings, embedding_dim), shaped input.shape +
    (embedding_dim,). The row padding_idx (if given; negative counts from
    the end) gets no gradient; with max_norm, the rows input names are first
    renormalised in place to at most that norm_type-norm; with
    scale_grad_by_freq, each row's gradient is divided by how often input
    names it. An index outside [0, num_embeddings) raises IndexError, as in
    PyTorch (a negative one too: no counting from the end)."""
    if sparse:
        raise NotImplementedError("embedding(sparse=True): Backplane has no sparse tensors; the "
                                  "gradient is a dense scatter-add")
    if not isinstance(input, Tensor) or input.dtype.kind not in "iu":
        raise TypeError("embedding: the indices must be an integer tensor, not {}".format(
            input.dtype if isinstance(input, Tensor) else type(input).__name__))
    if weight.ndim != 2:
        raise ValueError("embedding: weight must be 2-D (num_embeddings, embedding_dim), not of shape "
                         "{}".format(weight.shape))
    n = weight.shape[0]
    padding_idx = _padding_index(padding_idx, n)
    if max_norm is not None:
        _renorm_(weight, input, max_norm, norm_type)
    # Negative indices count from the end in NumPy's indexing, not here.
    index = where(input < 0, n, input) if input.dtype.kind == "i" else input
    try:
        out = weight[index]
    except _BpIndexError as e:
        raise IndexError("embedding: index out of range in self: the indices must be in [0, {}) "
                         "({})".format(n, e.message)) from None
    if padding_idx is not None:
        out = where((input != padding_idx).reshape(*input.shape, 1), out, out.detach())
    if scale_grad_by_freq:
        flat = _C.reshape(index, (-1,))
        with no_grad():
            counts = _C.index_put(zeros(n, dtype=weight.dtype, device=weight.device), [flat],
                                  ones(flat.shape[0], dtype=weight.dtype, device=weight.device), True)
            scale = (1.0 / counts[index]).reshape(*input.shape, 1)
        # The values stay out's exactly (a - a is 0); the gradient is scaled.
        scaled = out * scale
        out = out.detach() + (scaled - scaled.detach())
    return out


class Embedding(Module):
    """A lookup table of num_embeddings vectors of embedding_dim (torch's
    nn.Embedding): forward(input) is embedding(input, self.weight, ...).
    The weight starts N(0, 1), with the padding_idx row zero; _weight gives
    it instead (a (num_embeddings, embedding_dim) tensor, used as is)."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, device=None, dtype=None):
        super().__init__()
        if sparse:
            raise NotImplementedError("Embedding(sparse=True): Backplane has no sparse tensors; the "
                                      "gradient is a dense scatter-add")
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = _padding_index(padding_idx, num_embeddings)
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(empty(num_embeddings, embedding_dim, dtype=dtype, device=device))
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise ValueError("Embedding: _weight has shape {}, not ({}, {})".format(
                    tuple(_weight.shape), num_embeddings, embedding_dim))
            self.weight = Parameter(_weight)

    def reset_parameters(self):
        _init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0.0

    def forward(self, input):
        return embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                         self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = "{}, {}".format(self.num_embeddings, self.embedding_dim)
        if self.padding_idx is not None:
            s += ", padding_idx={}".format(self.padding_idx)
        if self.max_norm is not None:
            s += ", max_norm={}".format(self.max_norm)
        if self.norm_type != 2:
            s += ", norm_type={}".format(self.norm_type)
        if self.scale_grad_by_freq:
            s += ", scale_grad_by_freq=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, sparse=False):
        """An Embedding whose weight is embeddings (2-D), trained unless
        freeze."""
        if embeddings.ndim != 2:
            raise ValueError("Embedding.from_pretrained: embeddings must be 2-D, not of shape {}".format(
                embeddings.shape))
        rows, cols = embeddings.shape
        layer = cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                    _weight=embeddings)
        layer.weight.requires_grad = not freeze
        return layer
