"""PyTorch's spellings on every device, without torch: reductions with
dim/keepdim, views, joins, masked_fill, the matmul family and einsum,
random draws with generators, bp.cuda, their gradients and their errors.
(test_torch_snippets.py compares the same names with torch itself.)"""
import numpy as np
import pytest

import backplane as bp


def host(t):
    return t.numpy()


def test_reductions_take_dim_and_keepdim(dev):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = bp.tensor(a, device=dev)
    np.testing.assert_allclose(host(x.sum(dim=1, keepdim=True)), a.sum(axis=1, keepdims=True))
    np.testing.assert_allclose(host(bp.mean(x, dim=(0, 2))), a.mean(axis=(0, 2)))
    np.testing.assert_allclose(host(x.prod(dim=-1)), a.prod(axis=-1), rtol=1e-6)
    assert host(x.argmax(dim=2, keepdim=True)).shape == (2, 3, 1)
    np.testing.assert_array_equal(host(bp.argmin(x, dim=0)), a.argmin(axis=0))
    np.testing.assert_allclose(host(x.cumsum(dim=1)), a.cumsum(axis=1))
    np.testing.assert_allclose(host(x.logsumexp(dim=2)), np.log(np.exp(a).sum(axis=2)), rtol=1e-6)
    # torch's std/var divide by n - 1 when called with its keywords
    np.testing.assert_allclose(host(x.std(dim=1)), a.std(axis=1, ddof=1), rtol=1e-6)
    np.testing.assert_allclose(host(bp.var(x, dim=(0, 1), unbiased=False)), a.var(axis=(0, 1)),
                               rtol=1e-6)
    np.testing.assert_allclose(host(x.var(axis=1)), a.var(axis=1), rtol=1e-6)  # NumPy's ddof=0
    with pytest.raises(TypeError, match="axis= .* and dim="):
        x.sum(axis=0, dim=1)
    with pytest.raises(TypeError, match="ddof"):
        x.std(ddof=1, unbiased=True)


def test_max_and_min_with_dim_give_values_and_indices(dev):
    a = np.array([[1, 5, 3], [4, 2, 6]], dtype=np.float32)
    x = bp.tensor(a, device=dev)
    r = x.max(1)
    assert type(r).__name__ == "max" and r._fields == ("values", "indices")
    np.testing.assert_array_equal(host(r.values), [5, 6])
    np.testing.assert_array_equal(host(r.indices), [1, 2])
    values, indices = bp.min(x, dim=0, keepdim=True)
    np.testing.assert_array_equal(host(values), [[1, 2, 3]])
    np.testing.assert_array_equal(host(indices), [[0, 1, 0]])
    np.testing.assert_array_equal(host(x.max(axis=0)), [4, 5, 6])  # NumPy's spelling: values only
    np.testing.assert_array_equal(host(x.max(dim=(0, 1))), 6)  # a tuple: amax
    np.testing.assert_array_equal(host(bp.max(x, bp.full_like(x, 3.0))), np.maximum(a, 3))
    assert x.max().item() == 6
    with pytest.raises(TypeError, match="values, indices"):
        x.max(1, keepdims=True)


def test_views_share_storage(dev):
    x = bp.arange(12.0, device=dev)
    v = x.view(3, 4)
    u = v.unsqueeze(0).unsqueeze(-1)
    assert u.shape == (1, 3, 4, 1) and u.squeeze().shape == (3, 4)
    assert u.squeeze(0).shape == (3, 4, 1) and u.squeeze(1).shape == u.shape
    assert bp.squeeze(u, (0, 3)).shape == (3, 4)
    v.t()[1, 0] = -1.0  # element (0, 1) of v, element 1 of x
    assert x[1].item() == -1
    pieces = v.split([1, 3], dim=1)
    assert [p.shape for p in pieces] == [(3, 1), (3, 3)]
    pieces[1][0, 0] = 100.0
    assert x[1].item() == 100
    assert [c.shape for c in x.chunk(5)] == [(3,)] * 4
    assert x.view(2, 6).flatten().shape == (12,) and v.flatten(0, 1).shape == (12,)
    assert bp.arange(24, device=dev).reshape(2, 3, 4).transpose(0, 2).shape == (4, 3, 2)
    assert bp.arange(24, device=dev).reshape(2, 3, 4).permute(2, 0, 1).shape == (4, 2, 3)


