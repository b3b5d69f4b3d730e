"""backplane.nn: the chapter's network section in both spellings, modules
(registration, to(device), state dicts, gradients), layers, losses against
NumPy, and the initialisers."""
import math

import numpy as np
import pytest

import backplane as bp
from backplane import nn


def host(t):
    return t.detach().numpy()


# ---- the seed chapter's "Neural Networks and GPUs" -------------------------------------

def test_the_chapter_network_in_gluons_spelling():
    X = bp.ones((2, 3), device=bp.try_gpu())
    net = nn.Sequential()
    net.add(nn.Dense(1))
    net.initialize(ctx=bp.try_gpu())
    assert net(X).shape == (2, 1)
    assert net[0].weight.data().ctx == bp.try_gpu()
    assert repr(net) == "Sequential(\n  (0): Dense(3 -> 1, linear)\n)"


def test_the_chapter_network_in_pytorchs_spelling():
    X = bp.ones((2, 3), device=bp.try_gpu())
    net = nn.Sequential(nn.LazyLinear(1))
    assert repr(net) == ("Sequential(\n"
                         "  (0): LazyLinear(in_features=0, out_features=1, bias=True)\n)")
    net = net.to(device=bp.try_gpu())
    y = net(X)
    assert y.shape == (2, 1) and y.device == bp.try_gpu() and y.grad_fn is not None
    assert net[0].weight.data.device == bp.try_gpu()
    assert net[0].weight.shape == (1, 3) and net[0].in_features == 3


# ---- modules ------------------------------------------------------------------------------

class TwoLayers(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 3)
        self.out = nn.Linear(3, 2, bias=False)
        self.scale = nn.Parameter(bp.ones(()))
        self.note = "plain attributes stay attributes"

    def forward(self, x):
        return self.out(self.hidden(x).relu()) * self.scale


def test_parameters_and_modules_are_registered_in_order():
    m = TwoLayers()
    assert [n for n, _ in m.named_parameters()] == ["scale", "hidden.weight", "hidden.bias",
                                                      "out.weight"]
    assert list(m.children()) == [m.hidden, m.out]
    assert [n for n, _ in m.named_modules()] == ["", "hidden", "out"]
    assert m.out.bias is None and m.note.startswith("plain")
    assert all(p.requires_grad and p.is_leaf for p in m.parameters())
    with pytest.raises(TypeError, match="Parameter"):
        m.out.weight = bp.ones((2, 3))
    net = nn.Sequential(m.hidden, nn.ReLU(), m.hidden)  # shared: listed once
    assert len(list(net.parameters())) == 2


def test_backward_reaches_every_parameter(dev):
    m = TwoLayers().to(dev)
    m(bp.random.randn(5, 4, device=dev)).sum().backward()
    assert all(p.grad is not None and p.grad.shape == p.shape and p.grad.device == dev
               for p in m.parameters())
    m.zero_grad(set_to_none=False)
    assert all(not host(p.grad).any() for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())


def test_to_moves_parameters_in_place(dev):
    m = TwoLayers()
    params = list(m.parameters())
    values = [host(p) for p in params]
    assert m.to(dev) is m
    assert [id(p) for p in m.parameters()] == [id(p) for p in params]
    for p, v in zip(params, values):
        assert p.device == dev and p.requires_grad and p.is_leaf
        np.testing.assert_array_equal(host(p), v)
    m.to(bp.float64)
    assert all(p.dtype == bp.float64 and p.device == dev for p in params)


def test_state_dict_round_trip_across_devices(dev):
    a, b = TwoLayers(), TwoLayers().to(dev)
    sd = a.state_dict()
    assert list(sd) == [n for n, _ in a.named_parameters()]
    assert not any(t.requires_grad for t in sd.values())
    assert b.load_state_dict(sd) == ([], [])
    for name, p in b.named_parameters():
        assert p.device == dev
        np.testing.assert_array_equal(host(p), sd[name].numpy())
    with pytest.raises(KeyError, match="missing"):
        b.load_state_dict({"scale": sd["scale"]})
    with pytest.raises(ValueError, match="shape"):
        b.load_state_dict(dict(sd, scale=bp.ones(3)))
    assert b.load_state_dict({"scale": bp.full((), 2.0)}, strict=False)[0] == [
        "hidden.weight", "hidden.bias", "out.weight"]
    assert host(b.scale) == 2.0


def test_train_eval_and_apply():
    net = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    assert net.training and net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "ReLU", "Sequential"]


