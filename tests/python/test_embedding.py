"""nn.Embedding and nn.functional.embedding: the rows of the weight on
every device, the gradient a scatter-add through the C API's indexing
(repeated indices adding up, the padding row getting none), max_norm,
scale_grad_by_freq, and the same values and gradients as torch 1.13."""
import numpy as np
import pytest

import backplane as bp
from backplane import nn
from backplane.nn import functional as F

TABLE = np.linspace(-2.0, 3.0, 24, dtype=np.float32).reshape(6, 4)
INDICES = np.array([[0, 3, 3], [5, 1, 3]])


def lookup(dev, **kwargs):
    """F.embedding of INDICES into a fresh TABLE on dev, the weighted sum's
    gradient taken: (output, weight)."""
    w = bp.tensor(TABLE, device=dev, requires_grad=True)
    out = F.embedding(bp.tensor(INDICES, device=dev), w, **kwargs)
    scale = bp.tensor(np.arange(1, 1 + out.numel(), dtype=np.float32).reshape(out.shape), device=dev)
    (out * scale).sum().backward()
    return out, w


def test_rows_and_a_scatter_add_gradient_on_every_device(dev):
    out, w = lookup(dev)
    assert out.device == dev and out.shape == (2, 3, 4)
    np.testing.assert_array_equal(out.detach().numpy(), TABLE[INDICES])
    expected = np.zeros_like(TABLE)
    np.add.at(expected, INDICES, np.arange(1, 25, dtype=np.float32).reshape(2, 3, 4))
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-6)
    assert w.grad.device == dev


def test_the_padding_row_gets_no_gradient(dev):
    out, w = lookup(dev, padding_idx=3)
    np.testing.assert_array_equal(out.detach().numpy(), TABLE[INDICES])
    grad = w.grad.numpy()
    np.testing.assert_array_equal(grad[3], np.zeros(4, np.float32))
    assert np.all(grad[[0, 1, 5]] != 0) and np.all(grad[[2, 4]] == 0)
    _, w = lookup(dev, padding_idx=-1)  # the last row, as in PyTorch
    np.testing.assert_array_equal(w.grad.numpy()[5], np.zeros(4, np.float32))


def test_the_lookup_is_bp_index_and_its_gradient_a_scatter_add():
    bp.trace(True)
    bp.trace_clear()
    try:
        lookup("cpu:0")
        lines = "\n".join(bp.trace_lines())
    finally:
        bp.trace(False)
    assert "gather_nd" in lines and "scatter_add_nd" in lines


def test_index_dtypes_shapes_and_errors():
    w = bp.tensor(TABLE)
    for dtype in (bp.int64, bp.int32, bp.int16, bp.uint8):
        np.testing.assert_array_equal(F.embedding(bp.tensor([5, 0], dtype=dtype), w).numpy(), TABLE[[5, 0]])
    assert F.embedding(bp.tensor(2), w).shape == (4,)
    with pytest.raises(IndexError, match=r"index out of range in self: the indices must be in \[0, 6\)"):
        F.embedding(bp.tensor([6]), w)
    with pytest.raises(IndexError, match="index out of range"):
        F.embedding(bp.tensor([-1]), w)  # no counting from the end, as in PyTorch
    with pytest.raises(TypeError, match="integer tensor"):
        F.embedding(bp.tensor([1.0]), w)
    with pytest.raises(ValueError, match="padding_idx 6 must be within num_embeddings 6"):
        nn.Embedding(6, 4, padding_idx=6)
    with pytest.raises(NotImplementedError, match="sparse"):
        nn.Embedding(6, 4, sparse=True)


def test_the_layer_starts_normal_with_a_zero_padding_row_and_saves(tmp_path):
    bp.manual_seed(0)
    layer = nn.Embedding(1000, 8, padding_idx=2)
    w = layer.weight.detach().numpy()
    assert layer.weight.requires_grad and w.shape == (1000, 8)
    np.testing.assert_array_equal(w[2], np.zeros(8, np.float32))
    assert abs(w.mean()) < 0.05 and abs(w.std() - 1) < 0.05
    assert repr(layer) == "Embedding(1000, 8, padding_idx=2)"
    bp.save(layer.state_dict(), tmp_path / "e.safetensors")
    again = nn.Embedding(1000, 8, padding_idx=2)
    again.load_state_dict(bp.load(tmp_path / "e.safetensors"))
    np.testing.assert_array_equal(again.weight.detach().numpy(), w)
    frozen = nn.Embedding.from_pretrained(bp.tensor(TABLE))
    assert not frozen.weight.requires_grad and frozen(bp.tensor([1])).tolist() == [TABLE[1].tolist()]
    assert nn.Embedding.from_pretrained(bp.tensor(TABLE), freeze=False).weight.requires_grad


torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) is the reference")


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 1}, {"scale_grad_by_freq": True},
                                    {"padding_idx": 3, "scale_grad_by_freq": True},
                                    {"max_norm": 2.0}, {"max_norm": 1.5, "norm_type": 1.0},
                                    {"max_norm": 3.0, "norm_type": float("inf")}],
                         ids=lambda k: ",".join("{}={}".format(*i) for i in k.items()) or "plain")
def test_values_and_gradients_are_torch_s(dev, kwargs):
    out, w = lookup(dev, **kwargs)
    tw = torch.tensor(TABLE, requires_grad=True)
    tout = torch.nn.functional.embedding(torch.tensor(INDICES), tw, **kwargs)
    (tout * torch.arange(1, 1 + tout.numel(), dtype=torch.float32).reshape(tout.shape)).sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-6, atol=1e-6)
    # max_norm renormalises the weight in place, as PyTorch does.
    np.testing.assert_allclose(w.detach().numpy(), tw.detach().numpy(), rtol=1e-6, atol=1e-7)
