"""optim.lr_scheduler against torch 1.13: every schedule's learning rates,
step by step (the recurrences) and by step(epoch) (the closed forms), to
the last bit, over two parameter groups; state_dict round trips; the
warnings and argument checks PyTorch has."""
import pickle
import warnings

import pytest

import backplane as bp
from backplane import nn, optim
from backplane.optim import lr_scheduler as S

torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) is the reference")
T = torch.optim.lr_scheduler
pytestmark = pytest.mark.filterwarnings("ignore:The epoch parameter:UserWarning")


def optimizers():
    """An AdamW over two groups of different lr, in each library."""
    a, b = nn.Parameter(bp.ones(2)), nn.Parameter(bp.ones(3))
    ta, tb = torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(3))
    return (optim.AdamW([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1),
            torch.optim.AdamW([{"params": [ta]}, {"params": [tb], "lr": 0.5}], lr=0.1))


class Halving:
    """A callable object: its __dict__ is saved with a LambdaLR's state."""

    def __init__(self):
        self.every = 3

    def __call__(self, epoch):
        return 0.5 ** (epoch // self.every)


SCHEDULES = {
    "StepLR": lambda lib, o: lib.StepLR(o, step_size=4, gamma=0.3),
    "MultiStepLR": lambda lib, o: lib.MultiStepLR(o, milestones=[3, 7, 7, 12], gamma=0.5),
    "ConstantLR": lambda lib, o: lib.ConstantLR(o, factor=0.25, total_iters=6),
    "LinearLR": lambda lib, o: lib.LinearLR(o, start_factor=0.05, end_factor=0.9, total_iters=10),
    "ExponentialLR": lambda lib, o: lib.ExponentialLR(o, gamma=0.93),
    "PolynomialLR": lambda lib, o: lib.PolynomialLR(o, total_iters=15, power=2.0),
    "CosineAnnealingLR": lambda lib, o: lib.CosineAnnealingLR(o, T_max=9, eta_min=0.01),
    "LambdaLR": lambda lib, o: lib.LambdaLR(o, [lambda e: 1 / (1 + e), Halving()]),
    "MultiplicativeLR": lambda lib, o: lib.MultiplicativeLR(o, lambda e: 0.97),
    "SequentialLR": lambda lib, o: lib.SequentialLR(
        o, [lib.LinearLR(o, start_factor=0.01, total_iters=5), lib.CosineAnnealingLR(o, T_max=20),
            lib.ExponentialLR(o, gamma=0.9)], milestones=[5, 25]),
    "ChainedScheduler": lambda lib, o: lib.ChainedScheduler(
        [lib.ConstantLR(o, factor=0.5, total_iters=4), lib.ExponentialLR(o, gamma=0.9)]),
}


def trajectory(name, steps=40):
    opt, topt = optimizers()
    s, ts = SCHEDULES[name](S, opt), SCHEDULES[name](T, topt)
    ours, theirs = [s.get_last_lr()], [ts.get_last_lr()]
    for _ in range(steps):
        opt.step()
        topt.step()
        s.step()
        ts.step()
        ours.append(s.get_last_lr())
        theirs.append(ts.get_last_lr())
        assert [g["lr"] for g in opt.param_groups] == [g["lr"] for g in topt.param_groups]
    return ours, theirs, s, ts, opt


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_the_learning_rates_are_torch_s_to_the_last_bit(name):
    ours, theirs, _, _, _ = trajectory(name)
    assert ours == theirs


CLOSED = ["StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR", "PolynomialLR", "CosineAnnealingLR"]


@pytest.mark.parametrize("name", CLOSED)
def test_step_with_an_epoch_uses_torch_s_closed_form(name):
    opt, topt = optimizers()
    s, ts = SCHEDULES[name](S, opt), SCHEDULES[name](T, topt)
    opt.step()
    topt.step()
    for epoch in [3, 0, 17, 8, 8, 40]:
        with pytest.warns(UserWarning, match="The epoch parameter"):
            s.step(epoch)
        ts.step(epoch)
        assert s.get_last_lr() == ts.get_last_lr() and s.last_epoch == epoch


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_a_loaded_state_continues_the_schedule(name):
    ours, _, s, _, opt = trajectory(name, steps=12)
    saved = pickle.loads(pickle.dumps(s.state_dict()))  # plain data: it pickles
    assert "optimizer" not in saved
    # A fresh optimiser resumed at the saved rates, and a fresh scheduler.
    opt2, _ = optimizers()
    for g, g2 in zip(opt.param_groups, opt2.param_groups):
        g2.update(lr=g["lr"], initial_lr=g["initial_lr"])
    s2 = SCHEDULES[name](S, opt2)
    s2.load_state_dict(saved)
    for g, g2 in zip(opt.param_groups, opt2.param_groups):
        g2["lr"] = g["lr"]
    for _ in range(10):
        opt.step()
        opt2.step()
        s.step()
        s2.step()
        assert s2.get_last_lr() == s.get_last_lr()


def test_a_callable_object_s_state_is_saved_a_function_s_is_not():
    opt, _ = optimizers()
    halving = Halving()
    s = S.LambdaLR(opt, [lambda e: 1.0, halving])
    halving.every = 5
    state = s.state_dict()
    assert state["lr_lambdas"] == [None, {"every": 5}]
    other = Halving()
    s2 = S.LambdaLR(optimizers()[0], [lambda e: 1.0, other])
    s2.load_state_dict(state)
    assert other.every == 5 and "lr_lambdas" in state


def test_warnings_and_argument_checks():
    opt, _ = optimizers()
    s = S.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        s.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        s.step()
    with pytest.warns(UserWarning, match="get_last_lr"):
        s.get_lr()
    with pytest.raises(ValueError, match="Starting multiplicative factor expected to be greater than 0"):
        S.LinearLR(opt, start_factor=0.0)
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        S.LambdaLR(opt, [lambda e: 1.0])
    with pytest.raises(ValueError, match="one more than the number of milestone points"):
        S.SequentialLR(opt, [S.StepLR(opt, 2), S.StepLR(opt, 3)], milestones=[])
    with pytest.raises(TypeError, match="is not an Optimizer"):
        S.StepLR(object(), 2)
    fresh, _ = optimizers()
    with pytest.raises(KeyError, match="initial_lr"):
        S.StepLR(fresh, 2, last_epoch=5)
    assert S._LRScheduler is S.LRScheduler