def test_parameter_shares_its_tensor_and_data_is_detached():
    t = bp.zeros(3, device="cpu")
    p = nn.Parameter(t)
    assert isinstance(p, bp.Tensor) and p.requires_grad and p.is_leaf
    t.add_(1.0)
    np.testing.assert_array_equal(host(p), [1, 1, 1])
    assert not p.data.requires_grad and p.data().device == p.device
    assert repr(p).startswith("Parameter containing:\ntensor(")
    assert not nn.Parameter(t, requires_grad=False).requires_grad


def test_sequential_indexing_and_adding():
    a, b, c = nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)
    net = nn.Sequential(a, b)
    net.append(c)
    assert net[0] is a and net[-1] is c and len(net) == 3 and list(net) == [a, b, c]
    assert list(net[1:]) == [b, c]
    gluon = nn.Sequential()
    gluon.add(a, b)
    assert list(gluon) == [a, b]
    with pytest.raises(TypeError):
        net.append(lambda x: x)


# ---- layers and losses ----------------------------------------------------------------------

def test_linear_computes_x_wt_plus_b(dev):
    layer = nn.Linear(4, 3, device=dev)
    x = bp.random.randn(5, 4, device=dev)
    y = layer(x)
    w, b = host(layer.weight), host(layer.bias)
    np.testing.assert_allclose(host(y), x.numpy() @ w.T + b, rtol=1e-5, atol=1e-6)
    bound = 1 / math.sqrt(4)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound


def test_initialisation_is_seeded_and_the_same_on_every_device(dev):
    bp.manual_seed(7)
    here = nn.Linear(5, 4, device=dev)
    bp.manual_seed(7)
    there = nn.Linear(5, 4, device="cpu")
    for p, q in zip(here.parameters(), there.parameters()):
        np.testing.assert_array_equal(host(p), host(q))


def test_dense_flattens_and_activates(dev):
    layer = nn.Dense(3, activation="relu", in_units=8, device=dev)
    x = bp.random.randn(2, 2, 4, device=dev)
    expected = np.maximum(x.numpy().reshape(2, 8) @ host(layer.weight).T + host(layer.bias), 0)
    np.testing.assert_allclose(host(layer(x)), expected, rtol=1e-5, atol=1e-6)
    assert np.abs(host(layer.weight)).max() <= 0.07 and not host(layer.bias).any()
    with pytest.raises(ValueError, match="activation"):
        nn.Dense(3, activation="softsign")


def test_activations_and_flatten(dev):
    x = bp.random.randn(2, 3, 4, device=dev)
    a = x.numpy()
    np.testing.assert_allclose(host(nn.ReLU()(x)), np.maximum(a, 0))
    np.testing.assert_allclose(host(nn.Sigmoid()(x)), 1 / (1 + np.exp(-a)), rtol=1e-5)
    np.testing.assert_allclose(host(nn.Tanh()(x)), np.tanh(a), rtol=1e-5, atol=1e-7)
    assert nn.Flatten()(x).shape == (2, 12)
    assert nn.Flatten(0, 1)(x).shape == (6, 4)


def test_mse_loss(dev):
    x = bp.random.randn(4, 3, device=dev, requires_grad=True)
    t = bp.random.randn(4, 3, device=dev)
    loss = nn.MSELoss()(x, t)
    d = host(x) - t.numpy()
    np.testing.assert_allclose(loss.item(), (d ** 2).mean(), rtol=1e-5)
    loss.backward()
    np.testing.assert_allclose(host(x.grad), 2 * d / d.size, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(nn.MSELoss("sum")(x, t).item(), (d ** 2).sum(), rtol=1e-5)
    assert nn.MSELoss("none")(x, t).shape == (4, 3)
    with pytest.raises(ValueError, match="reduction"):
        nn.MSELoss("max")(x, t)


def test_cross_entropy_with_class_indices(dev):
    logits = bp.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0], [1000.0, 0.0, -1000.0]], device=dev,
                       requires_grad=True)
    labels = bp.tensor([0, 2, 0], device=dev)
    loss = nn.CrossEntropyLoss()(logits, labels)
    z = host(logits).astype(np.float64)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    rows = np.arange(3)
    with np.errstate(divide="ignore"):
        expected = -np.log(p[rows, [0, 2, 0]])
    np.testing.assert_allclose(loss.item(), expected.mean(), rtol=1e-5)  # no overflow at 1000
    loss.backward()
    onehot = np.eye(3)[[0, 2, 0]]
    np.testing.assert_allclose(host(logits.grad), (p - onehot) / 3, rtol=1e-5, atol=1e-6)
    per_row = nn.CrossEntropyLoss(reduction="none")(logits, labels)
    np.testing.assert_allclose(host(per_row), expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"input of shape \(3, 3\) takes class indices of shape \(3,\)"):
        nn.CrossEntropyLoss()(logits, labels.reshape(3, 1))


