"""The normalisations as PyTorch spells them, on every device: F.layer_norm,
F.rms_norm, F.group_norm, F.batch_norm, Tensor.var/std with correction= and
unbiased=, nn.LayerNorm, nn.RMSNorm, nn.GroupNorm, nn.BatchNorm1d/2d (their
buffers in state_dict, train()/eval()) and Gluon's nn.BatchNorm, against
NumPy in float64 and against torch 1.13 in float32 (skipped without
python3-torch), and the errors of bad shapes and eps."""
import numpy as np
import pytest

import backplane as bp
from backplane import nn
from backplane.nn import functional as F
from finite_differences import require_float64

RNG = np.random.default_rng(29)


def np_layer_norm(x, axes, w=None, b=None, eps=1e-5):
    red = tuple(range(x.ndim - axes, x.ndim))
    y = (x - x.mean(axis=red, keepdims=True)) / np.sqrt(x.var(axis=red, keepdims=True) + eps)
    return y * (1 if w is None else w) + (0 if b is None else b)


def np_batch_norm(x, mean, var, w, b, eps):
    shape = [1, x.shape[1]] + [1] * (x.ndim - 2)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * w.reshape(shape) + b.reshape(shape)


# ---- against NumPy in float64 -------------------------------------------------------


def test_layer_norm_and_rms_norm_match_numpy(dev):
    require_float64(dev)
    x = RNG.standard_normal((3, 4, 5)) * 2 + 1
    w, b = RNG.standard_normal((4, 5)), RNG.standard_normal((4, 5))
    t = bp.tensor(x, device=dev)
    y = F.layer_norm(t, (4, 5), bp.tensor(w, device=dev), bp.tensor(b, device=dev), eps=1e-3)
    np.testing.assert_allclose(y.numpy(), np_layer_norm(x, 2, w, b, 1e-3), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(F.layer_norm(t, 5).numpy(), np_layer_norm(x, 1), rtol=1e-12, atol=1e-12)
    r = F.rms_norm(t, [5], bp.tensor(w[0], device=dev), eps=1e-6)
    np.testing.assert_allclose(r.numpy(), x / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-6) * w[0],
                               rtol=1e-12, atol=1e-12)
    # eps None is the machine epsilon of the dtype, as PyTorch's.
    r32 = F.rms_norm(bp.tensor(x, dtype="float32", device=dev), (5,))
    np.testing.assert_allclose(r32.numpy(), x / np.sqrt((x ** 2).mean(-1, keepdims=True) + 2.0 ** -23),
                               rtol=2e-6, atol=2e-6)
    # A strided (transposed) input normalises its own last axis.
    xt = bp.tensor(x[0], device=dev).T
    np.testing.assert_allclose(F.layer_norm(xt, (4,)).numpy(), np_layer_norm(x[0].T, 1), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_layer_norm_of_narrower_dtypes_is_rounded_once_from_wide_statistics(dev, dtype):
    x = RNG.standard_normal((16, 64)) * 3 + 100  # far from 0: a float16 sum would lose it
    t = bp.tensor(x, dtype=dtype, device=dev)
    held = t.float().numpy().astype(np.float64)
    y = F.layer_norm(t, (64,))
    assert y.dtype == dtype
    ulp = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23}[dtype]
    # x - mean loses a few float32 ulps of |x| / std = 100 / 3 (the halves round that away).
    np.testing.assert_allclose(y.float().numpy(), np_layer_norm(held, 1), rtol=2 * ulp,
                               atol=2 * ulp + 4 * 2.0 ** -23 * 100 / 3)


