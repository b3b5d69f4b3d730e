"""The gradients backward() gives against central finite differences in
float64, for the operators training uses, on every device (the backward pass
runs on the device of the forward pass, so each backend's kernels take part).
The core's own checks of every recorded operator are tests/core/test_autograd.cpp."""
import numpy as np
import pytest

import backplane as bp
from backplane import nn
from finite_differences import assert_gradients_match, require_float64

A = np.array([[0.5, -1.25, 2.0], [0.75, -0.3, 1.5]])
B = np.array([1.5, 0.4, -0.9])
POSITIVE = np.abs(A) + 0.1
M34 = np.linspace(-1.0, 1.2, 12).reshape(3, 4)
CUBE = np.array([0.5, -1.25, 2.0, 0.75, -0.3, 1.5, 0.2, -0.7, 1.1, 0.9, -2.0, 0.4]).reshape(2, 3, 2)
NCL = np.sin(np.arange(16.0)).reshape(2, 4, 2) * 2  # (N, C, L) for group and batch norm
C4 = np.array([1.5, -0.5, 0.8, 1.1])
# Attention: q [2, 3, 2], k [2, 4, 2], v [2, 4, 3] and a float mask [3, 4].
Q = np.linspace(-1.0, 1.1, 12).reshape(2, 3, 2)
K = np.cos(np.arange(16.0)).reshape(2, 4, 2)
V = np.sin(np.arange(24.0)).reshape(2, 4, 3)
MASK = np.linspace(-0.8, 0.6, 12).reshape(3, 4)
# [1, 2, 4, 5] of distinct values, apart by more than a finite difference's step.
X4 = (np.arange(40) * 17 % 40 / 13.0 - 1.5).reshape(1, 2, 4, 5)

