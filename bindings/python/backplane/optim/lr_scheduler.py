"""backplane.optim.lr_scheduler: learning-rate schedules with the names,
arguments, recurrences and closed forms of torch.optim.lr_scheduler
(1.13), so a schedule gives PyTorch's learning rates step for step, to
the last bit. Each writes group["lr"] of its optimiser's param_groups
(remembering group["initial_lr"]); step() advances it (after
optimizer.step(), as in PyTorch, which a warning reminds of), step(epoch)
jumps with the closed form, get_last_lr() gives the current rates, and
state_dict() / load_state_dict() save and restore everything but the
optimiser (a LambdaLR's functions only when they are callable objects, whose
__dict__ is saved, as PyTorch does)."""
import functools
import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter

from .optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "SequentialLR", "PolynomialLR", "CosineAnnealingLR", "ChainedScheduler"]

_EPOCH_DEPRECATION = ("The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
                      "where possible. Please use `scheduler.step()` to step the scheduler. During the "
                      "deprecation, if epoch is different from None, the closed form is used instead of the "
                      "new chainable form, where available.")
_GET_LR_OUTSIDE_STEP = "To get the last learning rate computed by the scheduler, please use `get_last_lr()`."


def _count_steps(optimizer):
    """Makes optimizer.step() count its calls in optimizer._step_count, as
    PyTorch does (the method is wrapped once, whatever the optimiser), so a
    scheduler can warn when it steps first."""
    step = optimizer.step
    if getattr(step, "_with_counter", False):
        return
    instance, func = weakref.ref(step.__self__), step.__func__

    @functools.wraps(func)
    def counted(*args, **kwargs):
        opt = instance()
        opt._step_count += 1
        return func(opt, *args, **kwargs)

    counted._with_counter = True
    optimizer.step = counted


class LRScheduler:
    """The base of the schedules (PyTorch's _LRScheduler, LRScheduler since
    2.0): last_epoch counts the steps taken (-1: none, and then each group's
    lr becomes its initial_lr); a subclass gives get_lr(), the rates of the
    next step from the current ones, and may give _get_closed_form_lr(), the
    rates at last_epoch from the initial ones."""

    def __init__(self, optimizer, last_epoch=-1, verbose=False):
        if not isinstance(optimizer, Optimizer):
            raise TypeError("{} is not an Optimizer".format(type(optimizer).__name__))
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError("param 'initial_lr' is not specified in param_groups[{}] when resuming an "
                                   "optimizer".format(i))
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.verbose = verbose
        _count_steps(optimizer)
        self._initial_step()

    def _initial_step(self):
        self.optimizer._step_count = 0
        self._step_count = 0
        self.step()

    def state_dict(self):
        """Everything but the optimiser: last_epoch, base_lrs, the options."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The learning rate of each group after the last step."""
        return self._last_lr

    def get_lr(self):
        raise NotImplementedError

    def print_lr(self, is_verbose, group, lr, epoch=None):
        if is_verbose:
            if epoch is None:
                print("Adjusting learning rate of group {} to {:.4e}.".format(group, lr))
            else:
                epoch_str = ("%.2f" if isinstance(epoch, float) else "%.5d") % epoch
                print("Epoch {}: adjusting learning rate of group {} to {:.4e}.".format(epoch_str, group, lr))

    def step(self, epoch=None):
        if self._step_count == 1 and self.optimizer._step_count < 1:
            warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. You should call "
                          "them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`. "
                          "Failure to do this will result in skipping the first value of the learning rate "
                          "schedule.", UserWarning)
        self._step_count += 1
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                warnings.warn(_EPOCH_DEPRECATION, UserWarning)
                values = self._at(epoch)
        finally:
            self._get_lr_called_within_step = False
        for i, (group, lr) in enumerate(zip(self.optimizer.param_groups, values)):
            group["lr"] = lr
            self.print_lr(self.verbose, i, lr, epoch)
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _step_to(self, epoch):
        """step(epoch) without its deprecation warning: SequentialLR's own
        call at a milestone (PyTorch's warns there, about a call the user
        did not write)."""
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="The epoch parameter", category=UserWarning)
            self.step(epoch)

    def _at(self, epoch):
        """The rates at epoch, by the closed form where there is one."""
        self.last_epoch = epoch
        if hasattr(self, "_get_closed_form_lr"):
            return self._get_closed_form_lr()
        return self.get_lr()

    def _warn_outside_step(self):
        if not getattr(self, "_get_lr_called_within_step", False):
            warnings.warn(_GET_LR_OUTSIDE_STEP, UserWarning)

    def _current(self):
        return [group["lr"] for group in self.optimizer.param_groups]


_LRScheduler = LRScheduler  # PyTorch 1.13's name


def _state_with(scheduler, key, entries):
    """scheduler's state_dict with entries (a list, one per part) saved in
    place of its attribute key, the parts themselves."""
    state = {k: v for k, v in scheduler.__dict__.items() if k not in ("optimizer", key)}
    state[key] = entries
    return state


def _load_but(scheduler, state_dict, key):
    """Loads a _state_with state_dict but for key, whose entries it returns
    for the parts to take."""
    state = dict(state_dict)
    entries = state.pop(key)
    scheduler.__dict__.update(state)
    return entries