def test_view_refuses_what_is_not_contiguous(dev):
    x = bp.zeros(3, 4, device=dev)
    with pytest.raises(bp.ShapeError, match="reshape"):
        x.t().view(12)
    assert x.t().reshape(12).shape == (12,)


def test_shape_errors_are_clear(dev):
    x = bp.zeros(2, 3, device=dev)
    with pytest.raises(bp.ShapeError, match="at most 2"):
        bp.zeros(2, 2, 2, device=dev).t()
    with pytest.raises(ValueError, match="add up"):
        x.split([1, 1], dim=1)
    with pytest.raises(ValueError, match="positive"):
        x.chunk(0)
    with pytest.raises(bp.ShapeError, match="broadcast"):
        x.expand(3, 3)
    with pytest.raises(bp.ShapeError, match="mm"):
        bp.mm(x, bp.zeros(3, device=dev))
    with pytest.raises(bp.ShapeError, match="bmm"):
        bp.bmm(x, x)
    with pytest.raises(bp.ShapeError, match="out of range"):
        x.unsqueeze(3)
    with pytest.raises(IndexError):
        x.unsqueeze(2).squeeze(5)


def test_expand_copies_and_sends_gradients_back(dev):
    x = bp.tensor([[1.0], [2.0]], device=dev)
    e = x.expand(3, -1, 4)
    np.testing.assert_array_equal(host(e), np.broadcast_to([[1.0], [2.0]], (3, 2, 4)))
    e[0, 0, 0] = 9.0  # a copy: x is unchanged (README, "Other differences")
    assert x[0, 0].item() == 1
    w = bp.tensor([[1.0], [2.0]], device=dev, requires_grad=True)
    w.expand_as(bp.zeros(4, 2, 3, device=dev)).sum().backward()
    np.testing.assert_array_equal(host(w.grad), [[12.0], [12.0]])
    a, b = bp.broadcast_tensors(bp.zeros(3, 1, device=dev), bp.ones(4, device=dev))
    assert a.shape == b.shape == (3, 4)


def test_cat_stack_take_dim(dev):
    x = bp.arange(6, device=dev).reshape(2, 3)
    assert bp.cat([x, x], dim=1).shape == (2, 6) and bp.cat((x, x)).shape == (4, 3)
    assert bp.stack([x, x], dim=2).shape == (2, 3, 2)
    assert bp.concatenate([x, x], dim=-1).shape == (2, 6)


def test_masked_fill_keeps_the_dtype_and_the_gradient(dev):
    x = bp.arange(6, device=dev).reshape(2, 3)
    r = x.masked_fill(x > 2, -1)
    assert r.dtype == bp.int64
    np.testing.assert_array_equal(host(r), [[0, 1, 2], [-1, -1, -1]])
    w = bp.ones(2, 3, device=dev, requires_grad=True)
    (w.masked_fill(bp.tensor([True, False, True], device=dev), 0.0) * 3).sum().backward()
    np.testing.assert_array_equal(host(w.grad), [[0, 3, 0], [0, 3, 0]])
    with pytest.raises(bp.DtypeError):
        x.masked_fill(x, 0)  # the mask must be bool


