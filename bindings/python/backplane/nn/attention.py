"""MultiheadAttention, shaped like torch.nn.MultiheadAttention: the same
constructor, forward, parameter names (in_proj_weight, in_proj_bias,
out_proj.weight, out_proj.bias; q/k/v_proj_weight when kdim or vdim differ;
bias_k, bias_v) and initialisation, so a torch state_dict loads as it is."""
import math

from .. import _C, _tensor, random
from .._torch_api import cat, expand
from . import functional as F
from . import init as _init
from .linear import Linear
from .module import Module
from .parameter import Parameter


def _additive(mask, dtype, device):
    """A torch-convention mask (bool True: hidden; float: added) as a float
    mask of dtype: -inf where hidden."""
    if mask.dtype.is_floating_point:
        return mask.to(dtype)
    hidden = _tensor.full((), float("-inf"), dtype=dtype, device=device)
    return _tensor.where(mask, hidden, _tensor.zeros((), dtype=dtype, device=device))


class MultiheadAttention(Module):
    """Attention over num_heads heads of embed_dim // num_heads features:
    query, key and value are projected (in_proj_weight and in_proj_bias, or
    q/k/v_proj_weight when kdim or vdim differs from embed_dim), attended
    head by head with scaled dot products (bp_attention), joined and
    projected again (out_proj). Inputs are (L, N, E) (batch_first=False, as
    torch) or (N, L, E) (batch_first=True), or unbatched (L, E).

    forward(query, key, value, key_padding_mask=None, need_weights=True,
    attn_mask=None, average_attn_weights=True, is_causal=False) returns
    (output, weights) as torch does: masks follow torch's convention (a bool
    True hides the position; a float mask is added), key_padding_mask is
    (N, S), attn_mask (L, S) or (N * num_heads, L, S); weights are (N, L, S)
    averaged over the heads (or (N, num_heads, L, S)), or None when
    need_weights is False. Only need_weights=False lets a backend's fused
    attention run (in inference); need_weights=True computes the weights
    explicitly, as torch does. is_causal with an attn_mask is torch's hint
    that the mask is causal (the mask is used); without one it applies the
    causal triangle itself (torch would ask for the mask). dropout is
    applied to the weights in training mode only."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0 or embed_dim % num_heads:
            raise ValueError("embed_dim ({}) must be a positive multiple of num_heads ({})"
                             .format(embed_dim, num_heads))
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.dropout, self.batch_first = float(dropout), batch_first
        self.head_dim = embed_dim // num_heads
        self.add_zero_attn = add_zero_attn

        def parameter(*shape):
            return Parameter(_tensor.empty(*shape, dtype=dtype, device=device))

        if self._qkv_same_embed_dim:
            self.in_proj_weight = parameter(3 * embed_dim, embed_dim)
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = parameter(embed_dim, embed_dim)
            self.k_proj_weight = parameter(embed_dim, self.kdim)
            self.v_proj_weight = parameter(embed_dim, self.vdim)
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = parameter(3 * embed_dim)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias, device=device, dtype=dtype)
        if add_bias_kv:
            self.bias_k = parameter(1, 1, embed_dim)
            self.bias_v = parameter(1, 1, embed_dim)
        else:
            self.register_parameter("bias_k", None)
            self.register_parameter("bias_v", None)
        self._reset_parameters()

    def _reset_parameters(self):
        """torch's initialisation: Xavier-uniform projections, zero biases,
        Xavier-normal bias_k and bias_v (out_proj's weight as Linear's)."""
        if self._qkv_same_embed_dim:
            _init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                _init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            _init.zeros_(self.in_proj_bias)
            _init.zeros_(self.out_proj.bias)
        if self.bias_k is not None:
            _init.xavier_normal_(self.bias_k)
            _init.xavier_normal_(self.bias_v)

    def _projections(self):
        """The (weight, bias) of the query, key and value projections."""
        e = self.embed_dim
        b = self.in_proj_bias
        biases = (None, None, None) if b is None else (b[:e], b[e:2 * e], b[2 * e:])
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            weights = (w[:e], w[e:2 * e], w[2 * e:])
        else:
            weights = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
        return list(zip(weights, biases))

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        batched = query.ndim == 3
        if not batched:
            query, key, value = (x.reshape(x.shape[0], 1, x.shape[1]) for x in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.reshape(1, -1)
        elif self.batch_first:
            query, key, value = (x.transpose(0, 1) for x in (query, key, value))
        # (L, N, E) from here on.
        length, batch = query.shape[0], query.shape[1]
        heads, hd = self.num_heads, self.head_dim
        (wq, bq), (wk, bk), (wv, bv) = self._projections()
        q, k, v = F.linear(query, wq, bq), F.linear(key, wk, bk), F.linear(value, wv, bv)
        if self.bias_k is not None:
            k = cat([k, expand(self.bias_k, 1, batch, self.embed_dim)], 0)
            v = cat([v, expand(self.bias_v, 1, batch, self.embed_dim)], 0)
            attn_mask = _pad_keys(attn_mask)
            key_padding_mask = _pad_keys(key_padding_mask)

        def heads_first(x):  # (S, N, E) -> (N, heads, S, head_dim)
            return x.reshape(x.shape[0], batch, heads, hd).permute(1, 2, 0, 3)

        q, k, v = heads_first(q), heads_first(k), heads_first(v)
        if self.add_zero_attn:
            zeros = _tensor.zeros(batch, heads, 1, hd, dtype=k.dtype, device=k.device)
            k, v = cat([k, zeros], 2), cat([v, zeros], 2)
            attn_mask = _pad_keys(attn_mask)
            key_padding_mask = _pad_keys(key_padding_mask)
        keys = k.shape[2]
        causal = is_causal and attn_mask is None
        mask = None
        if attn_mask is not None:
            if attn_mask.ndim == 3:
                attn_mask = attn_mask.reshape(batch, heads, length, keys)
            mask = _additive(attn_mask, q.dtype, q.device)
        if key_padding_mask is not None:
            padding = _additive(key_padding_mask, q.dtype, q.device).reshape(batch, 1, 1, keys)
            mask = padding if mask is None else mask + padding
        p = self.dropout if self.training else 0.0
        if need_weights:
            scores = _tensor.matmul(q * (1.0 / math.sqrt(hd)), k, transpose_b=True)
            if mask is not None:
                scores = scores + mask
            if causal:
                hidden = (_tensor.arange(keys, device=q.device).reshape(1, keys) >
                          _tensor.arange(length, device=q.device).reshape(length, 1))
                scores = scores + _additive(hidden, q.dtype, q.device)
            weights = F.softmax(scores, dim=-1)
            if p > 0:
                weights = F.dropout(weights, p)  # bp_attention's rule, the next seed
            out = _tensor.matmul(weights, v)
        else:
            weights = None
            seed = random.next_seed() if p > 0 else 0
            out = _C.attention(q, k, v, mask, causal, 0.0, p, seed)
        # (N, heads, L, hd) -> (L, N, E), projected.
        out = self.out_proj(out.permute(2, 0, 1, 3).reshape(length, batch, self.embed_dim))
        if weights is not None and average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            out = out.reshape(length, self.embed_dim)
            if weights is not None:
                weights = weights[0]
        elif self.batch_first:
            out = out.transpose(0, 1)
        return out, weights

    def extra_repr(self):
        return "embed_dim={}, num_heads={}, dropout={}, batch_first={}".format(
            self.embed_dim, self.num_heads, self.dropout, self.batch_first)


def _pad_keys(mask):
    """A mask with one more key column that takes part (torch pads it so for
    bias_k and add_zero_attn)."""
    if mask is None:
        return None
    column = _tensor.zeros(*mask.shape[:-1], 1, dtype=mask.dtype, device=mask.device)
    return cat([mask, column], mask.ndim - 1)
