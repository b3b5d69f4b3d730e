"""examples/train_digits.py: the digits MLP reaches 95% test accuracy on cpu:0
and opencl:0, and, from the same initial weights over the same batches, its
loss curve is PyTorch's to float32 tolerance."""
import importlib.util
import os

import numpy as np
import pytest

import backplane as bp
from backplane import nn, optim
from conftest import REPO, require

pytest.importorskip("sklearn", reason="scikit-learn (python3-sklearn) holds the digits data set")


def _example():
    path = os.path.join(REPO, "examples", "train_digits.py")
    spec = importlib.util.spec_from_file_location("train_digits", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


td = _example()


@pytest.mark.parametrize("name", ["cpu:0", "opencl:0"])
def test_the_mlp_learns_the_digits(name):
    dev = require(name)
    lines = []
    net, losses, test_accuracy = td.train(dev, log=lines.append)
    assert len(lines) == len(losses) and losses[-1] < 0.5 * losses[0]
    assert all(p.device == dev for p in net.parameters())
    assert test_accuracy >= 0.95


def _torch_copy(torch, net):
    """The same MLP in PyTorch with net's weights."""
    model = torch.nn.Sequential(torch.nn.Linear(td.FEATURES, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, td.CLASSES))
    state = {k: torch.from_numpy(v.numpy()) for k, v in net.state_dict().items()}
    model.load_state_dict(state)
    return model


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
    Xh, yh = torch.from_numpy(X.numpy()), torch.from_numpy(y.numpy())
    bp.manual_seed(0)
    net = td.make_model().to(dev)
    model = _torch_copy(torch, net)
    make_bp, make_torch = OPTIMIZERS[method]
    opt, topt = make_bp(net.parameters()), make_torch(torch, model.parameters())
    loss_fn, torch_loss_fn = nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss()
    ours, theirs = [], []
    for epoch in range(2):
        for idx in td.epoch_batches(len(X), 128, epoch):
            loss = loss_fn(net(X[bp.tensor(idx, device=dev)]), y[bp.tensor(idx, device=dev)])
            opt.zero_grad()
            loss.backward()
            opt.step()
            ours.append(loss.item())
            tloss = torch_loss_fn(model(Xh[idx]), yh[idx])
            topt.zero_grad()
            tloss.backward()
            topt.step()
            theirs.append(tloss.item())
    assert ours[-1] < 0.5 * ours[0]
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    for k, v in model.state_dict().items():
        np.testing.assert_allclose(net.state_dict()[k].numpy(), v.numpy(), rtol=1e-3, atol=1e-5,
                                   err_msg=k)
