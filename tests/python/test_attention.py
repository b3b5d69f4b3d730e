"""Attention: nn.functional.scaled_dot_product_attention and
nn.MultiheadAttention against torch 1.13 in float32 on every device (torch
1.13 has no scaled_dot_product_attention: its matmul-softmax-matmul is the
reference), masks (bool and float), causal, scale, dropout's mask, the
fused entry against the composite on cpu:0, OpenCL running the composite,
and the errors. Gradients by finite differences are in test_gradcheck.py."""
import math

import numpy as np
import pytest

import backplane as bp
from backplane import nn
from backplane.nn import functional as F

torch = pytest.importorskip("torch")

RTOL, ATOL = 1e-5, 2e-6  # float32 sums of a few dozen terms in another order


def rng(seed=0):
    return np.random.default_rng(seed)


def on(dev, a):
    return bp.tensor(a, device=dev)


def torch_attention(q, k, v, mask=None, causal=False, scale=None):
    """torch's math path of scaled_dot_product_attention, in float32."""
    q, k, v = (torch.from_numpy(np.ascontiguousarray(x)) for x in (q, k, v))
    s = q @ k.transpose(-2, -1) * (1 / math.sqrt(q.shape[-1]) if scale is None else scale)
    if mask is not None:
        m = torch.from_numpy(mask)
        s = s.masked_fill(~m, float("-inf")) if m.dtype == torch.bool else s + m
    if causal:
        lq, lk = s.shape[-2:]
        s = s.masked_fill(~torch.ones(lq, lk, dtype=torch.bool).tril(), float("-inf"))
    return (torch.softmax(s, dim=-1) @ v).numpy()


def problem(b=2, h=3, lq=5, lk=7, e=8, ev=6, seed=0):
    r = rng(seed)
    return (r.standard_normal((b, h, lq, e)).astype(np.float32),
            r.standard_normal((b, h, lk, e)).astype(np.float32),
            r.standard_normal((b, h, lk, ev)).astype(np.float32))


# ---- scaled_dot_product_attention ----------------------------------------------------------

@pytest.mark.parametrize("shape", [(2, 3, 5, 7, 8, 6), (1, 2, 33, 33, 16, 16), (2, 1, 70, 50, 24, 40)],
                         ids=["small", "square", "tiles"])