def test_method_forms(dev):
    a = bp.tensor([1.0, 2.0, 4.0], device=dev)
    np.testing.assert_allclose(host(a.pow(2)), [1, 4, 16])
    np.testing.assert_allclose(host(a.add(a, alpha=0.5)), [1.5, 3, 6])
    np.testing.assert_allclose(host(a.sub(1, alpha=2)), [-1, 0, 2])
    np.testing.assert_allclose(host(a.div(3, rounding_mode="floor")), [0, 0, 1])
    np.testing.assert_allclose(host(a.rsqrt()), 1 / np.sqrt([1, 2, 4]), rtol=1e-6)
    np.testing.assert_array_equal(host(a.gt(1.5)), [False, True, True])
    np.testing.assert_allclose(host(a.neg()), [-1, -2, -4])
    np.testing.assert_allclose(host(a.where(a > 1, bp.zeros_like(a))), [0, 2, 4])
    with pytest.raises(NotImplementedError, match="trunc"):
        a.div(2, rounding_mode="trunc")


def test_matmul_family_and_einsum(dev):
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 5))
    a, b = bp.tensor(A, device=dev), bp.tensor(B, device=dev)
    np.testing.assert_allclose(host(bp.bmm(a, b)), A @ B, rtol=1e-6)
    np.testing.assert_allclose(host(a[0].mm(b[0])), A[0] @ B[0], rtol=1e-6)
    np.testing.assert_allclose(host(bp.outer(a[0, 0], b[0, 0])), np.outer(A[0, 0], B[0, 0]))
    for eq, ops in [("bij,bjk->bik", (A, B)), ("bij,bkj->bik", (A, A)), ("ij->ji", (A[0],)),
                    ("bij->j", (A,)), ("i,i->", (A[0, 0], A[0, 1])), ("i,j", (A[0, 0], B[0, 0])),
                    ("bij,bjk->kib", (A, B)), ("ij,jk", (A[0], B[0])), ("ab,cd->abcd", (A[0], A[1])),
                    ("bij,bjk->", (A, B))]:
        got = bp.einsum(eq, *(bp.tensor(o, device=dev) for o in ops))
        np.testing.assert_allclose(host(got), np.einsum(eq, *ops), rtol=1e-6, atol=1e-12,
                                   err_msg=eq)
    with pytest.raises(NotImplementedError, match="ellipsis"):
        bp.einsum("...ij->...ji", a)
    with pytest.raises(NotImplementedError, match="repeated"):
        bp.einsum("ii->i", a[0])
    with pytest.raises(bp.ShapeError, match="extents"):
        bp.einsum("ij,ij->i", a[0], b[0])


def test_einsum_is_differentiable(dev):
    A = np.arange(6.0).reshape(2, 3)
    B = np.arange(12.0).reshape(3, 4)
    a = bp.tensor(A, device=dev, requires_grad=True)
    bp.einsum("ij,jk->ki", a, bp.tensor(B, device=dev)).sum().backward()
    np.testing.assert_allclose(host(a.grad), np.ones((2, 4)) @ B.T)


def test_generators_and_seeds(dev):
    g = bp.Generator().manual_seed(3)
    a = bp.randn(4, generator=g, device=dev)
    b = bp.randn(4, generator=bp.Generator().manual_seed(3), device=dev)
    np.testing.assert_array_equal(host(a), host(b))
    bp.manual_seed(5)
    p = bp.randperm(20, device=dev)
    assert sorted(host(p).tolist()) == list(range(20)) and p.dtype == bp.int64
    bp.manual_seed(5)
    np.testing.assert_array_equal(host(bp.randperm(20, device=dev)), host(p))
    r = bp.randint(3, 7, (100,), device=dev)
    assert host(r).min() >= 3 and host(r).max() < 7
    assert bp.randint(4, (2, 2), device=dev).shape == (2, 2)
    with pytest.raises(TypeError, match="size"):
        bp.randint(4)


def test_in_place_samplers_follow_the_write_rules(dev):
    w = bp.zeros(200, device=dev)
    assert w.uniform_(2, 3) is w and 2 <= host(w).min() and host(w).max() < 3
    w.normal_(mean=10, std=0.1)
    assert abs(host(w).mean() - 10) < 0.1
    leaf = bp.zeros(3, device=dev, requires_grad=True)
    with pytest.raises(bp.StateError):
        leaf.normal_()
    with bp.no_grad():
        leaf.uniform_()


