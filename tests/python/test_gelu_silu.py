"""nn.GELU (exact through erf, and the tanh form), nn.SiLU and their
functions: torch 1.13's values and gradients to float32 rounding on every
device."""
import numpy as np
import pytest

import backplane as bp
from backplane import nn
from backplane.nn import functional as F

X = np.concatenate([np.linspace(-6, 6, 61), [-30.0, -0.0, 1e-4, 30.0]]).astype(np.float32)


def value_and_grad(fn, dev, dtype=np.float32):
    x = bp.tensor(X.astype(dtype), device=dev, requires_grad=True)
    y = fn(x)
    y.sum().backward()
    return y.detach().numpy(), x.grad.numpy()


def test_layers_and_arguments():
    assert repr(nn.GELU()) == "GELU(approximate='none')" and repr(nn.GELU("tanh")) == "GELU(approximate='tanh')"
    with pytest.raises(ValueError, match="'none' or 'tanh'"):
        nn.GELU("erf")
    with pytest.raises(ValueError, match="'none' or 'tanh'"):
        F.gelu(bp.ones(2), approximate="fast")
    x = bp.tensor([-1.0, 2.0])
    np.testing.assert_array_equal(nn.SiLU()(x).numpy(), F.silu(x).numpy())
    with bp.no_grad():
        y = F.silu(x, inplace=True)
    assert y is x and np.allclose(x.numpy(), [-1 / (1 + np.e), 2 / (1 + np.exp(-2.0))])


def test_float64_and_float16_keep_their_dtype(dev):
    for dtype in (bp.float64, bp.float16):
        x = bp.tensor([0.5, -1.5], dtype=dtype, device=dev)
        assert F.gelu(x).dtype == dtype and F.silu(x).dtype == dtype and F.gelu(x, approximate="tanh").dtype == dtype


torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) is the reference")

CASES = {
    "gelu": (lambda x: F.gelu(x), lambda t: torch.nn.functional.gelu(t)),
    "gelu_tanh": (lambda x: nn.GELU(approximate="tanh")(x), lambda t: torch.nn.functional.gelu(t, approximate="tanh")),
    "silu": (lambda x: nn.SiLU()(x), lambda t: torch.nn.functional.silu(t)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_torch_s_values_and_gradients(dev, name):
    fn, reference = CASES[name]
    y, g = value_and_grad(fn, dev)
    t = torch.tensor(X, requires_grad=True)
    ty = reference(t)
    ty.sum().backward()
    # Float32 rounding of these formulas: 1 + erf(x / sqrt(2)) (or 1 +
    # tanh(...)) is rounded near 1, an error of a few float32 epsilons that
    # the factor x carries: so a few epsilons of |x|, plus a relative 2e-6.
    bound = 2e-6 * np.abs(ty.detach().numpy()) + 4 * np.finfo(np.float32).eps * np.maximum(np.abs(X), 1)
    assert np.all(np.abs(y - ty.detach().numpy()) <= bound)
    if name == "gelu_tanh":
        # The gradient holds 1 - tanh(u)**2: a tanh a few ulp from its float32
        # value (OpenCL's math library is allowed that: plugin.h) is an error
        # of eps there, times 0.5 |x| du/dx.
        du = 0.7978845608 * (1 + 3 * 0.044715 * X.astype(np.float64) ** 2)
        bound = bound + 0.5 * np.abs(X) * 4 * np.finfo(np.float32).eps * du
    assert np.all(np.abs(g - t.grad.numpy()) <= 2e-6 * np.abs(t.grad.numpy()) + bound)
    # And in float64, exactly as the formulas are (to float64 rounding).
    y64, g64 = value_and_grad(fn, "cpu:0", np.float64)
    t64 = torch.tensor(X.astype(np.float64), requires_grad=True)
    reference(t64).sum().backward()
    np.testing.assert_allclose(y64, reference(torch.tensor(X.astype(np.float64))).numpy(), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(g64, t64.grad.numpy(), rtol=1e-13, atol=1e-15)
