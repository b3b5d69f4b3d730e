"""Convolutions (since 1.6) as PyTorch users write them: nn.Conv1d/2d/3d,
nn.ConvTranspose1d/2d/3d and F.conv*, against torch 1.13 in float32 (values
and the gradients of input, weight and bias, with the same weights) on every
device; gradients against finite differences in float64; PyTorch's
initialisation; Gluon's Conv2D; and the errors."""
import math

import numpy as np
import pytest

import backplane as bp
from backplane import nn
from backplane.nn import functional as F
from finite_differences import assert_gradients_match, require_float64

torch = pytest.importorskip("torch")

# (layer, constructor arguments, input shape): torch's layer of that name
# and ours, made alike, with the weights copied across.
LAYERS = [
    ("Conv1d", dict(in_channels=3, out_channels=4, kernel_size=3), (2, 3, 9)),
    ("Conv1d", dict(in_channels=4, out_channels=6, kernel_size=2, stride=2, padding=1, dilation=2, groups=2,
                    bias=False), (2, 4, 11)),
    ("Conv2d", dict(in_channels=3, out_channels=5, kernel_size=3, padding=1), (2, 3, 8, 7)),
    ("Conv2d", dict(in_channels=4, out_channels=8, kernel_size=(3, 2), stride=(2, 1), padding=(1, 0),
                    dilation=(1, 2), groups=4), (2, 4, 9, 8)),
    ("Conv2d", dict(in_channels=3, out_channels=4, kernel_size=4, padding="same", dilation=2), (1, 3, 9, 9)),
    ("Conv2d", dict(in_channels=6, out_channels=4, kernel_size=1, stride=2, bias=False), (2, 6, 7, 7)),
    ("Conv2d", dict(in_channels=3, out_channels=3, kernel_size=3, padding="valid"), (3, 6, 6)),  # unbatched
    ("Conv3d", dict(in_channels=2, out_channels=3, kernel_size=(2, 3, 2), stride=(1, 2, 1), padding=1),
     (1, 2, 4, 6, 5)),
    ("ConvTranspose1d", dict(in_channels=3, out_channels=2, kernel_size=3, stride=2, output_padding=1),
     (2, 3, 5)),
    ("ConvTranspose2d", dict(in_channels=4, out_channels=6, kernel_size=3, stride=2, padding=1, output_padding=1,
                             groups=2), (2, 4, 4, 5)),
    ("ConvTranspose2d", dict(in_channels=2, out_channels=3, kernel_size=(2, 3), stride=(1, 2), padding=(0, 1),
                             dilation=(3, 1), output_padding=(2, 0)), (1, 2, 5, 4)),
    ("ConvTranspose3d", dict(in_channels=2, out_channels=2, kernel_size=2, stride=2), (1, 2, 2, 3, 2)),
]


def _pair(name, kwargs, dev):
    torch.manual_seed(len(name) + len(kwargs))
    theirs = getattr(torch.nn, name)(**kwargs)
    ours = getattr(nn, name)(**kwargs, device=dev)
    with bp.no_grad():
        ours.weight.copy_(bp.tensor(theirs.weight.detach().numpy(), device=dev))
        if theirs.bias is not None:
            ours.bias.copy_(bp.tensor(theirs.bias.detach().numpy(), device=dev))
    return theirs, ours


@pytest.mark.parametrize("name, kwargs, shape", LAYERS,
                         ids=["{}-{}".format(n, i) for i, (n, _, _) in enumerate(LAYERS)])
