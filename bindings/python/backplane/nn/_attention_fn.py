"""scaled_dot_product_attention as torch.nn.functional spells it (torch
2.x), over the C API's bp_attention: one fused call where the device's
backend offers it and nothing records a gradient, else the recorded
composite (matmul, softmax, matmul), so backward() goes through it."""
from .. import _C, random


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *,
                                 scale=None, enable_gqa=False):
    """softmax(query @ key.transpose(-2, -1) * scale + mask) @ value over
    query (..., L, E), key (..., S, E), value (..., S, Ev), batch axes
    broadcasting; the result is (..., L, Ev).

    attn_mask: a bool tensor (True: the key takes part) or a float one
    (added to the scores) broadcasting to (..., L, S). is_causal: query i
    sees keys j <= i (the top-left aligned triangle); as in torch it may
    not be combined with attn_mask. scale: None for 1 / sqrt(E). dropout_p:
    each weight is zeroed with that probability and the rest scaled by
    1 / (1 - dropout_p), the mask drawn from the next seed of bp.random
    (bp.manual_seed restarts it), the same on every device; as in torch it
    applies whenever dropout_p > 0 (pass 0.0 outside training). A row whose
    keys are all masked is NaN, as torch's math path gives. enable_gqa:
    grouped-query attention, query (..., Hq, L, E) with key and value
    (..., Hk, S, E) of Hk heads dividing Hq, query head i using key head
    i // (Hq // Hk) (torch's repeat_interleave), done by broadcasting, not
    by copying the keys."""
    if is_causal and attn_mask is not None:
        raise RuntimeError("scaled_dot_product_attention: attn_mask must be None when is_causal=True "
                           "(as in torch): fold the causal triangle into the mask instead")
    if scale is None:
        scale = 0.0  # bp_attention's 1 / sqrt(E)
    elif scale == 0:
        # bp_attention reads 0 as its default: an explicit zero scale makes
        # every score 0 (+ the mask), which zero queries give as well.
        query, scale = query * 0.0, 1.0
    seed = random.next_seed() if dropout_p > 0 else 0
    if enable_gqa:
        return _grouped(query, key, value, attn_mask, bool(is_causal), float(scale), float(dropout_p), seed)
    return _C.attention(query, key, value, attn_mask, bool(is_causal), float(scale), float(dropout_p), seed)


def _grouped(query, key, value, mask, causal, scale, dropout_p, seed):
    """Query heads in groups: (..., Hk, G, L, E) against keys (..., Hk, 1, S, E)."""
    if query.ndim < 3 or key.ndim < 3 or value.ndim < 3:
        raise ValueError("enable_gqa: query, key and value need a heads axis (..., H, L, E)")
    hq, hk = query.shape[-3], key.shape[-3]
    if value.shape[-3] != hk or hk == 0 or hq % hk:
        raise ValueError("enable_gqa: the key and value heads ({}, {}) must be equal and divide the "
                         "query heads ({})".format(hk, value.shape[-3], hq))
    group = hq // hk

    def split(t, g):
        return t.reshape(*t.shape[:-3], hk, g, *t.shape[-2:])

    if mask is not None and mask.ndim >= 3:
        mask = split(mask, group) if mask.shape[-3] == hq else mask.reshape(*mask.shape[:-2], 1, *mask.shape[-2:])
    out = _C.attention(split(query, group), split(key, 1), split(value, 1), mask, causal, scale, dropout_p, seed)
    return out.reshape(*out.shape[:-4], hq, *out.shape[-2:])