class _LambdaScheduler(LRScheduler):
    """What LambdaLR and MultiplicativeLR share: one function per group, and
    their state, which keeps a callable object's __dict__ (a function or a
    lambda is not saved: give it again to the new scheduler)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1, verbose=False):
        self.optimizer = optimizer
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError("Expected {} lr_lambdas, but got {}".format(
                    len(optimizer.param_groups), len(lr_lambda)))
            self.lr_lambdas = list(lr_lambda)
        super().__init__(optimizer, last_epoch, verbose)

    def state_dict(self):
        return _state_with(self, "lr_lambdas", [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                                                for fn in self.lr_lambdas])

    def load_state_dict(self, state_dict):
        for fn, saved in zip(self.lr_lambdas, _load_but(self, state_dict, "lr_lambdas")):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_LambdaScheduler):
    """lr = initial_lr * lr_lambda(epoch) (one function, or one per group)."""

    def get_lr(self):
        self._warn_outside_step()
        return [base_lr * fn(self.last_epoch) for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaScheduler):
    """lr *= lr_lambda(epoch) at each step after the first."""

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch > 0:
            return [group["lr"] * fn(self.last_epoch)
                    for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)]
        return self._current()


class StepLR(LRScheduler):
    """lr = initial_lr * gamma ** (epoch // step_size)."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current()
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """lr = initial_lr * gamma ** (the number of milestones reached); a
    milestone given twice counts twice."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        self.milestones, self.gamma = Counter(milestones), gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch not in self.milestones:
            return self._current()
        return [group["lr"] * self.gamma ** self.milestones[self.last_epoch] for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch) for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    """lr = initial_lr * factor until epoch total_iters, then initial_lr."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1, verbose=False):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return self._current()
        return [group["lr"] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """The warm-up: lr = initial_lr times a factor going linearly from
    start_factor to end_factor over total_iters steps, then end_factor.
    start_factor must be in (0, 1] (PyTorch 1.13 takes 0, and then divides
    by zero at the second step; later versions refuse it, as this does)."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1,
                 verbose=False):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal "
                             "to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        if self.last_epoch > self.total_iters:
            return self._current()
        rise = self.end_factor - self.start_factor
        return [group["lr"] * (1.0 + rise / (self.total_iters * self.start_factor + (self.last_epoch - 1) * rise))
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor) *
                           min(self.total_iters, self.last_epoch) / self.total_iters)
                for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """lr = initial_lr * gamma ** epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return self._current()
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    """lr = initial_lr * (1 - min(epoch, total_iters) / total_iters) ** power."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1, verbose=False):
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch > self.total_iters:
            return self._current()
        decay = ((1.0 - self.last_epoch / self.total_iters) /
                 (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [group["lr"] * decay for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
                for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """lr = eta_min + (initial_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2
    in closed form; step() follows PyTorch's recurrence, which gives the
    same curve while nothing else changes the rates, and rises again after
    T_max (the SGDR schedule without restarts)."""

    def __init__(self, optimizer, T_max, eta_min=0, last_epoch=-1, verbose=False):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return self._current()
        if self._step_count == 1 and self.last_epoch > 0:
            return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for base_lr in self.base_lrs]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base_lr, group in zip(self.base_lrs, self.optimizer.param_groups)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max)) /
                (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max)) *
                (group["lr"] - self.eta_min) + self.eta_min
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]


def _same_optimizer(schedulers, optimizer, kind):
    for i, s in enumerate(schedulers):
        if s.optimizer is not optimizer:
            raise ValueError("{} expects all schedulers to belong to the same optimizer, but got schedulers at "
                             "index {} to be different than the optimizer passed in.".format(kind, i))


class _Composed(LRScheduler):
    """What SequentialLR and ChainedScheduler share: their schedulers'
    states are saved in theirs."""

    def state_dict(self):
        return _state_with(self, "_schedulers", [s.state_dict() for s in self._schedulers])

    def load_state_dict(self, state_dict):
        for s, saved in zip(self._schedulers, _load_but(self, state_dict, "_schedulers")):
            s.load_state_dict(saved)


class SequentialLR(_Composed):
    """schedulers[i] runs from milestones[i - 1] on (the first from the
    start); each starts from its own epoch 0 (step(0)) at its milestone. The
    warm-up then decay of transformers: SequentialLR(opt, [LinearLR(opt,
    0.01, total_iters=w), CosineAnnealingLR(opt, T_max=n - w)],
    milestones=[w])."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1, verbose=False):
        _same_optimizer(schedulers, optimizer, "Sequential Schedulers")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than the "
                             "number of milestone points, but got number of schedulers {} and the number of "
                             "milestones to be equal to {}".format(len(schedulers), len(milestones)))
        self._schedulers = list(schedulers)
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        # Undo the step each scheduler took when it was made; only the first
        # takes its initial step now.
        for s in self._schedulers:
            s.last_epoch -= 1
        self._schedulers[0]._initial_step()
        self._last_lr = self._schedulers[0].get_last_lr()

    def step(self):
        self.last_epoch += 1
        i = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[i]
        if i > 0 and self._milestones[i - 1] == self.last_epoch:
            scheduler._step_to(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composed):
    """Every scheduler of the list steps at each step(), in order, each
    multiplying into the rates the one before left."""

    def __init__(self, schedulers):
        schedulers = list(schedulers)
        _same_optimizer(schedulers, schedulers[0].optimizer, "ChainedScheduler")
        self._schedulers = schedulers
        self.optimizer = schedulers[0].optimizer
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def step(self):
        for s in self._schedulers:
            s.step()
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