def test_normal_with_tensor_arguments(dev):
    mean = bp.arange(1.0, 5.0, device=dev)
    s = bp.normal(mean, 1e-6)
    assert s.shape == (4,) and np.allclose(host(s), [1, 2, 3, 4], atol=1e-4)
    assert bp.normal(0.0, 1.0, (2, 3), device=dev).shape == (2, 3)


def test_dtype_names_are_torchs():
    assert (bp.long, bp.int, bp.float, bp.double, bp.half, bp.short) == (
        bp.int64, bp.int32, bp.float32, bp.float64, bp.float16, bp.int16)
    star = {}
    exec("from backplane import *", star)  # must not shadow Python's int, float, pow
    assert "int" not in star and "float" not in star and "pow" not in star
    assert "view" in star and "einsum" in star
    assert bp.pow(bp.tensor([2.0]), 3).item() == 8


def test_cuda_module_counts_cuda_devices_only():
    cuda = [d for d in bp.devices() if d.type == "cuda"]
    assert bp.cuda.device_count() == len(cuda)
    assert bp.cuda.is_available() is bool(cuda)
    if not cuda:
        with pytest.raises(bp.UnknownDeviceError):
            bp.cuda.get_device_name(0)


def test_two_axes_swap_but_a_permutation_permutes(dev):
    a = np.arange(6.0).reshape(2, 3)
    x = bp.tensor(a, device=dev)
    np.testing.assert_array_equal(host(x.transpose(0, 1)), a.T)  # PyTorch's swap
    np.testing.assert_array_equal(host(x.permute(0, 1)), a)
    np.testing.assert_array_equal(host(x.transpose((0, 1))), a)  # a tuple: NumPy's permutation
    np.testing.assert_array_equal(host(np.transpose(x, (1, 0))), a.T)
    # var over a tuple of axes reorders them internally with permute
    np.testing.assert_allclose(host(x.var(axis=(1,))), a.var(axis=1))


def test_picking_and_rearranging_pass_gradients_back(dev):
    w = bp.arange(6.0, device=dev).reshape(2, 3).requires_grad_()
    idx = bp.tensor([[2, 2], [0, 1]], device=dev)
    loss = (w.gather(1, idx).sum() + w.repeat(2, 2).sum() + (w.roll(1, 1) * w.detach()).sum()
            + w.tril().sum() + w.narrow(1, 0, 1).sum() * 10 + w.flip(0)[0].sum() * 100)
    loss.backward()
    a = np.arange(6.0).reshape(2, 3)
    want = np.zeros((2, 3))
    want[0, 2] += 2
    want[1, 0] += 1
    want[1, 1] += 1
    want += 4  # repeat(2, 2): each element four times
    want += np.roll(a, -1, axis=1)  # d/dw of sum(roll(w) * a) is a rolled back
    want += np.tril(np.ones((2, 3)))
    want[:, 0] += 10
    want[1] += 100
    np.testing.assert_allclose(host(w.grad), want)


def test_picking_errors(dev):
    x = bp.zeros(2, 3, device=dev)
    with pytest.raises(IndexError, match="exceeds"):
        x.narrow(1, 2, 2)
    with pytest.raises(bp.ShapeError, match="rank"):
        x.gather(0, bp.tensor([0, 1], device=dev))
    with pytest.raises(bp.ShapeError, match="1-D"):
        x.index_select(0, bp.zeros(1, 1, dtype=bp.int64, device=dev))
    with pytest.raises(ValueError, match="distinct"):
        bp.movedim(x, (0, 0), (0, 1))
    with pytest.raises(bp.ShapeError, match="sizes"):
        x.repeat(2)
    with pytest.raises(ValueError, match="shifts"):
        x.roll((1, 2), 0)
    with pytest.raises(bp.ShapeError, match="2 dimensions"):
        bp.tril(bp.zeros(3, device=dev))
    with pytest.raises(IndexError):
        x.gather(1, bp.tensor([[0, 3]], device=dev))