def test_var_and_std_with_correction_unbiased_and_several_dims(dev):
    require_float64(dev)
    x = RNG.standard_normal((3, 4, 5)) + 1e3  # stable far from 0
    t = bp.tensor(x, device=dev)
    # No arguments: NumPy's spelling, by n; any of PyTorch's keywords: unbiased unless told otherwise.
    np.testing.assert_allclose(t.var().item(), x.var(), rtol=1e-10)
    np.testing.assert_allclose(t.var(unbiased=True).item(), x.var(ddof=1), rtol=1e-10)
    np.testing.assert_allclose(t.var(dim=1).numpy(), x.var(axis=1, ddof=1), rtol=1e-10)
    np.testing.assert_allclose(t.var(dim=(0, 2), correction=0).numpy(), x.var(axis=(0, 2)), rtol=1e-10)
    np.testing.assert_allclose(t.var(dim=(0, 2), keepdim=True, unbiased=True).numpy(),
                               x.var(axis=(0, 2), ddof=1, keepdims=True), rtol=1e-10)
    np.testing.assert_allclose(t.std(dim=1, correction=2).numpy(), x.std(axis=1, ddof=2), rtol=1e-10)
    np.testing.assert_allclose(bp.var(t, axis=(1, 2)).numpy(), x.var(axis=(1, 2)), rtol=1e-10)  # NumPy's ddof 0
    # n - correction <= 0: inf with spread, nan without (PyTorch's and NumPy's).
    v = bp.tensor([1.0, 2.0], device=dev).var(correction=2)
    assert np.isinf(v.item())
    assert np.isnan(bp.tensor([1.0], device=dev).var(unbiased=True).item())


def test_group_norm_matches_numpy(dev):
    require_float64(dev)
    x = RNG.standard_normal((2, 6, 3, 2))
    w, b = RNG.standard_normal(6), RNG.standard_normal(6)
    y = F.group_norm(bp.tensor(x, device=dev), 3, bp.tensor(w, device=dev), bp.tensor(b, device=dev), eps=1e-4)
    g = np_layer_norm(x.reshape(2, 3, 12), 1, eps=1e-4).reshape(x.shape)
    np.testing.assert_allclose(y.numpy(), g * w.reshape(1, 6, 1, 1) + b.reshape(1, 6, 1, 1), rtol=1e-12, atol=1e-12)


def test_batch_norm_trains_and_moves_the_running_statistics(dev):
    require_float64(dev)
    x = RNG.standard_normal((8, 3, 5)) * 2 + 0.5
    w, b = RNG.standard_normal(3), RNG.standard_normal(3)
    rm, rv = bp.zeros(3, dtype="float64", device=dev), bp.ones(3, dtype="float64", device=dev)
    y = F.batch_norm(bp.tensor(x, device=dev), rm, rv, bp.tensor(w, device=dev), bp.tensor(b, device=dev),
                     training=True, momentum=0.2, eps=1e-5)
    mean, var = x.mean(axis=(0, 2)), x.var(axis=(0, 2))
    np.testing.assert_allclose(y.numpy(), np_batch_norm(x, mean, var, w, b, 1e-5), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rm.numpy(), 0.2 * mean, rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), 0.8 + 0.2 * x.var(axis=(0, 2), ddof=1), rtol=1e-12)
    e = F.batch_norm(bp.tensor(x, device=dev), rm, rv, training=False)
    np.testing.assert_allclose(e.numpy(), np_batch_norm(x, rm.numpy(), rv.numpy(), np.ones(3), np.zeros(3), 1e-5),
                               rtol=1e-12, atol=1e-12)


# ---- the layers ---------------------------------------------------------------