def test_layers_match_torch_values_and_gradients(dev, name, kwargs, shape):
    theirs, ours = _pair(name, kwargs, dev)
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    tx = torch.tensor(x, requires_grad=True)
    ty = theirs(tx)
    g = np.random.default_rng(4).standard_normal(tuple(ty.shape)).astype(np.float32)
    ty.backward(torch.tensor(g))
    bx = bp.tensor(x, device=dev, requires_grad=True)
    by = ours(bx)
    assert tuple(by.shape) == tuple(ty.shape) and by.device == dev
    (by * bp.tensor(g, device=dev)).sum().backward()
    np.testing.assert_allclose(by.numpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-4, atol=1e-4)
    if theirs.bias is not None:
        np.testing.assert_allclose(ours.bias.grad.numpy(), theirs.bias.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_functional_forms_match_torch(dev):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 4, 7, 6)).astype(np.float32)
    w = rng.standard_normal((6, 2, 3, 3)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    ours = F.conv2d(bp.tensor(x, device=dev), bp.tensor(w, device=dev), bp.tensor(b, device=dev), stride=(2, 1),
                    padding=(1, 2), dilation=(1, 2), groups=2)
    theirs = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), torch.tensor(b), stride=(2, 1),
                                        padding=(1, 2), dilation=(1, 2), groups=2)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-4, atol=1e-5)
    wt = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    ours = F.conv_transpose2d(bp.tensor(x, device=dev), bp.tensor(wt, device=dev), None, stride=2, padding=1,
                              output_padding=1, groups=2)
    theirs = torch.nn.functional.conv_transpose2d(torch.tensor(x), torch.tensor(wt), None, stride=2, padding=1,
                                                  output_padding=1, groups=2)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-4, atol=1e-5)
    x1 = rng.standard_normal((3, 2, 10)).astype(np.float32)
    w1 = rng.standard_normal((4, 2, 3)).astype(np.float32)
    np.testing.assert_allclose(F.conv1d(bp.tensor(x1, device=dev), bp.tensor(w1, device=dev), padding="same").numpy(),
                               torch.nn.functional.conv1d(torch.tensor(x1), torch.tensor(w1), padding="same").numpy(),
                               rtol=1e-4, atol=1e-5)
    x3 = rng.standard_normal((1, 2, 4, 5, 3)).astype(np.float32)
    w3 = rng.standard_normal((2, 2, 2, 2, 2)).astype(np.float32)
    np.testing.assert_allclose(F.conv3d(bp.tensor(x3, device=dev), bp.tensor(w3, device=dev), stride=2,
                                        padding=1).numpy(),
                               torch.nn.functional.conv3d(torch.tensor(x3), torch.tensor(w3), stride=2,
                                                          padding=1).numpy(), rtol=1e-4, atol=1e-5)


# (function of the tensors, input shapes): each input's gradient against
# central finite differences in float64.
GRADCHECKS = {
    "conv2d": (lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=2),
               [(2, 4, 5, 6), (4, 2, 2, 2), (4,)]),
    "conv1d_same": (lambda x, w: F.conv1d(x, w, padding="same"), [(1, 2, 6), (3, 2, 4)]),
    "conv3d": (lambda x, w: F.conv3d(x, w, padding=1), [(1, 1, 3, 3, 2), (2, 1, 2, 2, 2)]),
    "conv_transpose2d": (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
                         [(1, 2, 3, 3), (2, 3, 3, 3), (3,)]),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradients_match_finite_differences(dev, name):
    require_float64(dev)
    fn, shapes = GRADCHECKS[name]
    rng = np.random.default_rng(6)
    inputs = [rng.standard_normal(s) for s in shapes]
    assert_gradients_match(fn, inputs, dev, name, weights=lambda n: np.linspace(0.5, 1.5, n))


def test_default_initialisation_is_pytorchs():
    """kaiming_uniform_(a=sqrt(5)): weight and bias uniform within
    1/sqrt(fan_in), fan_in = in / groups * prod(kernel)."""
    bp.manual_seed(0)
    conv = nn.Conv2d(16, 32, 3, groups=2)
    bound = 1 / math.sqrt(8 * 9)
    w = conv.weight.numpy()
    assert w.shape == (32, 8, 3, 3) and conv.bias.shape == (32,)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.1 * bound
    assert np.abs(conv.bias.numpy()).max() <= bound
    t = nn.ConvTranspose2d(4, 6, 3, groups=2)  # weight (4, 3, 3, 3): fan_in 3 * 9
    assert tuple(t.weight.shape) == (4, 3, 3, 3)
    assert np.abs(t.weight.numpy()).max() <= 1 / math.sqrt(27)
    assert repr(conv) == "Conv2d(16, 32, kernel_size=(3, 3), stride=(1, 1), groups=2)"


