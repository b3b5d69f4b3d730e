"""nn.utils.clip_grad_norm_ and clip_grad_value_ against torch 1.13: the
total norm returned and the clipped gradients, for every norm type, on
every device and across two."""
import math

import numpy as np
import pytest

import backplane as bp
from backplane import nn

GRADS = [np.linspace(-3.0, 2.0, 12, dtype=np.float32).reshape(3, 4), np.array([0.5, -4.0, 0.0], np.float32),
         np.full((2, 2), 0.25, np.float32)]


def parameters(devices):
    """Parameters holding GRADS as their gradients (and one without), on
    the devices given in turn."""
    params = []
    for g, dev in zip(GRADS, devices):
        p = nn.Parameter(bp.zeros(g.shape, device=dev))
        (p * bp.tensor(g, device=dev)).sum().backward()
        params.append(p)
    params.append(nn.Parameter(bp.ones(2, device=devices[0])))  # no gradient
    return params


def test_nothing_to_clip_gives_a_zero_norm_and_errors_when_asked():
    total = nn.utils.clip_grad_norm_([nn.Parameter(bp.ones(2))], 1.0)
    assert total.item() == 0.0 and total.device == "cpu:0"
    p = nn.Parameter(bp.ones(2))
    (p * bp.tensor([float("inf"), 1.0])).sum().backward()
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    big = parameters(["cpu:0"] * 3)
    before = [q.grad.numpy() for q in big[:3]]
    nn.utils.clip_grad_norm_(big, 100.0)  # under the bound: the gradients stay
    for q, g in zip(big, before):
        np.testing.assert_array_equal(q.grad.numpy(), g)


torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) is the reference")


def torch_parameters():
    params = []
    for g in GRADS:
        p = torch.nn.Parameter(torch.zeros(g.shape))
        p.grad = torch.tensor(g)
        params.append(p)
    params.append(torch.nn.Parameter(torch.ones(2)))
    return params


@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf, 3.5, 0.0, -math.inf])
def test_norms_and_clipped_gradients_are_torch_s(dev, norm_type):
    params, reference = parameters([dev] * 3), torch_parameters()
    total = nn.utils.clip_grad_norm_(params, 1.5, norm_type=norm_type)
    ttotal = torch.nn.utils.clip_grad_norm_(reference, 1.5, norm_type=norm_type)
    assert total.device == dev and total.shape == () and total.dtype == bp.float32
    np.testing.assert_allclose(total.item(), ttotal.item(), rtol=1e-6)
    for p, t in zip(params[:3], reference[:3]):
        np.testing.assert_allclose(p.grad.numpy(), t.grad.numpy(), rtol=1e-6, atol=1e-7)
    assert params[3].grad is None


def test_gradients_on_two_devices_are_clipped_each_on_its_own():
    devices = ["cpu:0", "reference:0", "cpu:0"]
    params, reference = parameters(devices), torch_parameters()
    total = nn.utils.clip_grad_norm_(iter(params), 2.0)
    ttotal = torch.nn.utils.clip_grad_norm_(reference, 2.0)
    assert total.device == "cpu:0"
    np.testing.assert_allclose(total.item(), ttotal.item(), rtol=1e-6)
    for p, t, dev in zip(params, reference, devices):
        assert p.grad.device == dev
        np.testing.assert_allclose(p.grad.numpy(), t.grad.numpy(), rtol=1e-6, atol=1e-7)


def test_clip_grad_value_is_torch_s(dev):
    params, reference = parameters([dev] * 3), torch_parameters()
    assert nn.utils.clip_grad_value_(params, 0.75) is None
    torch.nn.utils.clip_grad_value_(reference, 0.75)
    for p, t in zip(params[:3], reference[:3]):
        np.testing.assert_array_equal(p.grad.numpy(), t.grad.numpy())