def test_batchnorm_buffers_state_dict_and_modes(dev):
    m = nn.BatchNorm2d(3).to(dev)
    assert list(m.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert [n for n, _ in m.named_buffers()] == ["running_mean", "running_var", "num_batches_tracked"]
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"]
    assert m.running_mean.device == dev and m.num_batches_tracked.dtype == "int64"
    x = bp.tensor(RNG.standard_normal((4, 3, 2, 2)), dtype="float32", device=dev)
    m(x)
    m(x)
    assert m.num_batches_tracked.item() == 2
    assert np.abs(m.running_mean.numpy()).sum() > 0
    m.eval()
    before = m.running_mean.numpy().copy()
    m(x)
    np.testing.assert_array_equal(m.running_mean.numpy(), before)
    assert m.num_batches_tracked.item() == 2
    # A dtype change converts the float buffers and keeps the count's int64.
    m.to(dtype="float64")
    assert m.running_var.dtype == "float64" and m.num_batches_tracked.dtype == "int64"
    # state_dict round trip into a fresh layer.
    fresh = nn.BatchNorm2d(3).to(dev).to(dtype="float64")
    fresh.load_state_dict(m.state_dict())
    np.testing.assert_array_equal(fresh.running_mean.numpy(), m.running_mean.numpy())
    assert fresh.num_batches_tracked.item() == 2


def test_layers_without_running_statistics_or_affine(dev):
    m = nn.BatchNorm1d(4, affine=False, track_running_stats=False).to(dev)
    assert m.state_dict() == {} and list(m.parameters()) == []
    x = RNG.standard_normal((6, 4)).astype(np.float32)
    y = m.eval()(bp.tensor(x, device=dev))  # no running statistics: the batch's, also in eval
    np.testing.assert_allclose(y.numpy(), (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), rtol=1e-5, atol=1e-5)
    ln = nn.LayerNorm((4,), elementwise_affine=False).to(dev)
    assert list(ln.parameters()) == []
    assert [n for n, _ in nn.LayerNorm(4, bias=False).named_parameters()] == ["weight"]
    assert [n for n, _ in nn.RMSNorm([2, 4]).named_parameters()] == ["weight"]
    assert nn.RMSNorm(4).weight.shape == (4,)
    assert [n for n, _ in nn.GroupNorm(2, 4, affine=False).named_parameters()] == []


def test_gluon_batchnorm_is_lazy_with_mxnets_momentum(dev):
    net = nn.Sequential()
    net.add(nn.BatchNorm(momentum=0.75))
    net.initialize(ctx=dev)
    x = RNG.standard_normal((5, 2, 3)).astype(np.float32)
    y = net(bp.tensor(x, device=dev))
    bn = net[0]
    assert bn.in_channels == 2 and bn.gamma.shape == (2,) and bn.beta.device == dev
    assert list(bn.state_dict()) == ["gamma", "beta", "running_mean", "running_var"]
    np.testing.assert_allclose(y.numpy(), np_batch_norm(x, x.mean((0, 2)), x.var((0, 2)), np.ones(2),
                                                        np.zeros(2), 1e-5), rtol=1e-5, atol=1e-5)
    # running = 0.75 * running + 0.25 * batch.
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.25 * x.mean((0, 2)), rtol=1e-5, atol=1e-6)


def test_bad_shapes_and_eps_are_errors():
    x = bp.ones(2, 3)
    with pytest.raises(bp.ShapeError, match="normalized_shape \\[4\\] is not the last extents"):
        F.layer_norm(x, (4,))
    with pytest.raises(bp.ShapeError, match="normalized_shape"):
        F.layer_norm(x, (2, 3, 1))
    with pytest.raises(ValueError, match="eps is -1"):
        F.layer_norm(x, (3,), eps=-1.0)
    with pytest.raises(bp.ShapeError, match="the weight has shape \\[2\\]"):
        F.layer_norm(x, (3,), bp.ones(2))
    with pytest.raises(bp.ShapeError, match="2 groups do not divide the 3 channels"):
        F.group_norm(x, 2)
    with pytest.raises(ValueError, match="divisible"):
        nn.GroupNorm(2, 3)
    with pytest.raises(ValueError, match="expected 4D input \\(got 2D input\\)"):
        nn.BatchNorm2d(3)(x)
    with pytest.raises(bp.ShapeError, match="more than one value per channel"):
        nn.BatchNorm1d(3)(bp.ones(1, 3))
    with pytest.raises(ValueError, match="needs running_mean and running_var"):
        F.batch_norm(x, None, None, training=False)


# ---- against torch 1.13 in float32 ------------------------------------------------------


@pytest.fixture
def torch():
    return pytest.importorskip("torch", reason="PyTorch (python3-torch) is the reference")


def same_weights(ours, theirs):
    with bp.no_grad():
        for name, p in theirs.named_parameters():
            getattr(ours, name).copy_(bp.tensor(p.detach().numpy()))