# name -> (inputs, function of the input tensors)
CASES = {
    "add": ([A, B], lambda a, b: a + b),
    "sub": ([A, B], lambda a, b: a - b),
    "mul": ([A, B], lambda a, b: a * b),
    "div": ([A, B], lambda a, b: a / b),
    "pow": ([POSITIVE], lambda a: a ** 1.5),
    "maximum": ([A, B], lambda a, b: bp.maximum(a, b)),
    "matmul": ([A, M34], lambda a, m: a @ m),
    "matmul_transposed": ([A, M34.T.copy()], lambda a, m: bp.matmul(a, m, transpose_b=True)),
    "exp": ([A], lambda a: a.exp()),
    "log": ([POSITIVE], lambda a: a.log()),
    "sqrt": ([POSITIVE], lambda a: a.sqrt()),
    "tanh": ([A], lambda a: a.tanh()),
    "erf": ([A], lambda a: a.erf()),
    "expm1": ([A], lambda a: a.expm1()),
    "log1p": ([POSITIVE], lambda a: a.log1p()),
    "rsqrt": ([POSITIVE], lambda a: a.rsqrt()),
    "sigmoid": ([A], lambda a: a.sigmoid()),
    "relu": ([A], lambda a: a.relu()),
    "sum": ([A], lambda a: a.sum()),
    "sum_axis": ([A], lambda a: a.sum(axis=0)),
    "mean": ([A], lambda a: a.mean(axis=1, keepdims=True)),
    "max": ([A], lambda a: a.max(axis=1)),
    "logsumexp": ([A], lambda a: bp.logsumexp(a, axis=1)),
    "log_softmax": ([A], lambda a: nn.functional.log_softmax(a, dim=1)),
    "cross_entropy": ([A], lambda a: nn.functional.cross_entropy(
        a, bp.tensor([2, 0], device=a.device), reduction="none")),
    "softmax": ([A], lambda a: bp.softmax(a, axis=-1)),
    "softmax_dim0": ([A], lambda a: nn.functional.softmax(a, dim=0)),
    "log_softmax_dim0": ([A], lambda a: a.log_softmax(0)),
    "softmax_transposed": ([A], lambda a: nn.Softmax(dim=1)(a.T)),
    "log_softmax_3d": ([M34.reshape(3, 2, 2)], lambda a: bp.log_softmax(a, dim=1)),
    "var": ([A], lambda a: a.var(axis=0)),
    "where": ([A, B], lambda a, b: bp.where(a > 0.6, a, b)),
    "clip": ([A], lambda a: a.clip(-1.0, 1.0)),
    "reshape_transpose": ([A], lambda a: a.reshape(3, 2).T * a),
    "index_rows": ([A], lambda a: a[[1, 0, 1]]),
    "index_mask": ([A], lambda a: a[a > 0] ** 2),
    "index_pairs": ([A], lambda a: a[bp.arange(2, device=a.device),
                                     bp.tensor([2, 0], device=a.device)]),
    "slice": ([A], lambda a: a[:, ::2] * a[:, :2]),
    "concatenate": ([A, B], lambda a, b: bp.concatenate([a, b.reshape(1, 3)]) ** 2),
    "topk": ([A], lambda a: bp.topk(a, 2).values * a[:, :2]),
    "topk_smallest_dim0": ([A], lambda a: a.topk(1, dim=0, largest=False).values),
    "sort": ([A], lambda a: bp.sort(a, dim=0, descending=True).values ** 2),
    "sort_transposed": ([A], lambda a: a.T.sort().values * 3.0),
    "msort": ([A], lambda a: bp.msort(a.T)),
    # The normalisations (LAYER_NORM, RMS_NORM, VAR and the composites on them).
    "var_axes": ([CUBE], lambda a: a.var(dim=(0, 2), correction=1)),
    "std_unbiased": ([A], lambda a: a.std(dim=1, unbiased=True)),
    "layer_norm": ([A, B, B[::-1].copy()], lambda a, w, b: nn.functional.layer_norm(a, (3,), w, b)),
    "layer_norm_2d": ([CUBE], lambda a: nn.functional.layer_norm(a, (3, 2), eps=0.1)),
    "rms_norm": ([A, B], lambda a, w: nn.functional.rms_norm(a, (3,), w)),
    "group_norm": ([NCL, C4, C4[::-1].copy()], lambda x, w, b: nn.functional.group_norm(x, 2, w, b)),
    "batch_norm": ([NCL, C4, C4[::-1].copy()], lambda x, w, b: nn.functional.batch_norm(
        x, None, None, w, b, training=True)),
    "attention": ([Q, K, V], lambda q, k, v: nn.functional.scaled_dot_product_attention(q, k, v)),
    "attention_causal_scaled": ([Q, K, V], lambda q, k, v: nn.functional.scaled_dot_product_attention(
        q, k, v, is_causal=True, scale=0.8)),
    "attention_float_mask": ([Q, K, V, MASK], lambda q, k, v, m: nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=m)),
    # the training kit of transformers (1.6)
    "gelu": ([A], lambda a: nn.functional.gelu(a)),
    "gelu_tanh": ([A], lambda a: nn.functional.gelu(a, approximate="tanh")),
    "silu": ([A], lambda a: nn.functional.silu(a)),
    # (padding_idx and scale_grad_by_freq change the gradient on purpose:
    # test_embedding.py compares them with PyTorch's)
    "embedding": ([M34], lambda w: nn.functional.embedding(bp.tensor([[2, 0], [2, 1]], device=w.device), w)),
    "cross_entropy_smoothed_weighted": ([M34], lambda a: nn.functional.cross_entropy(
        a, bp.tensor([3, -100, 1], device=a.device), weight=bp.tensor([1.0, 2.0, 0.5, 1.5], dtype=a.dtype,
                                                                       device=a.device), label_smoothing=0.2)),
    "cross_entropy_probabilities": ([A, POSITIVE], lambda a, p: nn.functional.cross_entropy(
        a, p / p.sum(axis=1, keepdims=True), reduction="sum")),
    # Pooling, dropout (one seed for every evaluation), padding and resizing.
    "max_pool2d": ([X4], lambda x: nn.functional.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True)),
    "avg_pool2d": ([X4], lambda x: nn.functional.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True)),
    "avg_pool2d_exclude_pad": ([X4], lambda x: nn.functional.avg_pool2d(x, 2, padding=1, count_include_pad=False)),
    "adaptive_avg_pool2d": ([X4], lambda x: nn.functional.adaptive_avg_pool2d(x, (3, 2))),
    "adaptive_max_pool2d": ([X4], lambda x: nn.functional.adaptive_max_pool2d(x, (3, 2))),
    "dropout": ([X4], lambda x: nn.functional.dropout(x, 0.4, generator=bp.Generator().manual_seed(7))),
    "pad_reflect": ([X4], lambda x: nn.functional.pad(x, (2, -1, 1, 2), mode="reflect")),
    "interpolate_bilinear": ([X4], lambda x: nn.functional.interpolate(x, size=(6, 3), mode="bilinear",
                                                                       align_corners=False)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(dev, name):
    require_float64(dev)
    inputs, fn = CASES[name]
    assert_gradients_match(fn, inputs, dev, name)
