"""The gradient tests' check: backward() of a weighted sum of a function's
output against central finite differences, in float64, on a device."""
import numpy as np
import pytest

import backplane as bp


def require_float64(dev):
    """Skips the test where dev has no float64."""
    try:
        bp.ones(1, dtype="float64", device=dev).exp().numpy()
    except (bp.DtypeError, bp.UnsupportedError) as e:
        pytest.skip("{} has no float64: {}".format(dev, e))


def weights(n):
    """Fixed, distinct weights: sum(f(x) * w) exercises every output element."""
    k = np.arange(n)
    return 0.5 + 0.25 * (k % 7) - 0.125 * (k % 3)


def _weighted(fn, tensors, weights):
    out = fn(*tensors)
    w = bp.tensor(weights(out.numel()).reshape(out.shape), dtype=out.dtype, device=out.device)
    return (out * w).sum()


def assert_gradients_match(fn, inputs, dev, name, weights=weights, h=1e-6):
    """The gradient of sum(fn(*inputs) * weights(n)) on dev as backward()
    gives it (inputs: float64 arrays) is, for each input, a tensor of its
    shape on dev and the central finite differences of step h to 1e-6."""
    xs = [bp.tensor(x, dtype="float64", device=dev, requires_grad=True) for x in inputs]
    _weighted(fn, xs, weights).backward()
    for i, x in enumerate(inputs):
        analytic = xs[i].grad
        assert analytic is not None and analytic.device == dev and analytic.shape == x.shape
        numeric = np.zeros_like(x)
        with bp.no_grad():
            for j in np.ndindex(x.shape):
                def at(delta):
                    moved = [v.copy() for v in inputs]
                    moved[i][j] += delta
                    return _weighted(fn, [bp.tensor(v, device=dev) for v in moved], weights).item()
                numeric[j] = (at(h) - at(-h)) / (2 * h)
        np.testing.assert_allclose(analytic.numpy(), numeric, rtol=1e-6, atol=1e-6,
                                   err_msg="{}: input {}".format(name, i))
