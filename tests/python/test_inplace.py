"""In-place operations (backplane/_inplace.py): a += b and the other
augmented assignments, the "_" methods, PyTorch's dtype rule, the autograd
write rules, and the allocation counter."""
import operator

import numpy as np
import pytest

import backplane as bp

# (symbol, in-place operator, NumPy's operator, dtype, left values, right values)
AUGMENTED = [
    ("+=", operator.iadd, operator.add, "float32", [1.5, -2.0, 3.0], [0.5, 4.0, -1.0]),
    ("-=", operator.isub, operator.sub, "float32", [1.5, -2.0, 3.0], [0.5, 4.0, -1.0]),
    ("*=", operator.imul, operator.mul, "float64", [1.5, -2.0, 3.0], [0.5, 4.0, -1.0]),
    ("/=", operator.itruediv, operator.truediv, "float32", [1.5, -2.0, 3.0], [0.5, 4.0, -1.0]),
    ("//=", operator.ifloordiv, operator.floordiv, "int64", [7, -7, 9], [2, 2, -4]),
    ("%=", operator.imod, operator.mod, "int32", [7, -7, 9], [2, 2, -4]),
    ("**=", operator.ipow, operator.pow, "float32", [1.5, 2.0, 3.0], [2.0, 0.5, -1.0]),
    ("&=", operator.iand, operator.and_, "int64", [6, 5, 12], [3, 1, 10]),
    ("|=", operator.ior, operator.or_, "int64", [6, 5, 12], [3, 1, 10]),
    ("^=", operator.ixor, operator.xor, "int32", [6, 5, 12], [3, 1, 10]),
]


@pytest.mark.parametrize("symbol,iop,op,dtype,left,right", AUGMENTED, ids=[a[0] for a in AUGMENTED])
def test_augmented_assignment_writes_into_the_tensor(dev, symbol, iop, op, dtype, left, right):
    a = bp.tensor(left, dtype=dtype, device=dev)
    alias = a
    result = iop(a, bp.tensor(right, dtype=dtype, device=dev))
    assert result is alias and result.dtype == dtype
    want = op(np.array(left, dtype=dtype), np.array(right, dtype=dtype))
    np.testing.assert_allclose(alias.numpy(), want, rtol=1e-6)
    # a Python scalar on the right, broadcast
    iop(a, right[0])
    np.testing.assert_allclose(alias.numpy(), op(want, np.array(right[0], dtype=dtype)), rtol=1e-6)


def test_bool_tensors_combine_in_place(dev):
    m = bp.tensor([True, False, True], device=dev)
    alias = m
    m &= bp.tensor([True, True, False], device=dev)
    m |= bp.tensor([False, True, False], device=dev)
    m ^= True
    assert alias.tolist() == [False, False, True] and alias.dtype == bp.bool_


def test_writes_through_views_reach_the_base(dev):
    t = bp.zeros((2, 3), device=dev)
    row = t[1]
    row += 5.0
    col = t[:, 0]
    col *= 2.0
    t[0, 2] += 1.0  # a view, written in place, then assigned back to itself
    t[:, 1:] -= bp.ones((2, 2), device=dev)
    np.testing.assert_array_equal(t.numpy(), [[0, -1, 0], [10, 4, 4]])
    np.testing.assert_array_equal(row.numpy(), [10, 4, 4])


def test_a_result_of_a_castable_dtype_is_converted_in(dev):
    f = bp.tensor([1.0, 2.0], dtype="float32", device=dev)
    f += bp.tensor([0.25, 0.5], dtype="float64", device=dev)  # float64 result
    assert f.dtype == bp.float32 and f.tolist() == [1.25, 2.5]
    i = bp.tensor([1, 2], dtype="int32", device=dev)
    i += bp.tensor([10, 20], dtype="int64", device=dev)  # int64 result into int32
    assert i.dtype == bp.int32 and i.tolist() == [11, 22]
    f *= bp.tensor([True, False], device=dev)
    assert f.tolist() == [1.25, 0.0]


