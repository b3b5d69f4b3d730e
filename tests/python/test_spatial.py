"""Pooling, dropout, padding and resizing against torch 1.13 in float32 on
every device: values, max pooling's indices and the gradients backward()
gives; the layers of backplane.nn with torch's and Gluon's spellings, their
train()/eval() modes; dropout's one mask on every device for a seed and its
keep rate; PyTorch's refusals as errors naming the operator."""
import numpy as np
import pytest

import backplane as bp
from backplane import nn
from backplane.nn import functional as F
from conftest import PRESENT

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(5)


def pair(shape, dev):
    """The same float32 values as a torch leaf and a backplane leaf on dev."""
    x = RNG.standard_normal(shape).astype(np.float32)
    return torch.tensor(x, requires_grad=True), bp.tensor(x, device=dev, requires_grad=True)


def same_backward(yt, yb, xt, xb, rtol=1e-5, atol=1e-6):
    """Both outputs weighted by one random tensor and summed, then backward:
    the gradients of the two inputs must agree."""
    w = RNG.standard_normal(tuple(yt.shape)).astype(np.float32)
    (yt * torch.tensor(w)).sum().backward()
    (yb * bp.tensor(w, device=yb.device)).sum().backward()
    np.testing.assert_allclose(xb.grad.numpy(), xt.grad.numpy(), rtol=rtol, atol=atol)


MAX_POOLS = [
    ("1d", (2, 3, 11), dict(kernel_size=3, stride=2, padding=1)),
    ("1d ceil dilation", (2, 3, 12), dict(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True)),
    ("2d", (2, 3, 9, 8), dict(kernel_size=2)),
    ("2d ceil", (1, 4, 7, 9), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ("2d rectangular", (2, 2, 8, 10), dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 2))),
    ("2d unbatched", (3, 6, 6), dict(kernel_size=2, stride=1)),
    ("3d", (1, 2, 5, 6, 7), dict(kernel_size=(2, 3, 2), stride=(1, 2, 2), padding=(1, 1, 0), ceil_mode=True)),
]


@pytest.mark.parametrize("name,shape,kw", MAX_POOLS, ids=[c[0] for c in MAX_POOLS])
def test_max_pool_values_indices_and_gradients_match_torch(dev, name, shape, kw):
    rank = len(shape) - 2 if "unbatched" not in name else len(shape) - 1
    fb = getattr(F, "max_pool{}d".format(rank))
    ft = getattr(TF, "max_pool{}d".format(rank))
    xt, xb = pair(shape, dev)
    yt, it = ft(xt, return_indices=True, **kw)
    yb, ib = fb(xb, return_indices=True, **kw)
    assert yb.device == dev and yb.shape == tuple(yt.shape) and ib.dtype == bp.int64
    np.testing.assert_array_equal(yb.numpy(), yt.detach().numpy())
    np.testing.assert_array_equal(ib.numpy(), it.numpy())
    same_backward(yt, yb, xt, xb)