def test_functional_softmax_and_log_softmax(dev):
    x = bp.random.randn(3, 5, device=dev)
    a = x.numpy().astype(np.float64)
    log_p = a - np.log(np.exp(a).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(host(nn.functional.log_softmax(x, dim=1)), log_p, rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(host(nn.functional.softmax(x, dim=1)), np.exp(log_p), rtol=1e-5,
                               atol=1e-7)


# ---- initialisers -----------------------------------------------------------------------------

def test_in_place_initialisers_write_into_parameters(dev):
    w = nn.Parameter(bp.empty(64, 32, device=dev))
    assert nn.init.zeros_(w) is w and not host(w).any()
    assert (host(nn.init.ones_(w)) == 1).all() and (host(nn.init.constant_(w, 0.5)) == 0.5).all()
    assert w.requires_grad and w.is_leaf
    a = host(nn.init.uniform_(w, -0.2, 0.3))
    assert a.min() >= -0.2 and a.max() < 0.3 and a.std() > 0.1
    a = host(nn.init.normal_(w, 1.0, 0.01))
    assert abs(a.mean() - 1.0) < 0.005 and abs(a.std() - 0.01) < 0.002
    glorot = math.sqrt(6 / (64 + 32))
    a = host(nn.init.xavier_uniform_(w))
    assert np.abs(a).max() <= glorot and np.abs(a).max() > 0.9 * glorot
    he = math.sqrt(3) * math.sqrt(2) / math.sqrt(32)
    a = host(nn.init.kaiming_uniform_(w, nonlinearity="relu"))
    assert np.abs(a).max() <= he and np.abs(a).max() > 0.9 * he
    a = host(nn.init.kaiming_normal_(w, nonlinearity="relu"))
    assert abs(a.std() - he / math.sqrt(3)) < 0.02
    assert abs(host(nn.init.xavier_normal_(w)).std() - math.sqrt(2 / 96)) < 0.02
    with pytest.raises(ValueError, match="2 or more"):
        nn.init.xavier_uniform_(bp.ones(3))


def test_initialize_with_an_initializer_fills_weights_and_zeroes_biases(dev):
    net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Dense(8))  # the Dense is lazy
    net.initialize(init=nn.init.Normal(sigma=0.01), ctx=dev)
    net(bp.ones((2, 16), device=dev))
    for name, p in net.named_parameters():
        assert p.device == dev
        if name.endswith("bias"):
            assert not host(p).any()
        else:
            assert 0.005 < host(p).std() < 0.015, name
    net.initialize(init=nn.init.Constant(0.25))
    assert (host(net[2].weight) == 0.25).all()
    net.initialize(init=nn.init.Xavier())
    assert np.abs(host(net[0].weight)).max() <= math.sqrt(6 / 48)
    net.initialize(init=nn.init.Uniform(0.5))
    assert 0.3 < np.abs(host(net[0].weight)).max() <= 0.5


def test_module_list_registers_indexes_and_slices_as_torchs():
    layers = nn.ModuleList(nn.Linear(2, 2) for _ in range(3))
    layers.append(nn.ReLU())
    assert len(layers) == 4 and isinstance(layers[1], nn.Linear)
    assert isinstance(layers[1:3], nn.ModuleList) and len(layers[1:3]) == 2
    assert isinstance(nn.Sequential(nn.ReLU(), nn.Tanh())[:1], nn.Sequential)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = layers

        def forward(self, x):
            for block in self.blocks:
                x = block(x)
            return x

    net = Net()
    assert [name for name, _ in net.named_parameters()] == [
        "blocks.{}.{}".format(i, p) for i in range(3) for p in ("weight", "bias")]
    assert net(bp.ones((1, 2))).shape == (1, 2)
    with pytest.raises(TypeError, match="ModuleList holds modules, not int"):
        layers.append(3)
    with pytest.raises(NotImplementedError):
        layers(bp.ones((1, 2)))
