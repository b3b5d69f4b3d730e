"""backplane.optim: SGD and Adam steps against their formulas in NumPy, in
place on each device, allocating nothing after the first step."""
import numpy as np
import pytest

import backplane as bp
from backplane import nn, optim


def quadratic_steps(dev, make_optimizer, steps=4):
    """Runs steps of the optimizer on loss = sum(w * w * c) and returns the
    host values of w before each step and the gradients seen."""
    w = nn.Parameter(bp.tensor([1.0, -2.0, 0.5], device=dev))
    c = bp.tensor([0.5, 1.0, 2.0], device=dev)
    opt = make_optimizer([w])
    before, grads = [], []
    for _ in range(steps):
        opt.zero_grad()
        (w * w * c).sum().backward()
        before.append(w.detach().numpy().astype(np.float64))
        grads.append(w.grad.numpy().astype(np.float64))
        opt.step()
    return w, before, grads


def test_sgd_with_momentum_and_weight_decay(dev):
    w, before, grads = quadratic_steps(
        dev, lambda p: optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01))
    expected, buf = before[0], None
    for g in grads:
        d = g + 0.01 * expected
        buf = d if buf is None else 0.9 * buf + d
        expected = expected - 0.1 * buf
    np.testing.assert_allclose(w.detach().numpy(), expected, rtol=1e-5, atol=1e-6)
    assert w.device == dev and w.requires_grad and w.is_leaf


def test_plain_sgd(dev):
    w, before, grads = quadratic_steps(dev, lambda p: optim.SGD(p, lr=0.25), steps=1)
    np.testing.assert_allclose(w.detach().numpy(), before[0] - 0.25 * grads[0], rtol=1e-6)


def test_adam(dev):
    lr, b1, b2, eps, wd = 0.05, 0.8, 0.9, 1e-8, 0.01
    w, before, grads = quadratic_steps(
        dev, lambda p: optim.Adam(p, lr=lr, betas=(b1, b2), eps=eps, weight_decay=wd))
    x, m, v = before[0], 0.0, 0.0
    for t, g in enumerate(grads, 1):
        g = g + wd * x
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        x = x - lr / (1 - b1 ** t) * m / (np.sqrt(v) / np.sqrt(1 - b2 ** t) + eps)
    np.testing.assert_allclose(w.detach().numpy(), x, rtol=1e-5, atol=1e-6)


def test_a_step_after_the_first_allocates_nothing(dev):
    backend = dev.backend
    net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).to(dev)
    X = bp.random.randn(16, 4, device=dev)
    for opt in (optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3),
                optim.Adam(net.parameters(), weight_decay=1e-3)):
        for step in range(3):
            loss = ((net(X) - 1.0) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            live, allocated = bp.live_tensor_count(), bp.backend_counters(backend)["allocations"]
            opt.step()
            if step:  # the first step makes the state
                assert bp.backend_counters(backend)["allocations"] == allocated
                assert bp.live_tensor_count() == live


def test_groups_skipped_parameters_and_zero_grad():
    a, b = nn.Parameter(bp.ones(2, device="cpu")), nn.Parameter(bp.ones(2, device="cpu"))
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    (a * 2).sum().backward()  # b has no gradient: not updated
    opt.step()
    np.testing.assert_allclose(a.detach().numpy(), [0.8, 0.8])
    np.testing.assert_array_equal(b.detach().numpy(), [1, 1])
    opt.param_groups[0]["lr"] = 1.0
    opt.step()
    np.testing.assert_allclose(a.detach().numpy(), [-1.2, -1.2], rtol=1e-6)
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(a.grad.numpy(), [0, 0])
    opt.zero_grad()
    assert a.grad is None


def test_what_an_optimizer_refuses():
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD(nn.LazyLinear(3).parameters(), lr=0.1)
    w = nn.Parameter(bp.ones(2, device="cpu"))
    with pytest.raises(ValueError, match="leaves"):
        optim.Adam([w * 2])
    with pytest.raises(ValueError, match=">= 0"):
        optim.SGD([w], lr=-1)
    with pytest.raises(ValueError, match="betas"):
        optim.Adam([w], betas=(0.9, 1.0))