def test_gluon_conv2d_infers_in_channels_and_applies_its_activation(dev):
    """The MXNet edition's nn.Conv2D(channels, kernel_size, strides, padding,
    activation=..., in_channels=0) inside net.add / net.initialize."""
    net = nn.Sequential()
    net.add(nn.Conv2D(channels=6, kernel_size=5, padding=2, activation="sigmoid"),
            nn.Conv2D(4, kernel_size=3, strides=2))
    net.initialize(init=nn.init.Normal(0.01), ctx=dev)
    x = bp.tensor(np.random.default_rng(7).standard_normal((2, 1, 8, 8)).astype(np.float32), device=dev)
    y = net(x)
    assert tuple(y.shape) == (2, 4, 3, 3) and y.device == dev
    first = net[0]
    assert first.in_channels == 1 and tuple(first.weight.shape) == (6, 1, 5, 5)
    assert np.all(first.bias.numpy() == 0) and np.abs(first.weight.numpy()).max() < 0.06
    ref = F.conv2d(F.sigmoid(F.conv2d(x, first.weight, first.bias, padding=2)), net[1].weight, net[1].bias, stride=2)
    np.testing.assert_allclose(y.numpy(), ref.numpy(), rtol=1e-6, atol=1e-7)
    y.sum().backward()
    assert first.weight.grad is not None and first.weight.grad.device == dev


def test_low_precision_matches_float32(dev):
    """float16 and bfloat16 accumulate in float32 and round once."""
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 8, 6, 6)).astype(np.float32)
    w = rng.standard_normal((4, 8, 3, 3)).astype(np.float32) / 8
    for dtype, tol in (("float16", 4e-3), ("bfloat16", 3e-2)):
        xs = bp.tensor(x, device=dev).astype(dtype)
        ws = bp.tensor(w, device=dev).astype(dtype)
        y = F.conv2d(xs, ws, padding=1)
        assert y.dtype == getattr(bp, dtype)
        exact = F.conv2d(xs.astype("float32"), ws.astype("float32"), padding=1).numpy()
        np.testing.assert_allclose(y.astype("float32").numpy(), exact, rtol=tol, atol=tol)


def test_errors_name_the_operator_and_the_shapes(dev):
    x = bp.zeros(2, 4, 5, 5, device=dev)
    with pytest.raises(bp.ShapeError, match=r"conv: input \[2, 4, 5, 5\] has 4 channels but the weight "
                                            r"\[2, 3, 3, 3\]"):
        F.conv2d(x, bp.zeros(2, 3, 3, 3, device=dev))
    with pytest.raises(bp.ShapeError, match="groups 3 does not divide"):
        F.conv2d(x, bp.zeros(4, 1, 3, 3, device=dev), groups=3)
    with pytest.raises(bp.ShapeError, match="the output size would be negative"):
        F.conv2d(x, bp.zeros(2, 4, 7, 7, device=dev))
    with pytest.raises(bp.ShapeError, match="the output size would be negative or zero"):
        F.conv_transpose2d(x, bp.zeros(4, 2, 2, 2, device=dev), padding=4)
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        nn.Conv2d(3, 4, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="output padding must be smaller than either stride or dilation"):
        nn.ConvTranspose2d(3, 4, 3, stride=2, output_padding=2)
    with pytest.raises(NotImplementedError, match="padding_mode='reflect'"):
        nn.Conv2d(3, 4, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="weight must have 4 dimensions"):
        F.conv2d(x, bp.zeros(4, 3, device=dev))
