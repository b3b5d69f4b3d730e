"""Grad mode, PyTorch's spellings over bp_grad_set_enabled: whether operators
on tensors that require gradients are recorded. The mode belongs to the
calling thread, as in the core; it starts on."""
import functools

from . import _C


def is_grad_enabled():
    """True while this thread records operators for backward()."""
    return _C.is_grad_enabled()


class _GradMode:
    """A with-block or a decorator that runs its body in one grad mode and
    restores the mode it found."""

    _mode = True

    def __init__(self):
        # One entry per open with-block, so that one object can be nested.
        self._previous = []

    def __enter__(self):
        self._previous.append(_C.set_grad_enabled(self._mode))
        return self

    def __exit__(self, *exc):
        _C.set_grad_enabled(self._previous.pop())
        return False

    def __call__(self, fn):
        cls = type(self)

        @functools.wraps(fn)
        def run(*args, **kwargs):
            with cls():
                return fn(*args, **kwargs)
        return run


class no_grad(_GradMode):
    """Nothing inside is recorded: results require no gradient, and writing
    into parameters in place (optimiser steps, initialisers) is allowed.

        with bp.no_grad():
            w -= lr * w.grad

        @bp.no_grad()
        def evaluate(net, X): ..."""

    _mode = False


class enable_grad(_GradMode):
    """Records inside, even within no_grad."""

    _mode = True


class set_grad_enabled:
    """Sets this thread's grad mode now, as a call (bp.set_grad_enabled(False))
    or for a with-block, after which the previous mode comes back."""

    def __init__(self, mode):
        self._previous = _C.set_grad_enabled(bool(mode))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C.set_grad_enabled(self._previous)
        return False