@pytest.mark.parametrize("write", [
    lambda i, dev: operator.iadd(i, 0.5),
    lambda i, dev: operator.itruediv(i, 2),
    lambda i, dev: operator.imul(i, bp.tensor([1.5, 1.5], device=dev)),
    lambda i, dev: i.exp_(),
    lambda i, dev: i.add_(1, alpha=0.5),
], ids=["+= float", "/= int", "*= float tensor", "exp_", "add_ alpha float"])
def test_a_float_result_does_not_go_into_an_integer_tensor(dev, write):
    i = bp.tensor([1, 2], device=dev)
    with pytest.raises(bp.DtypeError, match="cannot be written in place into a tensor of dtype int64"):
        write(i, dev)
    assert i.tolist() == [1, 2]


def test_an_integer_result_does_not_go_into_a_bool_tensor(dev):
    m = bp.tensor([True, False], device=dev)
    with pytest.raises(bp.DtypeError, match="int32"):
        m += m  # bool + bool computes in int32
    assert m.tolist() == [True, False]


def test_methods_compute_as_the_operators(dev):
    x = np.array([[0.5, -1.5, 2.0], [3.0, -0.25, 1.0]], dtype=np.float32)
    cases = [
        (lambda t: t.add_(2.0, alpha=3), x + 6.0),
        (lambda t: t.sub_(bp.ones(3, device=dev), alpha=2), x - 2.0),
        (lambda t: t.mul_(-2), x * -2),
        (lambda t: t.div_(4), x / 4),
        (lambda t: t.pow_(2), x ** 2),
        (lambda t: t.neg_(), -x),
        (lambda t: t.abs_(), np.abs(x)),
        (lambda t: t.exp_(), np.exp(x)),
        (lambda t: t.abs_().sqrt_(), np.sqrt(np.abs(x))),
        (lambda t: t.abs_().log_(), np.log(np.abs(x))),
        (lambda t: t.tanh_(), np.tanh(x)),
        (lambda t: t.sigmoid_(), 1 / (1 + np.exp(-x))),
        (lambda t: t.relu_(), np.maximum(x, 0)),
        (lambda t: t.square_(), x * x),
        (lambda t: t.sin_(), np.sin(x)),
        (lambda t: t.cos_(), np.cos(x)),
        (lambda t: t.clamp_(-1, 1), np.clip(x, -1, 1)),
        (lambda t: t.clamp_(min=0.0), np.maximum(x, 0)),
        (lambda t: t.clamp_(max=bp.full((3,), 1.0, device=dev)), np.minimum(x, 1)),
        (lambda t: t.clip_(2, 1), np.full_like(x, 1)),  # min > max gives max, as in PyTorch
        (lambda t: t.floor_divide_(0.75), np.floor_divide(x, np.float32(0.75))),
        (lambda t: t.remainder_(0.75), np.mod(x, np.float32(0.75))),
    ]
    for write, want in cases:
        t = bp.tensor(x, device=dev)
        assert write(t) is t
        np.testing.assert_allclose(t.numpy(), want, rtol=2e-6, atol=1e-7)
    i = bp.tensor([6, 5, -12], device=dev)
    i.bitwise_and_(3).bitwise_or_(8).bitwise_xor_(1)
    i.bitwise_not_()
    assert i.tolist() == (~(((np.array([6, 5, -12]) & 3) | 8) ^ 1)).tolist()


def test_clamp_needs_a_bound(dev):
    with pytest.raises(TypeError, match="min, max or both"):
        bp.ones(2, device=dev).clamp_()


def test_bad_operands_change_nothing(dev):
    a = bp.tensor([1.0, 2.0, 3.0], device=dev)
    alias = a
    with pytest.raises(TypeError):
        a += [1, 2, 3]  # host data is not an operand: bp.tensor(...) first
    with pytest.raises(TypeError, match="bp.tensor"):
        a += np.ones(3, dtype=np.float32)  # nothing crosses from the host silently
    with pytest.raises(TypeError, match="add_: expected a backplane tensor or a Python number"):
        a.add_("1")
    with pytest.raises(bp.ShapeError):
        a += bp.ones((2, 3), device=dev)  # the result would not fit a
    m = bp.ones((2, 2), device=dev)
    with pytest.raises(ValueError, match="overlaps"):
        m += m.T  # reads elements it has already written
    m += m  # the same elements read then written: allowed
    assert alias is a and a.tolist() == [1.0, 2.0, 3.0] and m.tolist() == [[2, 2], [2, 2]]


