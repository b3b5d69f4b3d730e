"""nn.functional.cross_entropy and nn.CrossEntropyLoss against torch 1.13:
class indices and class probabilities, [N, C], [N, C, d1, d2] and [C]
inputs, class weights, ignore_index, label smoothing and every reduction,
values and input gradients to float32 rounding; through F.log_softmax."""
import itertools

import numpy as np
import pytest

import backplane as bp
from backplane import nn
from backplane.nn import functional as F

rng = np.random.default_rng(5)
C = 5
SHAPES = {"2d": (6, C), "4d": (2, C, 3, 2), "unbatched": (C,)}
LOGITS = {k: (rng.standard_normal(s) * 3).astype(np.float32) for k, s in SHAPES.items()}
WEIGHT = np.array([0.5, 2.0, 1.0, 0.25, 1.5], dtype=np.float32)


def indices(kind, ignore=None):
    shape = SHAPES[kind][:1] + SHAPES[kind][2:] if kind != "unbatched" else ()
    t = rng.integers(0, C, shape)
    if ignore is not None and t.ndim:
        t.reshape(-1)[::3] = ignore
    return t


def probabilities(kind):
    p = rng.random(SHAPES[kind]).astype(np.float32)
    return p / p.sum(axis=0 if kind == "unbatched" else 1, keepdims=True)


def run_bp(logits, target, dev, **kwargs):
    x = bp.tensor(logits, device=dev, requires_grad=True)
    loss = F.cross_entropy(x, bp.tensor(target, device=dev), **kwargs)
    (loss * bp.tensor(np.linspace(0.5, 1.5, loss.numel()).reshape(loss.shape).astype(np.float32),
                      device=dev)).sum().backward()
    return loss.detach().numpy(), x.grad.numpy()


def test_all_ignored_gives_nan_and_bad_targets_raise():
    x = bp.tensor(LOGITS["2d"])
    assert np.isnan(F.cross_entropy(x, bp.full((6,), -100, dtype=bp.int64)).item())
    with pytest.raises(IndexError, match="a target is outside the 5 classes"):
        F.cross_entropy(x, bp.tensor([0, 1, 2, 3, 4, 5]))
    with pytest.raises(IndexError, match="a target is outside the 5 classes"):
        F.cross_entropy(x, bp.tensor([0, 1, 2, 3, 4, -1]))
    with pytest.raises(ValueError, match=r"takes class indices of shape \(6,\), not \(5,\)"):
        F.cross_entropy(x, bp.tensor([0, 1, 2, 3, 4]))
    with pytest.raises(TypeError, match="class indices must be an integer tensor"):
        F.cross_entropy(x, bp.tensor([0.0] * 6))
    with pytest.raises(ValueError, match="ignore_index is not supported for class-probability targets"):
        F.cross_entropy(x, bp.tensor(probabilities("2d")), ignore_index=1)
    with pytest.raises(ValueError, match="label_smoothing must be between"):
        F.cross_entropy(x, bp.tensor(indices("2d")), label_smoothing=1.5)
    with pytest.raises(ValueError, match="reduction must be"):
        F.cross_entropy(x, bp.tensor(indices("2d")), reduction="avg")
    with pytest.raises(ValueError, match="weight must be a 1-D tensor of the 5 classes"):
        F.cross_entropy(x, bp.tensor(indices("2d")), weight=bp.ones(4))


def test_it_goes_through_log_softmax_by_name(monkeypatch):
    calls = []
    original = F.log_softmax

    def counting(x, dim=-1):
        calls.append(dim)
        return original(x, dim=dim)

    monkeypatch.setattr(F, "log_softmax", counting)
    F.cross_entropy(bp.tensor(LOGITS["4d"]), bp.tensor(indices("4d")))
    nn.CrossEntropyLoss()(bp.tensor(LOGITS["unbatched"]), bp.tensor(2))
    assert calls == [1, 0]


def test_the_module_is_the_function_and_maps_the_deprecated_arguments():
    x, t = bp.tensor(LOGITS["2d"]), bp.tensor(indices("2d", ignore=3))
    w = bp.tensor(WEIGHT)
    assert nn.CrossEntropyLoss(weight=w, ignore_index=3, label_smoothing=0.1)(x, t).item() == \
        F.cross_entropy(x, t, weight=w, ignore_index=3, label_smoothing=0.1).item()
    assert nn.CrossEntropyLoss(size_average=False).reduction == "sum"
    assert nn.CrossEntropyLoss(reduce=False).reduction == "none"
    np.testing.assert_array_equal(F.cross_entropy(x, t, None, None, 3, False).numpy(),
                                  F.cross_entropy(x, t, ignore_index=3, reduction="none").numpy())


torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) is the reference")


def run_torch(logits, target, **kwargs):
    x = torch.tensor(logits, requires_grad=True)
    if "weight" in kwargs and kwargs["weight"] is not None:
        kwargs["weight"] = torch.tensor(kwargs["weight"])
    loss = torch.nn.functional.cross_entropy(x, torch.tensor(target), **kwargs)
    (loss * torch.tensor(np.linspace(0.5, 1.5, loss.numel()).reshape(loss.shape).astype(np.float32))).sum().backward()
    return loss.detach().numpy(), x.grad.numpy()


def compare(kind, target, dev, **kwargs):
    ours = run_bp(LOGITS[kind], target, dev, **{k: (bp.tensor(v, device=dev) if k == "weight" and v is not None
                                                    else v) for k, v in kwargs.items()})
    theirs = run_torch(LOGITS[kind], target, **kwargs)
    for a, b, what in zip(ours, theirs, ("loss", "gradient")):
        assert a.shape == b.shape, what
        np.testing.assert_allclose(a, b, rtol=3e-6, atol=3e-7, err_msg="{} of {} {}".format(what, kind, kwargs))


GRID = list(itertools.product(["2d", "4d", "unbatched"], ["mean", "sum", "none"], [None, WEIGHT], [0.0, 0.2]))


@pytest.mark.parametrize("kind,reduction,weight,smoothing", GRID,
                         ids=["{}-{}-{}-ls{}".format(k, r, "w" if w is not None else "now", s) for k, r, w, s in GRID])
def test_class_indices_and_probabilities_as_torch_on_cpu(kind, reduction, weight, smoothing):
    args = dict(reduction=reduction, weight=weight, label_smoothing=smoothing)
    compare(kind, indices(kind), "cpu:0", **args)
    compare(kind, indices(kind, ignore=2), "cpu:0", ignore_index=2, **args)
    compare(kind, indices(kind, ignore=-100), "cpu:0", **args)
    compare(kind, probabilities(kind), "cpu:0", **args)


@pytest.mark.parametrize("target", ["indices", "probabilities"])
def test_as_torch_on_every_device(dev, target):
    kind = "4d"
    t = indices(kind, ignore=-100) if target == "indices" else probabilities(kind)
    compare(kind, t, dev, weight=WEIGHT, label_smoothing=0.1)
    compare(kind, t, dev, reduction="none")