def test_sdpa_matches_torch(dev, shape):
    q, k, v = problem(*shape)
    got = F.scaled_dot_product_attention(on(dev, q), on(dev, k), on(dev, v))
    assert got.shape == q.shape[:-1] + (v.shape[-1],) and got.dtype == bp.float32
    np.testing.assert_allclose(got.numpy(), torch_attention(q, k, v), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("lq,lk", [(6, 6), (4, 9), (9, 4)], ids=["square", "fewer-queries", "more-queries"])
def test_causal_is_the_top_left_triangle(dev, lq, lk):
    q, k, v = problem(lq=lq, lk=lk)
    got = F.scaled_dot_product_attention(on(dev, q), on(dev, k), on(dev, v), is_causal=True)
    np.testing.assert_allclose(got.numpy(), torch_attention(q, k, v, causal=True), rtol=RTOL, atol=ATOL)


def test_bool_and_float_masks_broadcast(dev):
    q, k, v = problem()
    r = rng(1)
    bool_mask = r.random((5, 7)) > 0.3
    bool_mask[:, 0] = True  # no row hides every key
    float_mask = r.standard_normal((3, 1, 7)).astype(np.float32)  # per head, broadcast over queries
    for mask in (bool_mask, float_mask):
        got = F.scaled_dot_product_attention(on(dev, q), on(dev, k), on(dev, v), attn_mask=on(dev, mask))
        np.testing.assert_allclose(got.numpy(), torch_attention(q, k, v, mask=mask), rtol=RTOL, atol=ATOL)


def test_scale_and_broadcast_batch(dev):
    q, k, v = problem(b=2, h=3)
    k1, v1 = k[:1, :1], v[:1, :1]  # one key/value set for every batch element and head
    for scale in (0.3, -1.2):
        got = F.scaled_dot_product_attention(on(dev, q), on(dev, k1), on(dev, v1), scale=scale)
        want = torch_attention(q, np.broadcast_to(k1, k.shape), np.broadcast_to(v1, v.shape), scale=scale)
        np.testing.assert_allclose(got.numpy(), want, rtol=RTOL, atol=ATOL)
    # scale=0.0 is a zero scale, as in torch (bp_attention's 0 means the default).
    got = F.scaled_dot_product_attention(on(dev, q), on(dev, k), on(dev, v), scale=0.0)
    np.testing.assert_allclose(got.numpy(), np.broadcast_to(v.mean(axis=-2, keepdims=True), got.shape),
                               rtol=RTOL, atol=ATOL)


def test_grouped_query_attention_shares_key_heads(dev):
    r = rng(12)
    q = r.standard_normal((2, 6, 5, 4)).astype(np.float32)
    k = r.standard_normal((2, 2, 7, 4)).astype(np.float32)
    v = r.standard_normal((2, 2, 7, 3)).astype(np.float32)
    per_head = r.standard_normal((6, 5, 7)).astype(np.float32)
    repeated_k, repeated_v = np.repeat(k, 3, axis=1), np.repeat(v, 3, axis=1)  # torch's repeat_interleave
    for mask in (None, per_head, per_head[:1]):
        got = F.scaled_dot_product_attention(on(dev, q), on(dev, k), on(dev, v), enable_gqa=True,
                                             attn_mask=None if mask is None else on(dev, mask))
        want = torch_attention(q, repeated_k, repeated_v, mask=mask)
        np.testing.assert_allclose(got.numpy(), want, rtol=RTOL, atol=ATOL)
    got = F.scaled_dot_product_attention(on(dev, q), on(dev, k), on(dev, v), enable_gqa=True, is_causal=True)
    np.testing.assert_allclose(got.numpy(), torch_attention(q, repeated_k, repeated_v, causal=True),
                               rtol=RTOL, atol=ATOL)
    with pytest.raises(ValueError, match="divide the query heads"):
        F.scaled_dot_product_attention(on(dev, q), on(dev, k[:, :1].repeat(4, axis=1)), on(dev, v[:, :1].repeat(4, axis=1)),
                                       enable_gqa=True)


def test_a_row_with_every_key_masked_is_nan(dev):
    q, k, v = problem(b=1, h=1, lq=3, lk=4)
    mask = np.ones((3, 4), dtype=bool)
    mask[1] = False
    got = F.scaled_dot_product_attention(on(dev, q), on(dev, k), on(dev, v), attn_mask=on(dev, mask)).numpy()
    assert np.isnan(got[0, 0, 1]).all()  # torch's math path gives NaN too
    np.testing.assert_allclose(got[0, 0, [0, 2]], torch_attention(q, k, v, mask=mask)[0, 0, [0, 2]],
                               rtol=RTOL, atol=ATOL)


def test_no_keys_gives_zeros(dev):
    q, k, v = problem(lk=0)
    got = F.scaled_dot_product_attention(on(dev, q), on(dev, k), on(dev, v)).numpy()
    assert got.shape == (2, 3, 5, 6) and (got == 0).all()


def test_dropout_keeps_the_same_weights_on_every_device(dev):
    q, k, v = problem(b=1, h=2, lq=6, lk=9)
    p = 0.4

    def weights():  # the composite's weights, then dropout's rule by hand
        s = torch_attention(q, k, np.eye(9, dtype=np.float32)[None, None].repeat(2, axis=1))
        bp.manual_seed(11)
        u = bp.rand(1, 2, 6, 9, device="cpu:0", seed=bp.random.next_seed()).numpy()
        return s * (u >= np.float32(p)) / (1 - p)

    expected = weights() @ v
    bp.manual_seed(11)
    got = F.scaled_dot_product_attention(on(dev, q), on(dev, k), on(dev, v), dropout_p=p).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    bp.manual_seed(11)
    dropped = F.scaled_dot_product_attention(on(dev, q), on(dev, k), on(dev, v), dropout_p=1.0).numpy()
    assert (dropped == 0).all()


def test_keep_rate_is_one_minus_p():
    bp.manual_seed(3)
    q = bp.zeros(1, 1, 64, 4)  # uniform weights: each is 1/256 before dropout
    v = bp.ones(1, 1, 256, 1)
    out = F.scaled_dot_product_attention(q, bp.zeros(1, 1, 256, 4), v, dropout_p=0.25).numpy()
    kept = out.ravel() * 0.75  # the share of the 256 weights kept, per query
    assert abs(kept.mean() - 0.75) < 0.02


def test_fused_entry_equals_the_composite_on_cpu():
    q, k, v = problem(b=2, h=2, lq=50, lk=70, e=16, ev=12)
    mask = rng(2).standard_normal((50, 70)).astype(np.float32)
    for kwargs in ({}, {"is_causal": True}, {"attn_mask": on("cpu:0", mask)}, {"scale": 0.7}):
        bp.trace(True)
        bp.trace_clear()
        fused = F.scaled_dot_product_attention(on("cpu:0", q), on("cpu:0", k), on("cpu:0", v), **kwargs)
        fused_lines = bp.trace_lines()
        bp.trace_clear()
        qg = on("cpu:0", q).requires_grad_()  # a gradient to record: the composite runs
        composite = F.scaled_dot_product_attention(qg, on("cpu:0", k), on("cpu:0", v), **kwargs)
        composite_lines = bp.trace_lines()
        bp.trace(False)
        assert any(line.startswith("attention float32") for line in fused_lines), fused_lines
        assert not any(line.startswith("attention") for line in composite_lines)
        assert any(line.startswith("matmul") for line in composite_lines)
        np.testing.assert_allclose(fused.numpy(), composite.detach().numpy(), rtol=RTOL, atol=ATOL)


def test_opencl_devices_run_the_composite():
    dev = "opencl:0"
    if dev not in [d.name for d in bp.devices()]:
        pytest.skip("opencl:0 not present")
    q, k, v = problem()
    bp.trace(True)
    bp.trace_clear()
    out = F.scaled_dot_product_attention(on(dev, q), on(dev, k), on(dev, v), is_causal=True)
    lines = bp.trace_lines()
    bp.trace(False)
    assert not any(line.startswith("attention") for line in lines)  # OpenCL offers no fused entry
    assert any(line.startswith("matmul float32") and "opencl" in line for line in lines)
    np.testing.assert_allclose(out.numpy(), torch_attention(q, k, v, causal=True), rtol=RTOL, atol=ATOL)


def test_errors_name_the_operator():
    q, k, v = problem()
    with pytest.raises(bp.ShapeError, match="attention.*D: 8 vs 5") as e:
        F.scaled_dot_product_attention(bp.tensor(q), bp.tensor(k[..., :5]), bp.tensor(v))
    assert e.value.op == "attention"
    with pytest.raises(bp.ShapeError, match="Lk: 7 vs 6") as e:
        F.scaled_dot_product_attention(bp.tensor(q), bp.tensor(k), bp.tensor(v[..., :6, :]))
    assert e.value.op == "attention"
    with pytest.raises(bp.ShapeError, match="batch axes") as e:
        F.scaled_dot_product_attention(bp.tensor(q), bp.tensor(k[:, :2]), bp.tensor(v[:, :2]))
    with pytest.raises(bp.ShapeError, match="mask of shape \\[4, 7\\] does not broadcast") as e:
        F.scaled_dot_product_attention(bp.tensor(q), bp.tensor(k), bp.tensor(v),
                                       attn_mask=bp.ones(4, 7, dtype=bp.bool_))
    assert e.value.op == "attention"
    with pytest.raises(bp.DtypeError, match="mask must be bool"):
        F.scaled_dot_product_attention(bp.tensor(q), bp.tensor(k), bp.tensor(v),
                                       attn_mask=bp.ones(5, 7, dtype=bp.int32))
    with pytest.raises(bp.InvalidArgumentError, match="dropout probability"):
        F.scaled_dot_product_attention(bp.tensor(q), bp.tensor(k), bp.tensor(v), dropout_p=1.5)
    with pytest.raises(RuntimeError, match="is_causal"):
        F.scaled_dot_product_attention(bp.tensor(q), bp.tensor(k), bp.tensor(v),
                                       attn_mask=bp.ones(5, 7, dtype=bp.bool_), is_causal=True)
    if "reference:0" in [d.name for d in bp.devices()]:
        with pytest.raises(bp.DeviceMismatchError) as e:
            F.scaled_dot_product_attention(bp.tensor(q), on("reference:0", k), bp.tensor(v))
        assert e.value.op == "attention"


# ---- MultiheadAttention ----------------------------------------------------------------------

def twins(embed_dim=8, num_heads=2, seed=0, **kwargs):
    """torch's layer and ours with torch's weights loaded (its state_dict as it is)."""
    torch.manual_seed(seed)
    theirs = torch.nn.MultiheadAttention(embed_dim, num_heads, **kwargs)
    ours = nn.MultiheadAttention(embed_dim, num_heads, **kwargs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    ours.load_state_dict({n: t.detach().numpy() for n, t in theirs.state_dict().items()})
    return theirs, ours


def both(x, dev):
    return torch.from_numpy(x), on(dev, x)


@pytest.mark.parametrize("batch_first", [False, True], ids=["LNE", "NLE"])
def test_mha_matches_torch(dev, batch_first):
    theirs, ours = twins(batch_first=batch_first)
    ours.to(dev)
    r = rng(4)
    shape_q, shape_kv = ((2, 5, 8), (2, 7, 8)) if batch_first else ((5, 2, 8), (7, 2, 8))
    x = r.standard_normal(shape_q).astype(np.float32)
    mem = r.standard_normal(shape_kv).astype(np.float32)
    padding = np.zeros((2, 7), dtype=bool)
    padding[1, 5:] = True  # torch's convention: True is padding, hidden
    causal_like = r.standard_normal((5, 7)).astype(np.float32)
    tx, bx = both(x, dev)
    tm, bm = both(mem, dev)
    for kwargs in ({}, {"need_weights": False}, {"average_attn_weights": False},
                   {"key_padding_mask": padding}, {"attn_mask": causal_like},
                   {"attn_mask": causal_like, "key_padding_mask": padding, "need_weights": False}):
        tk = {n: torch.from_numpy(a) if isinstance(a, np.ndarray) else a for n, a in kwargs.items()}
        bk = {n: on(dev, a) if isinstance(a, np.ndarray) else a for n, a in kwargs.items()}
        t_out, t_w = theirs(tx, tm, tm, **tk)
        b_out, b_w = ours(bx, bm, bm, **bk)
        np.testing.assert_allclose(b_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-5, atol=1e-5)
        if t_w is None:
            assert b_w is None
        else:
            np.testing.assert_allclose(b_w.detach().numpy(), t_w.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_mha_self_attention_with_bool_attn_mask_and_3d_mask(dev):
    theirs, ours = twins(embed_dim=12, num_heads=3)
    ours.to(dev)
    x = rng(5).standard_normal((6, 2, 12)).astype(np.float32)
    tx, bx = both(x, dev)
    causal = np.triu(np.ones((6, 6), dtype=bool), 1)  # True above the diagonal: hidden
    per_head = rng(6).standard_normal((2 * 3, 6, 6)).astype(np.float32)
    for mask in (causal, per_head):
        t_out, t_w = theirs(tx, tx, tx, attn_mask=torch.from_numpy(mask))
        b_out, b_w = ours(bx, bx, bx, attn_mask=on(dev, mask))
        np.testing.assert_allclose(b_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(b_w.detach().numpy(), t_w.detach().numpy(), rtol=1e-5, atol=1e-6)
    # is_causal (torch 2.x) without a mask applies the same triangle.
    t_out, _ = theirs(tx, tx, tx, attn_mask=torch.from_numpy(causal), need_weights=False)
    for need_weights in (False, True):
        b_out, _ = ours(bx, bx, bx, is_causal=True, need_weights=need_weights)
        np.testing.assert_allclose(b_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_mha_kdim_vdim_bias_kv_zero_attn_unbatched():
    theirs, ours = twins(embed_dim=8, num_heads=4, kdim=5, vdim=3, add_bias_kv=True, add_zero_attn=True)
    assert ours.in_proj_weight is None and ours.k_proj_weight.shape == (8, 5)
    r = rng(7)
    q = r.standard_normal((4, 2, 8)).astype(np.float32)
    k = r.standard_normal((6, 2, 5)).astype(np.float32)
    v = r.standard_normal((6, 2, 3)).astype(np.float32)
    padding = np.zeros((2, 6), dtype=bool)
    padding[0, -2:] = True
    t_out, t_w = theirs(*(torch.from_numpy(a) for a in (q, k, v)), key_padding_mask=torch.from_numpy(padding))
    b_out, b_w = ours(bp.tensor(q), bp.tensor(k), bp.tensor(v), key_padding_mask=bp.tensor(padding))
    np.testing.assert_allclose(b_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(b_w.detach().numpy(), t_w.detach().numpy(), rtol=1e-5, atol=1e-6)
    # Unbatched (L, E) inputs.
    t_out, t_w = theirs(*(torch.from_numpy(a[:, 0]) for a in (q, k, v)))
    b_out, b_w = ours(*(bp.tensor(a[:, 0]) for a in (q, k, v)))
    assert b_out.shape == (4, 8) and b_w.shape == (4, 8)
    np.testing.assert_allclose(b_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_mha_gradients_match_torch():
    theirs, ours = twins(embed_dim=8, num_heads=2, batch_first=True)
    x = rng(8).standard_normal((2, 5, 8)).astype(np.float32)
    tx = torch.from_numpy(x).requires_grad_()
    bx = bp.tensor(x).requires_grad_()
    for need_weights in (True, False):
        t_out, _ = theirs(tx, tx, tx, need_weights=need_weights)
        b_out, _ = ours(bx, bx, bx, need_weights=need_weights)
        (t_out ** 2).sum().backward()
        (b_out ** 2).sum().backward()
        np.testing.assert_allclose(bx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
        theirs_grads = dict(theirs.named_parameters())
        for name, p in ours.named_parameters():
            np.testing.assert_allclose(p.grad.numpy(), theirs_grads[name].grad.numpy(), rtol=1e-4, atol=1e-5)
        tx.grad = None
        bx.grad = None
        theirs.zero_grad()
        ours.zero_grad()


def test_mha_dropout_only_in_training():
    _, ours = twins(dropout=0.5)
    x = bp.tensor(rng(9).standard_normal((4, 2, 8)).astype(np.float32))
    ours.eval()
    a, _ = ours(x, x, x)
    b, _ = ours(x, x, x)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    ours.train()
    c, _ = ours(x, x, x, need_weights=False)
    assert not np.allclose(c.detach().numpy(), a.numpy())


def test_mha_refuses_heads_that_do_not_divide():
    with pytest.raises(ValueError, match="multiple of num_heads"):
        nn.MultiheadAttention(10, 3)