AVG_POOLS = [
    ("1d", (2, 3, 11), dict(kernel_size=3, stride=2, padding=1)),
    ("1d ceil", (2, 1, 10), dict(kernel_size=4, stride=3, padding=2, ceil_mode=True)),
    ("2d", (2, 3, 8, 8), dict(kernel_size=2)),
    ("2d ceil", (1, 3, 7, 9), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ("2d divisor", (2, 2, 7, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, divisor_override=5)),
    ("3d", (1, 2, 5, 6, 7), dict(kernel_size=(2, 3, 2), stride=(2, 1, 2), padding=(1, 1, 0), ceil_mode=True)),
]


@pytest.mark.parametrize("include", [False, True], ids=["exclude_pad", "include_pad"])
@pytest.mark.parametrize("name,shape,kw", AVG_POOLS, ids=[c[0] for c in AVG_POOLS])
def test_avg_pool_values_and_gradients_match_torch(dev, name, shape, kw, include):
    rank = len(shape) - 2
    xt, xb = pair(shape, dev)
    yt = getattr(TF, "avg_pool{}d".format(rank))(xt, count_include_pad=include, **kw)
    yb = getattr(F, "avg_pool{}d".format(rank))(xb, count_include_pad=include, **kw)
    assert yb.shape == tuple(yt.shape)
    np.testing.assert_allclose(yb.numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    same_backward(yt, yb, xt, xb)


@pytest.mark.parametrize("size", [(1, 1), (3, 4), (5, 2), (4, None)])
def test_adaptive_pooling_matches_torch(dev, size):
    xt, xb = pair((2, 3, 9, 7), dev)
    yt = TF.adaptive_avg_pool2d(xt, size)
    yb = F.adaptive_avg_pool2d(xb, size)
    np.testing.assert_allclose(yb.numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    same_backward(yt, yb, xt, xb)
    xt, xb = pair((2, 3, 9, 7), dev)
    yt, it = TF.adaptive_max_pool2d(xt, size, return_indices=True)
    yb, ib = F.adaptive_max_pool2d(xb, size, return_indices=True)
    np.testing.assert_array_equal(yb.numpy(), yt.detach().numpy())
    np.testing.assert_array_equal(ib.numpy(), it.numpy())
    same_backward(yt, yb, xt, xb)
    xt, xb = pair((2, 3, 10), dev)
    np.testing.assert_allclose(F.adaptive_avg_pool1d(xb, 4).numpy(), TF.adaptive_avg_pool1d(xt, 4).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_layers_match_torch_and_gluon_spellings(dev):
    xt, xb = pair((2, 3, 8, 8), dev)
    layers = [
        (nn.MaxPool2d(3, stride=2, padding=1), torch.nn.MaxPool2d(3, stride=2, padding=1)),
        (nn.MaxPool2d(2, return_indices=True), torch.nn.MaxPool2d(2, return_indices=True)),
        (nn.AvgPool2d(3, padding=1, stride=1), torch.nn.AvgPool2d(3, padding=1, stride=1)),
        (nn.AvgPool2d(2, count_include_pad=False, padding=1), torch.nn.AvgPool2d(2, count_include_pad=False, padding=1)),
        (nn.AdaptiveAvgPool2d((1, 1)), torch.nn.AdaptiveAvgPool2d((1, 1))),
        (nn.AdaptiveMaxPool2d(3), torch.nn.AdaptiveMaxPool2d(3)),
        (nn.MaxPool2D(pool_size=3, strides=2, padding=1), torch.nn.MaxPool2d(3, 2, 1)),
        (nn.AvgPool2D(pool_size=2), torch.nn.AvgPool2d(2)),
        (nn.GlobalAvgPool2D(), torch.nn.AdaptiveAvgPool2d(1)),
        (nn.Flatten(), torch.nn.Flatten()),
    ]
    for ours, theirs in layers:
        got, want = ours(xb), theirs(xt)
        if isinstance(want, tuple):
            np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
            got, want = got[0], want[0]
        np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6, err_msg=repr(ours))
    x1t, x1b = pair((2, 3, 9), dev)
    np.testing.assert_array_equal(nn.MaxPool1d(3, 2)(x1b).numpy(), torch.nn.MaxPool1d(3, 2)(x1t).detach().numpy())
    np.testing.assert_allclose(nn.AvgPool1d(3, 2, 1)(x1b).numpy(), torch.nn.AvgPool1d(3, 2, 1)(x1t).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(nn.AdaptiveAvgPool1d(4)(x1b).numpy(), torch.nn.AdaptiveAvgPool1d(4)(x1t).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_dropout_draws_one_mask_on_every_device_and_keeps_about_one_minus_p():
    x = np.ones((200, 500), dtype=np.float32)
    masks = {}
    for name, d in sorted(PRESENT.items()):
        bp.manual_seed(42)
        masks[name] = F.dropout(bp.tensor(x, device=d), p=0.3).numpy()
    first = next(iter(masks.values()))
    assert set(np.unique(first)) <= {0.0, np.float32(1 / 0.7)}
    assert abs((first != 0).mean() - 0.7) < 0.01
    for name, m in masks.items():
        np.testing.assert_array_equal(m, first, err_msg=name)
    # The next call draws another mask; training=False is the identity.
    bp.manual_seed(42)
    a, b = F.dropout(bp.tensor(x), 0.5), F.dropout(bp.tensor(x), 0.5)
    assert not np.array_equal(a.numpy(), b.numpy())
    t = bp.tensor(x)
    assert F.dropout(t, 0.5, training=False) is t
    with pytest.raises(ValueError):
        F.dropout(t, 1.5)


def test_dropout_layer_follows_train_and_eval_of_its_parents(dev):
    net = nn.Sequential(nn.Linear(6, 6), nn.Sequential(nn.ReLU(), nn.Dropout(0.5)), nn.Dropout(rate=0.2))
    x = bp.ones(4, 6, device=dev)
    net.to(device=dev)
    assert net.training and all(m.training for m in net.modules())
    net.eval()
    assert not any(m.training for m in net.modules())
    np.testing.assert_array_equal(net(x).numpy(), net(x).numpy())
    net.train()
    assert all(m.training for m in net.modules())
    y = nn.Dropout(0.5)(bp.ones(1000, device=dev)).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 0.4 < (y != 0).mean() < 0.6
    assert nn.Dropout(0.25).p == 0.25 and nn.Dropout(rate=0.1).p == 0.1


PADS = [((2, 1), "constant"), ((-1, 2), "constant"), ((2, 1, 1, 0), "constant"), ((2, 1), "reflect"),
        ((-1, 3), "reflect"), ((1, 2, 2, 1), "reflect"), ((2, 1), "replicate"), ((1, -2, 3, 1), "replicate"),
        ((1, 1, 2, 0, 1, 1), "constant")]


@pytest.mark.parametrize("amounts,mode", PADS, ids=["{}-{}".format(m, a) for a, m in PADS])
def test_pad_matches_torch(dev, amounts, mode):
    # torch 1.13 pads the last len(amounts) / 2 axes of a tensor of that many
    # plus 1 or 2 axes in the modes other than constant.
    xt, xb = pair((2, 3, 5, 6)[:2 + len(amounts) // 2] if mode != "constant" else (2, 3, 5, 6), dev)
    kw = {"value": 1.5} if mode == "constant" else {}
    yt, yb = TF.pad(xt, amounts, mode=mode, **kw), F.pad(xb, amounts, mode=mode, **kw)
    np.testing.assert_array_equal(yb.numpy(), yt.detach().numpy())
    same_backward(yt, yb, xt, xb)


INTERPOLATIONS = [
    ((2, 3, 7), dict(size=12, mode="nearest")),
    ((2, 3, 7), dict(scale_factor=1.7, mode="nearest")),
    ((2, 3, 7), dict(size=16, mode="linear", align_corners=False)),
    ((2, 3, 7), dict(size=5, mode="linear", align_corners=True)),
    ((1, 2, 5, 6), dict(size=(8, 3), mode="nearest")),
    ((1, 2, 5, 6), dict(scale_factor=2, mode="nearest")),
    ((1, 2, 5, 6), dict(size=(9, 11), mode="bilinear", align_corners=False)),
    ((1, 2, 5, 6), dict(scale_factor=(1.5, 0.5), mode="bilinear", align_corners=True)),
    ((1, 2, 5, 6), dict(scale_factor=2.5, mode="bilinear", align_corners=False)),
    ((1, 1, 3, 4, 5), dict(size=(5, 4, 7), mode="trilinear", align_corners=False)),
    ((1, 1, 3, 4, 5), dict(scale_factor=2, mode="trilinear", align_corners=True)),
]


@pytest.mark.parametrize("shape,kw", INTERPOLATIONS, ids=[str(i) for i in range(len(INTERPOLATIONS))])
def test_interpolate_matches_torch(dev, shape, kw):
    xt, xb = pair(shape, dev)
    yt, yb = TF.interpolate(xt, **kw), F.interpolate(xb, **kw)
    assert yb.shape == tuple(yt.shape)
    np.testing.assert_allclose(yb.numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    same_backward(yt, yb, xt, xb, rtol=1e-4, atol=1e-5)


def test_pytorch_refusals_are_shape_errors_naming_the_operator():
    x = bp.ones(1, 1, 5, 5)
    with pytest.raises(bp.ShapeError, match="max_pool.*more than half the kernel"):
        F.max_pool2d(x, 2, padding=2)
    with pytest.raises(bp.ShapeError, match="avg_pool.*larger than the padded input"):
        F.avg_pool2d(x, 7)
    with pytest.raises(bp.ShapeError, match="covers only padding"):
        F.max_pool1d(bp.ones(1, 1, 2), 2, stride=1, padding=1, dilation=3)
    with pytest.raises(ValueError, match="max_pool2d: expected a 3-d"):
        F.max_pool2d(bp.ones(5, 5), 2)
    with pytest.raises(bp.ShapeError, match="reflect"):
        F.pad(x, (5, 0), mode="reflect")
    with pytest.raises(ValueError, match="align_corners"):
        F.interpolate(x, size=3, align_corners=True)