def test_in_place_allocates_nothing(dev):
    backend = dev.backend
    for n in (1, 10000):  # 10000: a size lazy fusion would defer if it allocated
        a, b = bp.ones(n, device=dev), bp.full((n,), 2.0, device=dev)
        a += b
        a.wait()  # a first write may settle storage the device made lazily
        before = bp.backend_counters(backend)["allocations"]
        want = 3.0
        for _ in range(3):
            a += b
            a *= 0.5
            a.sub_(b).clamp_(-10, 10).neg_()
            want = -min(max((want + 2.0) * 0.5 - 2.0, -10.0), 10.0)
        a.wait()
        assert bp.backend_counters(backend)["allocations"] == before
        np.testing.assert_array_equal(a.numpy(), np.full(n, want, dtype=np.float32))


def test_writes_into_deferred_results_and_their_inputs(dev):
    n = 10000  # large enough for lazy fusion to defer the elementwise chain
    x = bp.arange(n, dtype="float32", device=dev)
    a = x * 2.0  # deferred where the backend fuses
    doubled = x + x  # reads x before the write below
    a += 1.0
    x -= 5.0  # written while a recorded chain still reads it
    h = np.arange(n, dtype=np.float32)
    np.testing.assert_array_equal(a.numpy(), h * 2 + 1)
    np.testing.assert_array_equal(doubled.numpy(), h + h)
    np.testing.assert_array_equal(x.numpy(), h - 5)


def test_a_leaf_that_requires_grad_is_written_only_without_grad(dev):
    w = bp.ones(3, device=dev, requires_grad=True)
    with pytest.raises(bp.StateError, match="bp.no_grad"):
        w += 1.0
    with pytest.raises(bp.StateError, match="bp.no_grad"):
        w.exp_()
    with bp.no_grad():
        alias = w
        w -= 0.5
        w.clamp_(max=0.25)
    assert w is alias and w.is_leaf and w.requires_grad
    assert w.tolist() == [0.25, 0.25, 0.25]


def test_a_saved_tensor_written_in_place_fails_its_backward_pass(dev):
    x = bp.ones(3, device=dev, requires_grad=True)
    s = bp.full((3,), 2.0, device=dev)
    y = (x * s).sum()  # saves s for x's gradient
    s += 1.0
    with pytest.raises(bp.StateError, match="mul"):
        y.backward()


def test_augmented_assignment_rebinds_where_pytorch_records(dev):
    w = bp.tensor([1.0, 2.0], device=dev, requires_grad=True)
    total = bp.zeros((), device=dev)
    first = total
    for k in (1.0, 2.0):
        total += (w * k).sum()  # the operand requires grad: a new tensor
    assert total is not first and first.item() == 0.0
    y = w * 3.0
    y_before = y
    y += 1.0  # a recorded result: rebound
    assert y is not y_before
    (total + y.sum()).backward()
    np.testing.assert_allclose(w.grad.numpy(), [6.0, 6.0])
    with pytest.raises(bp.StateError):
        y_before.add_(1.0)  # the method form writes or refuses, never rebinds


def test_a_rebound_result_keeps_the_dtype_the_write_would_have(dev):
    w = bp.tensor([1.0, 2.0], dtype=bp.float64, device=dev, requires_grad=True)
    y = bp.ones(2, dtype=bp.float32, device=dev) * 1.0
    y += w  # PyTorch records it and y stays float32
    assert y.dtype == bp.float32
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [1.0, 1.0])
    n = bp.ones(2, dtype=bp.int32, device=dev)
    with pytest.raises(bp.DtypeError):
        n += w  # a float result is never written into integers


def test_d2l_sgd_updates_the_parameters_in_place(dev):
    w = bp.tensor([[1.0], [2.0]], device=dev, requires_grad=True)
    b = bp.zeros(1, device=dev, requires_grad=True)
    params = [w, b]
    X = bp.tensor([[1.0, 2.0], [3.0, 4.0]], device=dev)
    ((bp.matmul(X, w) + b) ** 2 / 2).sum().backward()
    grads = [p.grad.numpy() for p in params]
    with bp.no_grad():
        for param in params:
            param -= 0.1 * param.grad / 2
            param.grad.zero_()
    assert params[0] is w and params[1] is b
    np.testing.assert_allclose(w.detach().numpy(), [[1.0], [2.0]] - 0.05 * grads[0], rtol=1e-6)
    np.testing.assert_allclose(b.detach().numpy(), -0.05 * grads[1], rtol=1e-6)
    assert w.grad.tolist() == [[0.0], [0.0]] and b.grad.tolist() == [0.0]