def test_layer_norm_and_group_norm_match_torch(dev, torch):
    x = RNG.standard_normal((4, 6, 5)).astype(np.float32) * 3 + 2
    for ours, theirs in [(nn.LayerNorm((6, 5)), torch.nn.LayerNorm((6, 5))),
                         (nn.LayerNorm(5, eps=1e-3, bias=False), torch.nn.LayerNorm(5, eps=1e-3)),
                         (nn.GroupNorm(3, 6), torch.nn.GroupNorm(3, 6))]:
        with torch.no_grad():
            for p in theirs.parameters():
                p.copy_(torch.randn(p.shape))
        if getattr(theirs, "bias", None) is not None and getattr(ours, "bias", None) is None:
            with torch.no_grad():
                theirs.bias.zero_()  # torch 1.13's LayerNorm has no bias=False
        with bp.no_grad():
            for name, p in ours.named_parameters():
                p.copy_(bp.tensor(getattr(theirs, name).detach().numpy()))
        ours.to(dev)
        xt = bp.tensor(x, device=dev, requires_grad=True)
        xr = torch.tensor(x, requires_grad=True)
        y, yr = ours(xt), theirs(xr)
        np.testing.assert_allclose(y.numpy(), yr.detach().numpy(), rtol=1e-5, atol=1e-5)
        g = np.cos(np.arange(x.size, dtype=np.float32)).reshape(x.shape)
        (y * bp.tensor(g, device=dev)).sum().backward()
        (yr * torch.tensor(g)).sum().backward()
        np.testing.assert_allclose(xt.grad.numpy(), xr.grad.numpy(), rtol=1e-4, atol=1e-4)
        for name, p in ours.named_parameters():
            np.testing.assert_allclose(p.grad.numpy(), getattr(theirs, name).grad.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("layer, shape", [("BatchNorm1d", (8, 3)), ("BatchNorm1d", (8, 3, 4)),
                                          ("BatchNorm2d", (4, 3, 2, 5))])
@pytest.mark.parametrize("momentum", [0.1, None])
def test_batchnorm_matches_torch_over_several_steps(dev, torch, layer, shape, momentum):
    ours, theirs = getattr(nn, layer)(3, momentum=momentum), getattr(torch.nn, layer)(3, momentum=momentum)
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor([1.5, -0.5, 0.8]))
        theirs.bias.copy_(torch.tensor([0.1, 0.2, -0.3]))
    same_weights(ours, theirs)
    ours.to(dev)
    for step in range(4):
        x = (RNG.standard_normal(shape) * (step + 1) + step).astype(np.float32)
        y = ours(bp.tensor(x, device=dev))
        yr = theirs(torch.tensor(x))
        np.testing.assert_allclose(y.numpy(), yr.detach().numpy(), rtol=1e-5, atol=1e-5)
    for name in ("running_mean", "running_var"):
        np.testing.assert_allclose(getattr(ours, name).numpy(), getattr(theirs, name).numpy(), rtol=1e-5, atol=1e-6)
    assert ours.num_batches_tracked.item() == theirs.num_batches_tracked.item() == 4
    ours.eval()
    theirs.eval()
    x = RNG.standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(ours(bp.tensor(x, device=dev)).numpy(), theirs(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-5)
    # torch's state_dict loads into ours, keys and values alike.
    fresh = getattr(nn, layer)(3)
    fresh.load_state_dict({k: bp.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    np.testing.assert_allclose(fresh.running_var.numpy(), theirs.running_var.numpy(), rtol=1e-6)
    assert list(fresh.state_dict()) == list(theirs.state_dict())


def test_functional_forms_match_torch(dev, torch):
    x = RNG.standard_normal((6, 4, 3)).astype(np.float32)
    w, b = RNG.standard_normal(4).astype(np.float32), RNG.standard_normal(4).astype(np.float32)
    ours = F.batch_norm(bp.tensor(x, device=dev), None, None, bp.tensor(w, device=dev), bp.tensor(b, device=dev),
                        training=True)
    theirs = torch.nn.functional.batch_norm(torch.tensor(x), None, None, torch.tensor(w), torch.tensor(b),
                                            training=True)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)
    ours = F.group_norm(bp.tensor(x, device=dev), 2, bp.tensor(w, device=dev))
    theirs = torch.nn.functional.group_norm(torch.tensor(x), 2, torch.tensor(w))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)
    ours = F.layer_norm(bp.tensor(x, device=dev), (4, 3))
    theirs = torch.nn.functional.layer_norm(torch.tensor(x), (4, 3))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)
    t = bp.tensor(x, device=dev)
    r = torch.tensor(x)
    np.testing.assert_allclose(t.var(dim=(0, 2), unbiased=False).numpy(), r.var(dim=(0, 2), unbiased=False).numpy(),
                               rtol=1e-5)
    np.testing.assert_allclose(t.std(dim=1, correction=0).numpy(), r.std(dim=1, unbiased=False).numpy(), rtol=1e-5)
