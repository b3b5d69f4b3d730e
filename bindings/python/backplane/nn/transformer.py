"""The transformer encoder of torch.nn: TransformerEncoderLayer (self
attention and a feed-forward block, each with a residual connection, layer
norm and dropout) and TransformerEncoder (a stack of copies)."""
import copy

from . import functional as F
from .attention import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

_ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}


def _activation(activation):
    if callable(activation):
        return activation
    try:
        return _ACTIVATIONS[activation]
    except (KeyError, TypeError):
        raise ValueError("activation should be 'relu', 'gelu' or a callable, not {!r}"
                         .format(activation)) from None


class TransformerEncoderLayer(Module):
    """TransformerEncoderLayer(d_model, nhead, dim_feedforward=2048,
    dropout=0.1, activation='relu', layer_norm_eps=1e-5, batch_first=False,
    norm_first=False, bias=True, device=None, dtype=None), as torch's: the
    same submodule names (self_attn, linear1, dropout, linear2, norm1,
    norm2, dropout1, dropout2), so a torch state_dict loads.

    Post-norm (norm_first=False): x = norm1(x + sa(x)); x = norm2(x + ff(x)).
    Pre-norm: x = x + sa(norm1(x)); x = x + ff(norm2(x)). forward(src,
    src_mask=None, src_key_padding_mask=None, is_causal=False) takes the
    masks in MultiheadAttention's conventions; attention weights are not
    computed (need_weights=False), so a backend's fused attention runs in
    inference."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        where = dict(device=device, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **where)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **where)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **where)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **where)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **where)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation)
        self.batch_first = batch_first

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))


class TransformerEncoder(Module):
    """TransformerEncoder(encoder_layer, num_layers, norm=None): num_layers
    independent copies of encoder_layer (layers[i], initialised alike, as
    torch's deep copies are) applied in turn, then norm if given.
    forward(src, mask=None, src_key_padding_mask=None, is_causal=None) passes
    the masks to every layer."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        if not isinstance(encoder_layer, Module):
            raise TypeError("TransformerEncoder: encoder_layer must be a Module, not {}"
                            .format(type(encoder_layer).__name__))
        if int(num_layers) < 0:
            raise ValueError("TransformerEncoder: num_layers must be >= 0, not {}"
                             .format(num_layers))
        self.layers = ModuleList(copy.deepcopy(encoder_layer) for _ in range(int(num_layers)))
        self.num_layers = int(num_layers)
        self.norm = norm

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                      is_causal=bool(is_causal))
        return x if self.norm is None else self.norm(x)
