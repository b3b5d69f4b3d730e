"""examples/train_digits.py: the digits MLP reaches 95% test accuracy on cpu:0
and opencl:0, and, from the same initial weights over the same batches, its
loss curve is PyTorch's to float32 tolerance."""
import numpy as np
import pytest

import backplane as bp
from backplane import optim
from conftest import require
from example_support import load_example, paired_losses, torch_copy

pytest.importorskip("sklearn", reason="scikit-learn (python3-sklearn) holds the digits data set")

td = load_example("train_digits")


@pytest.mark.parametrize("name", ["cpu:0", "opencl:0"])
def test_the_mlp_learns_the_digits(name):
    dev = require(name)
    lines = []
    net, losses, test_accuracy = td.train(dev, log=lines.append)
    assert len(lines) == len(losses) and losses[-1] < 0.5 * losses[0]
    assert all(p.device == dev for p in net.parameters())
    assert test_accuracy >= 0.95


OPTIMIZERS = {
    "sgd": (lambda params: optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=1e-3),
            lambda torch, params: torch.optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=1e-3)),
    "adam": (lambda params: optim.Adam(params, lr=0.01, weight_decay=1e-3),
             lambda torch, params: torch.optim.Adam(params, lr=0.01, weight_decay=1e-3)),
}


@pytest.mark.parametrize("name", ["cpu:0", "opencl:0"])
@pytest.mark.parametrize("method", sorted(OPTIMIZERS))
def test_the_loss_curve_is_pytorchs(name, method):
    torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) is the reference")
    dev = require(name)
    X, y, _, _ = td.load_data(dev)
    bp.manual_seed(0)
    net = td.make_model().to(dev)
    model = torch_copy(torch, net, load_example("train_digits", torch).make_model())
    make_bp, make_torch = OPTIMIZERS[method]
    opt, topt = make_bp(net.parameters()), make_torch(torch, model.parameters())
    batches = [idx for epoch in range(2) for idx in td.epoch_batches(len(X), 128, epoch)]
    ours, theirs = paired_losses(torch, net, model, opt, topt, X, y, batches)
    assert ours[-1] < 0.5 * ours[0]
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    for k, v in model.state_dict().items():
        np.testing.assert_allclose(net.state_dict()[k].numpy(), v.numpy(), rtol=1e-3, atol=1e-5,
                                   err_msg=k)
