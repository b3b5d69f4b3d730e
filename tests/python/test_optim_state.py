"""Optimiser state_dict / load_state_dict: a run saved and restored goes on
exactly as the run that was not interrupted, on every device; and
zero_grad's two modes."""
import copy

import numpy as np
import pytest

import backplane as bp
from backplane import optim

OPTIMIZERS = {
    "sgd_momentum": lambda params: optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=0.01),
    "adam": lambda params: optim.Adam(params, lr=0.05, weight_decay=0.01),
}


def _params(dev):
    return [bp.tensor([[1.0, -2.0], [0.5, 3.0]], device=dev, requires_grad=True),
            bp.tensor([0.25, -0.75], device=dev, requires_grad=True)]


def _train(params, opt, steps):
    w, b = params
    x = bp.tensor([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.2]], device=w.device)
    for _ in range(steps):
        opt.zero_grad()
        ((x @ w + b).tanh() ** 2).sum().backward()
        opt.step()


@pytest.mark.parametrize("method", sorted(OPTIMIZERS))
def test_a_restored_run_goes_on_as_the_uninterrupted_one(dev, method):
    params = _params(dev)
    opt = OPTIMIZERS[method](params)
    _train(params, opt, 3)
    saved_params = [p.detach().copy() for p in params]
    saved = copy.deepcopy(opt.state_dict())
    _train(params, opt, 2)

    restored = _params(dev)
    with bp.no_grad():
        for p, s in zip(restored, saved_params):
            p.copy_(s)
    opt2 = OPTIMIZERS[method](restored)
    opt2.load_state_dict(saved)
    _train(restored, opt2, 2)
    for p, q in zip(params, restored):
        np.testing.assert_array_equal(p.numpy(), q.numpy())


def test_the_layout_is_pytorchs(dev):
    params = _params(dev)
    opt = optim.Adam([{"params": params[:1]}, {"params": params[1:], "lr": 0.5}])
    assert opt.state_dict()["state"] == {}  # no step yet, no state
    _train(params, opt, 2)
    sd = opt.state_dict()
    assert [g["params"] for g in sd["param_groups"]] == [[0], [1]]
    assert sd["param_groups"][1]["lr"] == 0.5
    assert sorted(sd["state"]) == [0, 1]
    assert sorted(sd["state"][0]) == ["exp_avg", "exp_avg_sq", "step"]
    assert sd["state"][0]["step"] == 2 and sd["state"][0]["exp_avg"].shape == (2, 2)
    sgd = optim.SGD(params, lr=0.1, momentum=0.5)
    _train(params, sgd, 1)
    assert sorted(sgd.state_dict()["state"][1]) == ["momentum_buffer"]


def test_state_moves_to_the_parameters_device(dev_pair):
    a, b = dev_pair
    opt = optim.SGD(_params(a), lr=0.1, momentum=0.9)
    _train(opt.param_groups[0]["params"], opt, 1)
    target = optim.SGD(_params(b), lr=0.1, momentum=0.9)
    target.load_state_dict(opt.state_dict())
    buf = target.state_dict()["state"][0]["momentum_buffer"]
    assert buf.device == b
    np.testing.assert_array_equal(buf.numpy(), opt.state_dict()["state"][0]["momentum_buffer"].numpy())


def test_mismatched_state_is_refused(dev):
    opt = optim.Adam(_params(dev))
    _train(opt.param_groups[0]["params"], opt, 1)
    with pytest.raises(ValueError, match="state_dict"):
        opt.load_state_dict(opt.param_groups)
    with pytest.raises(ValueError, match="parameters"):
        optim.Adam(_params(dev)[:1]).load_state_dict(opt.state_dict())
    sgd = optim.SGD(_params(dev), lr=0.1)
    _train(sgd.param_groups[0]["params"], sgd, 1)
    before = sgd.state_dict()
    sd = copy.deepcopy(before)
    sd["param_groups"][0]["lr"] = 0.5
    sd["state"] = {0: {"momentum_buffer": bp.zeros(2, 2, device=dev)}}
    with pytest.raises(ValueError, match="momentum_buffer"):
        sgd.load_state_dict(sd)  # momentum 0 keeps no buffer
    sgd2 = optim.SGD(_params(dev), lr=0.1, momentum=0.9)
    _train(sgd2.param_groups[0]["params"], sgd2, 1)
    kept = sgd2.state_dict()["state"][1]["momentum_buffer"].numpy()
    sd = copy.deepcopy(sgd2.state_dict())
    sd["param_groups"][0]["lr"] = 0.5
    sd["state"][1]["momentum_buffer"] = bp.zeros(5, device=dev)
    with pytest.raises(bp.ShapeError):
        sgd2.load_state_dict(sd)  # a buffer of another shape
    sd["state"][1]["momentum_buffer"] = bp.zeros(1, device=dev)
    with pytest.raises(bp.ShapeError):
        sgd2.load_state_dict(sd)  # one that copy_ would broadcast
    # Nothing changed: the learning rates and the state are as they were.
    assert sgd.param_groups[0]["lr"] == sgd2.param_groups[0]["lr"] == 0.1
    assert sgd.state_dict()["state"].keys() == before["state"].keys()
    np.testing.assert_array_equal(sgd2.state_dict()["state"][1]["momentum_buffer"].numpy(), kept)


def test_zero_grad_in_place_or_forgotten(dev):
    params = _params(dev)
    opt = optim.SGD(params, lr=0.1)
    _train(params, opt, 1)
    ((params[0] * 2).sum()).backward()
    grad = params[0].grad
    opt.zero_grad(set_to_none=False)
    assert params[0].grad is not None and not params[0].grad.numpy().any()
    assert not grad.numpy().any()  # zeroed in place: the old reference sees it
    opt.zero_grad(set_to_none=True)
    assert params[0].grad is None and params[1].grad is None
