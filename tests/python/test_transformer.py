"""nn.TransformerEncoderLayer and nn.TransformerEncoder: torch's state_dict
loads into them and, from the same weights, their outputs and gradients
are torch's, post-norm and pre-norm, batch-first or not, relu or gelu, with
masks; a stack holds independent copies."""
import numpy as np
import pytest

import backplane as bp
from backplane import nn
from conftest import require

torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) is the reference")

DEVICES = ["cpu:0", "opencl:0"]


def _pair(norm_first, batch_first, activation, layers=None):
    torch.manual_seed(0)
    kwargs = dict(dim_feedforward=32, dropout=0.0, activation=activation, batch_first=batch_first,
                  norm_first=norm_first)
    theirs = torch.nn.TransformerEncoderLayer(16, 4, **kwargs)
    ours = nn.TransformerEncoderLayer(16, 4, **kwargs)
    if layers:
        theirs = torch.nn.TransformerEncoder(theirs, layers, norm=torch.nn.LayerNorm(16))
        ours = nn.TransformerEncoder(ours, layers, norm=nn.LayerNorm(16))
    for p in theirs.parameters():  # biases and norms away from their initial values
        with torch.no_grad():
            p.add_(0.1 * torch.randn_like(p))
    ours.load_state_dict({k: bp.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


@pytest.mark.parametrize("name", DEVICES)
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_a_layer_is_torchs_forward_and_backward(name, norm_first, batch_first, activation):
    dev = require(name)
    ours, theirs = _pair(norm_first, batch_first, activation)
    ours.to(dev)
    x = np.random.RandomState(1).standard_normal((5, 3, 16)).astype(np.float32)
    tx = torch.tensor(x, requires_grad=True)
    bx = bp.tensor(x, device=dev, requires_grad=True)
    ty, by = theirs(tx), ours(bx)
    np.testing.assert_allclose(by.numpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-5)
    (ty * ty).sum().backward()
    (by * by).sum().backward()
    np.testing.assert_allclose(bx.grad.numpy(), tx.grad.numpy(), rtol=1e-3, atol=1e-4)
    for (k, p), (tk, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert k == tk
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-3, atol=1e-4, err_msg=k)


@pytest.mark.parametrize("name", DEVICES)
def test_a_stack_with_masks_is_torchs(name):
    dev = require(name)
    ours, theirs = _pair(False, True, "relu", layers=2)
    ours.to(dev)
    assert len(ours.layers) == 2 and ours.layers[0] is not ours.layers[1]
    assert ours.layers[0].linear1.weight is not ours.layers[1].linear1.weight
    ours.eval()
    theirs.eval()
    x = np.random.RandomState(2).standard_normal((2, 6, 16)).astype(np.float32)
    causal = np.triu(np.ones((6, 6), dtype=bool), 1)
    padding = np.zeros((2, 6), dtype=bool)
    padding[1, 4:] = True
    with torch.no_grad():
        ty = theirs(torch.tensor(x), mask=torch.tensor(causal),
                    src_key_padding_mask=torch.tensor(padding))
    with bp.no_grad():
        by = ours(bp.tensor(x, device=dev), mask=bp.tensor(causal, device=dev),
                  src_key_padding_mask=bp.tensor(padding, device=dev))
    np.testing.assert_allclose(by.numpy(), ty.numpy(), rtol=1e-4, atol=1e-5)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="activation should be 'relu', 'gelu' or a callable"):
        nn.TransformerEncoderLayer(16, 4, activation="swish")
    with pytest.raises(TypeError, match="encoder_layer must be a Module"):
        nn.TransformerEncoder("layer", 2)
    with pytest.raises(ValueError, match="num_layers must be >= 0"):
        nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4), -1)
