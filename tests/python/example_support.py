"""What the tests of the training examples share: loading an example as a
module (also as the PyTorch program it is, torch standing for backplane),
and running it and its PyTorch twin side by side from the same weights over
the same batches."""
import importlib.util
import os
import sys

import numpy as np
import pytest

import backplane as bp
from conftest import REPO

# Minutes of training in the sanitizer build (Debug, ASan): its run covers
# the same operators in the unit tests; the Release run trains the networks.
skip_under_asan = pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                                     reason="networks are trained in the Release run, not under ASan")


def load_example(name, torch=None):
    """examples/<name>.py as a module. With torch, its imports of backplane,
    backplane.nn and backplane.nn.functional get torch's: the example is a
    PyTorch program with torch spelled backplane, so its make_model() then
    builds the same network in PyTorch. The modules it imports itself
    (digits_data) must have been imported before."""
    path = os.path.join(REPO, "examples", name + ".py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    if torch is None:
        spec.loader.exec_module(module)
        return module
    names = ("backplane", "backplane.nn", "backplane.nn.functional")
    ours = {k: sys.modules[k] for k in names}
    sys.modules.update(zip(names, (torch, torch.nn, torch.nn.functional)))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.update(ours)
    return module


def torch_copy(torch, net, model):
    """model (a torch module of net's layout) holding net's weights."""
    model.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in net.state_dict().items()})
    return model


def train_step(model, loss_fn, opt, x, y):
    """One optimizer step on the loss of model(x) against y, in backplane or
    in torch alike; the loss as a float."""
    loss = loss_fn(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


def paired_losses(torch, net, model, opt, topt, X, y, batches, dtype=None):
    """The cross-entropy losses of net (ours, on X's device, its batches
    converted to dtype where given) and model (its torch copy), each stepped
    by its optimizer over the same batches (index arrays into X and y):
    (ours, theirs)."""
    Xh, yh = torch.from_numpy(X.numpy()), torch.from_numpy(y.numpy())
    loss_fn, torch_loss_fn = bp.nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss()
    ours, theirs = [], []
    for idx in batches:
        rows = bp.tensor(idx, device=X.device)
        x = X[rows] if dtype is None else X[rows].to(dtype)
        ours.append(train_step(net, loss_fn, opt, x, y[rows]))
        theirs.append(train_step(model, torch_loss_fn, topt, Xh[idx], yh[idx]))
    return ours, theirs


def assert_curves_match(ours, theirs, where, rtol):
    """ours and theirs agree to rtol, the largest relative difference
    printed (pytest -s shows it)."""
    worst = max(abs(a - b) / abs(b) for a, b in zip(ours, theirs))
    print("largest relative difference of the loss over {} steps on {}: {:.2e}".format(len(ours), where, worst))
    np.testing.assert_allclose(ours, theirs, rtol=rtol)
