"""Autograd from Python: leaves, .grad, .backward(), grad mode, detach, the
in-place writes it refuses, indexing through gather_nd, and no leaked
handles. The gradients themselves are checked by finite differences in
test_gradcheck.py."""
import gc
import threading

import numpy as np
import pytest

import backplane as bp


def test_a_leaf_requires_grad_only_when_asked(dev):
    x = bp.tensor([1.0, 2.0], device=dev)
    assert not x.requires_grad and x.is_leaf and x.grad is None and x.grad_fn is None
    assert x.requires_grad_() is x and x.requires_grad
    x.requires_grad = False
    assert not x.requires_grad
    made = [bp.tensor([1.0], device=dev, requires_grad=True),
            bp.zeros(2, device=dev, requires_grad=True),
            bp.ones((2, 2), device=dev, requires_grad=True),
            bp.full((2,), 3.0, device=dev, requires_grad=True),
            bp.empty(2, device=dev, requires_grad=True),
            bp.zeros_like(x, requires_grad=True),
            bp.arange(0.0, 3.0, device=dev, requires_grad=True),
            bp.random.rand(2, device=dev, requires_grad=True),
            bp.random.randn(2, 3, device=dev, requires_grad=True)]
    assert all(t.requires_grad and t.is_leaf and t.device == dev for t in made)


def test_only_float_tensors_require_grad(dev):
    with pytest.raises(bp.DtypeError, match="float"):
        bp.arange(3, device=dev).requires_grad_()


def test_recorded_results_know_their_operator(dev):
    x = bp.tensor([1.0, 2.0, 3.0], device=dev, requires_grad=True)
    y = (x * x).sum()
    assert y.requires_grad and not y.is_leaf and y.grad is None
    assert (x * x).grad_fn == "mul" and y.grad_fn == "sum"
    assert "grad_fn=<sum>" in repr(y) and "requires_grad=True" in repr(x)
    assert y.requires_grad_() is y  # already requires it: allowed, as in PyTorch
    with pytest.raises(bp.StateError, match=r"\.detach\(\)"):
        y.requires_grad_(False)


def test_backward_accumulates_into_leaves_on_their_device(dev):
    x = bp.tensor([1.0, 2.0, 3.0], device=dev, requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.device == dev
    np.testing.assert_allclose(x.grad.numpy(), [2, 4, 6])
    (x * 3.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5, 7, 9])
    x.grad = None
    assert x.grad is None
    x.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1, 1, 1])


def test_backward_of_a_non_scalar_takes_its_gradient(dev):
    x = bp.tensor([1.0, 2.0, 3.0], device=dev, requires_grad=True)
    y = x * 3.0
    with pytest.raises(bp.BackplaneError):
        y.backward()
    y.backward([1.0, 0.5, 2.0])
    np.testing.assert_allclose(x.grad.numpy(), [3, 1.5, 6])


def test_the_graph_is_freed_unless_retained(dev):
    x = bp.tensor([1.0, 2.0], device=dev, requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4, 8])
    with pytest.raises(bp.StateError, match="retain_graph=True"):
        y.backward()


def test_no_grad_records_nothing_and_restores_the_mode(dev):
    x = bp.ones(2, device=dev, requires_grad=True)
    assert bp.is_grad_enabled()
    with bp.no_grad():
        assert not bp.is_grad_enabled() and not (x * 2).requires_grad
        with bp.enable_grad():
            assert (x * 2).requires_grad
        assert not bp.is_grad_enabled()
    assert bp.is_grad_enabled() and (x * 2).requires_grad

    @bp.no_grad()
    def step():
        return bp.is_grad_enabled()
    assert step() is False and bp.is_grad_enabled()

    bp.set_grad_enabled(False)
    assert not bp.is_grad_enabled()
    bp.set_grad_enabled(True)
    with bp.set_grad_enabled(False):
        assert not bp.is_grad_enabled()
    assert bp.is_grad_enabled()


def test_grad_mode_belongs_to_the_thread():
    seen = []
    with bp.no_grad():
        t = threading.Thread(target=lambda: seen.append(bp.is_grad_enabled()))
        t.start()
        t.join()
    assert seen == [True]


def test_detach_shares_the_storage_and_records_nothing(dev):
    x = bp.tensor([1.0, 2.0], device=dev, requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    d.add_(1.0)
    np.testing.assert_allclose(y.detach().numpy(), [3, 5])


def test_in_place_writes_into_a_leaf_need_no_grad(dev):
    w = bp.ones(3, device=dev, requires_grad=True)
    writes = [lambda: w.add_(1.0), lambda: w.sub_(w.detach()), lambda: w.mul_(2.0),
              lambda: w.div_(2.0), lambda: w.fill_(0.0), lambda: w.zero_(),
              lambda: w.copy_([1.0, 2.0, 3.0]), lambda: w.__setitem__(0, 5.0)]
    for write in writes:
        with pytest.raises(bp.StateError, match="bp.no_grad"):
            write()
    with bp.no_grad():
        for write in writes:
            write()
    np.testing.assert_allclose(w.detach().numpy(), [5, 2, 3])
    assert w.requires_grad and w.is_leaf


def test_writing_a_result_into_an_existing_tensor_is_refused(dev):
    x = bp.ones(3, device=dev, requires_grad=True)
    out = bp.zeros(3, device=dev)
    with pytest.raises(bp.StateError, match="an input requires gradients"):
        bp.add(x, 1.0, out=out)


def test_a_saved_tensor_written_afterwards_fails_its_backward_pass(dev):
    x = bp.ones(3, device=dev, requires_grad=True)
    w = bp.full((3,), 2.0, device=dev)
    y = (x * w).sum()  # saves w for x's gradient
    with bp.no_grad():
        w.add_(1.0)
    with pytest.raises(bp.StateError, match="mul"):
        y.backward()


def test_indexing_is_differentiable(dev):
    x = bp.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], device=dev, requires_grad=True)
    picked = x[bp.arange(2, device=dev), bp.tensor([2, 0], device=dev)]  # gather_nd
    rows = x[[1, 1, 0]]  # row 1 twice: its gradient adds up
    positive = x[x > 0]  # a boolean mask
    view = x[:, 1:]  # basic indexing: a view
    (picked.sum() + rows.sum() + (positive * positive).sum() + 10.0 * view.sum()).backward()
    a = x.detach().numpy()
    expected = np.zeros_like(a)
    expected[0, 2] += 1
    expected[1, 0] += 1
    expected[1] += 2
    expected[0] += 1
    expected += np.where(a > 0, 2 * a, 0)
    expected[:, 1:] += 10
    np.testing.assert_allclose(x.grad.numpy(), expected)


def test_training_loops_leak_no_handles(dev):
    w = bp.random.randn(4, 3, device=dev, requires_grad=True)
    X = bp.random.randn(8, 4, device=dev)
    gc.collect()
    base = bp.live_tensor_count()
    for _ in range(50):
        loss = (X @ w).relu().square().mean()
        loss.backward()
        with bp.no_grad():
            w.sub_(w.grad * 0.01)
        w.grad = None
    del loss
    gc.collect()
    assert bp.live_tensor_count() == base
