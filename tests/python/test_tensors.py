"""Tensors on every device: creation, metadata, NumPy round trips, operators
with broadcasting and scalars, reductions, views, moving between devices."""
import numpy as np
import pytest

import backplane as bp

DTYPES = ["float32", "float64", "int32", "int64", "bool"]


def close(t, expected, rtol=1e-6, atol=1e-6):
    a = t.numpy()
    expected = np.asarray(expected)
    assert a.shape == expected.shape, (a.shape, expected.shape)
    np.testing.assert_allclose(a, expected, rtol=rtol, atol=atol)


# ---- creation and metadata ----------------------------------------------------

def test_creation_functions(dev):
    x = bp.ones((2, 3), device=dev)
    assert x.device is dev and x.shape == (2, 3) and x.dtype == bp.float32
    assert x.ndim == 2 and len(x) == 2 and x.size == 6
    close(x, np.ones((2, 3)))
    close(bp.zeros(2, 3, device=dev), np.zeros((2, 3)))
    assert bp.empty((4,), device=dev).shape == (4,)
    close(bp.full((2, 2), 7.5, device=dev), np.full((2, 2), 7.5))
    f = bp.full(3, 7, device=dev)
    assert f.dtype == bp.int64 and f.tolist() == [7, 7, 7]
    assert bp.full(2, True, device=dev).dtype == bp.bool_
    a = bp.arange(5, device=dev)
    assert a.dtype == bp.int64 and a.tolist() == [0, 1, 2, 3, 4]
    close(bp.arange(0.0, 1.0, 0.25, device=dev), [0, 0.25, 0.5, 0.75])
    assert bp.arange(1, 10, 3, dtype="float64", device=dev).dtype == bp.float64
    assert bp.zeros((), device=dev).shape == ()
    assert bp.ones(2, dtype="int32", device=dev).dtype == bp.int32
    assert bp.zeros_like(x).device is dev and bp.ones_like(x, dtype="int64").dtype == bp.int64
    close(bp.full_like(x, 2.0), np.full((2, 3), 2.0))


def test_random(dev):
    u = bp.random.uniform((3, 4), device=dev, seed=7)
    assert u.shape == (3, 4) and u.dtype == bp.float32 and u.device is dev
    a = u.numpy()
    assert ((a >= 0) & (a < 1)).all()
    # same seed, same values, on every device
    same = bp.random.uniform((3, 4), device="cpu", seed=7).numpy()
    np.testing.assert_allclose(a, same, rtol=1e-6)
    assert not np.array_equal(a, bp.random.uniform((3, 4), device=dev, seed=8).numpy())
    n = bp.random.normal((10000,), mean=2.0, std=0.5, device=dev, seed=1)
    assert abs(float(n.mean()) - 2.0) < 0.05
    u2 = bp.random.uniform((2,), low=5, high=6, dtype="float64", device=dev)
    assert u2.dtype == bp.float64 and ((u2.numpy() >= 5) & (u2.numpy() < 6)).all()
    bp.random.seed(3)
    first = bp.random.rand(4, device=dev).numpy()
    bp.random.seed(3)
    np.testing.assert_array_equal(first, bp.random.rand(4, device=dev).numpy())
    assert bp.random.randn(2, 2, device=dev).shape == (2, 2)


def test_len_of_scalar_raises(dev):
    with pytest.raises(TypeError):
        len(bp.zeros((), device=dev))


def test_tensors_cannot_be_constructed_directly():
    with pytest.raises(TypeError):
        bp.Tensor()


def test_copy_and_pickle(dev):
    import copy
    import pickle
    x = bp.arange(4, dtype="float64", device=dev)
    for y in (copy.copy(x), copy.deepcopy(x), pickle.loads(pickle.dumps(x))):
        assert y is not x and y._handle != x._handle
        assert y.device is dev and y.dtype == bp.float64 and y.tolist() == [0, 1, 2, 3]


def test_star_import_leaves_builtins_alone():
    ns = {}
    exec("from backplane import *", ns)
    assert "Tensor" in ns and "try_gpu" in ns and "DeviceMismatchError" in ns
    assert not {"sum", "max", "min", "abs"} & set(ns)


def test_tensors_are_unhashable():
    with pytest.raises(TypeError):
        hash(bp.ones(1, device="cpu"))


# ---- NumPy round trips ------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_round_trip(dev, dtype):
    a = (np.arange(24).reshape(2, 3, 4) % 5).astype(dtype)
    t = bp.tensor(a, device=dev)
    assert t.dtype == dtype and t.dtype == bp.as_dtype(dtype) and t.shape == (2, 3, 4)
    back = t.numpy()
    assert back.dtype == a.dtype
    np.testing.assert_array_equal(back, a)
    np.testing.assert_array_equal(np.asarray(t), a)
    np.testing.assert_array_equal(np.array(t, dtype="float64"), a.astype("float64"))
    # non-contiguous NumPy input is copied in C order
    np.testing.assert_array_equal(bp.tensor(a[:, ::2, 1], device=dev).numpy(), a[:, ::2, 1])
    # a 0-d array
    s = bp.tensor(a[1, 2, 3], device=dev)
    assert s.shape == () and s.item() == a[1, 2, 3]


def test_tensor_from_python_data(dev):
    assert bp.tensor([1, 2, 3], device=dev).dtype == bp.int64
    assert bp.tensor([1.5, 2], device=dev).dtype == bp.float32
    assert bp.tensor([True, False], device=dev).dtype == bp.bool_
    assert bp.tensor(2.5, device=dev).shape == ()
    assert bp.tensor([[1, 2]], dtype="float64", device=dev).dtype == bp.float64
    assert bp.tensor([[1, 2]], dtype=np.int32, device=dev).dtype == bp.int32
    assert bp.array([1, 2], device=dev).tolist() == [1, 2]
    assert bp.tensor([], device=dev).shape == (0,)


def test_tensor_of_tensor_copies(dev):
    x = bp.arange(3, device=dev)
    y = bp.tensor(x)
    assert y.device is dev and y is not x and y._handle != x._handle
    z = bp.tensor(x, dtype="float32", device="cpu")
    assert z.device is bp.cpu() and z.dtype == bp.float32 and z.tolist() == [0.0, 1.0, 2.0]


def test_unsupported_numpy_dtype_raises():
    with pytest.raises(bp.DtypeError):
        bp.tensor(np.zeros(2, dtype=np.uint16))
    assert bp.tensor(np.zeros(2, dtype=np.uint16), dtype="float32").dtype == bp.float32
    with pytest.raises(bp.DtypeError):
        bp.ones(2, dtype="complex64")


def test_item_float_int_bool(dev):
    assert bp.tensor(2.5, device=dev).item() == 2.5
    assert float(bp.tensor([2.5], device=dev)) == 2.5
    assert int(bp.tensor(7, device=dev)) == 7
    assert bool(bp.tensor(1, device=dev)) is True
    with pytest.raises(ValueError):
        bool(bp.ones(2, device=dev))
    assert list(range(10))[bp.tensor(3, device=dev)] == 3
    assert "{:.2f}".format(bp.tensor(1.0 / 3, device=dev)) == "0.33"


# ---- repr -------------------------------------------------------------------------

def test_repr(dev):
    x = bp.ones((2, 3), device=dev)
    assert repr(x) == ("tensor([[1., 1., 1.],\n        [1., 1., 1.]], device='{}')".format(dev))
    assert str(x) == repr(x)
    assert repr(bp.tensor([1, 2, 3], device=dev)) == "tensor([1, 2, 3], device='{}')".format(dev)
    assert repr(bp.tensor([1, 2], dtype="int32", device=dev)) == (
        "tensor([1, 2], device='{}', dtype=int32)".format(dev))
    assert repr(bp.tensor(2.5, device=dev)) == "tensor(2.5, device='{}')".format(dev)
    assert repr(bp.zeros((0, 3), device=dev)) == "tensor([], size=(0, 3), device='{}')".format(dev)
    assert repr(bp.tensor([True], device=dev)) == "tensor([ True], device='{}')".format(dev)


def test_dtype_objects():
    assert bp.float32 == "float32" and bp.float32 == np.float32 and bp.float32 == np.dtype("float32")
    assert bp.float32 != bp.float64
    assert repr(bp.int64) == "backplane.int64" and str(bp.int64) == "int64"
    assert bp.bool is bp.bool_ and bp.as_dtype(bool) is bp.bool_
    assert bp.as_dtype(float) is bp.float64 and bp.as_dtype(int) is bp.int64
    assert bp.float32.itemsize == 4 and bp.float32.numpy == np.float32
    assert len({bp.float32, bp.as_dtype("float32")}) == 1


# ---- operators ---------------------------------------------------------------------

def test_arithmetic_with_broadcasting(dev):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([1.0, 2.0, 4.0], dtype=np.float32)
    x, y = bp.tensor(a, device=dev), bp.tensor(b, device=dev)
    close(x + y, a + b)
    close(x - y, a - b)
    close(x * y, a * b)
    close(x / y, a / b)
    close(x ** y, a ** b, rtol=1e-5)
    col = bp.tensor(np.array([[10.0], [20.0]], dtype=np.float32), device=dev)
    close(x + col, a + np.array([[10.0], [20.0]]))
    assert (x + y).device is dev
    with pytest.raises(bp.ShapeError):
        x + bp.ones(4, device=dev)


def test_scalars_and_reflected_ops(dev):
    a = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    x = bp.tensor(a, device=dev)
    close(x + 1, a + 1)
    close(1 + x, 1 + a)
    close(x - 1.5, a - 1.5)
    close(10 - x, 10 - a)
    close(x * 2, a * 2)
    close(2 * x, 2 * a)
    close(x / 4, a / 4)
    close(6 / x, 6 / a)
    close(x ** 2, a ** 2)
    close(2 ** x, 2 ** a, rtol=1e-5)
    close(-x, -a)
    close(+x, a)
    close(abs(-x), a)
    close(x + True, a + 1)
    close(x + np.float32(0.5), a + 0.5)  # NumPy scalars count as numbers
    close(np.float64(2) * x, 2 * a)
    i = bp.arange(4, device=dev)
    assert (i + 1).dtype == bp.int64
    assert (i + 0.5).dtype == bp.float64  # a float scalar with integers computes in float64 ...
    assert (i + 2.0).dtype == bp.float64  # ... by its kind, whatever its value
    assert (i / 2).dtype == bp.float64
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError):
        x + [1, 2, 3]


def test_numpy_arrays_are_not_silently_converted(dev):
    x = bp.ones(3, device=dev)
    for mixed in (lambda: np.ones(3) + x, lambda: x + np.ones(3), lambda: np.add(x, np.ones(3))):
        with pytest.raises(TypeError, match=r"bp\.tensor\(array, device='{}'\)".format(dev)):
            mixed()


def test_comparisons(dev):
    a = np.array([1, 2, 3, 4], dtype=np.int32)
    x = bp.tensor(a, device=dev)
    y = bp.tensor(a[::-1].copy(), device=dev)
    for got, want in [(x == y, a == a[::-1]), (x != y, a != a[::-1]), (x < y, a < a[::-1]),
                      (x <= y, a <= a[::-1]), (x > y, a > a[::-1]), (x >= y, a >= a[::-1]),
                      (x > 2, a > 2), (2 < x, 2 < a), (x == 3, a == 3)]:
        assert got.dtype == bp.bool_
        np.testing.assert_array_equal(got.numpy(), want)
    assert (x == None) is False  # noqa: E711 -- falls back to identity


def test_unary_functions(dev):
    a = np.array([[0.5, 1.0, 2.0], [3.0, 0.25, 4.0]], dtype=np.float32)
    x = bp.tensor(a, device=dev)
    close(x.exp(), np.exp(a), rtol=1e-5)
    close(x.log(), np.log(a), rtol=1e-5)
    close(x.sqrt(), np.sqrt(a))
    close(x.tanh(), np.tanh(a), rtol=1e-5)
    close(x.sigmoid(), 1 / (1 + np.exp(-a)), rtol=1e-5)
    close((x - 1).relu(), np.maximum(a - 1, 0))
    close((1 - x).abs(), np.abs(1 - a))
    close(bp.exp(x), np.exp(a), rtol=1e-5)
    close(bp.negative(x), -a)
    assert bp.arange(3, device=dev).exp().dtype == bp.float64


def test_maximum_minimum_where(dev):
    a = np.array([1.0, 5.0, 3.0], dtype=np.float32)
    b = np.array([4.0, 2.0, 3.0], dtype=np.float32)
    x, y = bp.tensor(a, device=dev), bp.tensor(b, device=dev)
    close(bp.maximum(x, y), np.maximum(a, b))
    close(bp.minimum(x, y), np.minimum(a, b))
    close(bp.maximum(x, 2.5), np.maximum(a, 2.5))
    close(x.minimum(y), np.minimum(a, b))
    close(bp.where(x > y, x, y), np.where(a > b, a, b))
    close(bp.where(x > 2, x, 0.0), np.where(a > 2, a, 0.0))
    close(bp.where(x > 2, -1.0, y), np.where(a > 2, -1.0, b))
    with pytest.raises(bp.DtypeError):
        bp.where(x, x, y)


def test_matmul(dev):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    x, y = bp.tensor(a, device=dev), bp.tensor(b, device=dev)
    close(x @ y, a @ b, rtol=1e-5)
    close(bp.matmul(x, y), a @ b, rtol=1e-5)
    close(bp.matmul(x, x, transpose_b=True), a @ a.T, rtol=1e-5)
    close(x.T @ x, a.T @ a, rtol=1e-5)
    v = bp.tensor(np.ones(3, dtype=np.float32), device=dev)
    close(x @ v, a @ np.ones(3), rtol=1e-5)
    with pytest.raises(bp.ShapeError):
        x @ x


def test_out_variants(dev):
    x = bp.ones((2, 3), device=dev)
    out = bp.zeros((2, 3), device=dev)
    assert bp.add(x, x, out=out) is out
    close(out, np.full((2, 3), 2.0))
    assert bp.exp(bp.zeros((2, 3), device=dev), out=out) is out
    close(out, np.ones((2, 3)))
    log = bp.zeros(3, device=dev)
    for i in range(3):
        bp.norm(x * (i + 1), out=log[i])  # a log kept on the device
    close(log, [np.sqrt(6) * k for k in (1, 2, 3)], rtol=1e-5)
    s = bp.zeros(3, device=dev)
    assert x.sum(axis=0, out=s) is s
    close(s, [2, 2, 2])
    m = bp.zeros((2, 2), device=dev)
    assert bp.matmul(x, x, transpose_b=True, out=m) is m
    close(m, np.full((2, 2), 3.0))


# ---- reductions --------------------------------------------------------------------

def test_reductions(dev):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7
    x = bp.tensor(a, device=dev)
    close(x.sum(), a.sum())
    close(x.sum(axis=1), a.sum(axis=1))
    close(x.sum(axis=-1, keepdims=True), a.sum(axis=-1, keepdims=True))
    close(x.sum(axis=(0, 2)), a.sum(axis=(0, 2)))
    close(x.sum(axis=(0, 2), keepdims=True), a.sum(axis=(0, 2), keepdims=True))
    close(x.mean(), a.mean())
    close(x.mean(axis=(1, 2)), a.mean(axis=(1, 2)), rtol=1e-5)
    close(x.max(), a.max())
    close(x.max(axis=0), a.max(axis=0))
    close(x.min(axis=2), a.min(axis=2))
    assert x.argmax().item() == a.argmax()
    np.testing.assert_array_equal(x.argmax(axis=1).numpy(), a.argmax(axis=1))
    assert x.argmax().dtype == bp.int64
    close(bp.norm(x), np.linalg.norm(a), rtol=1e-5)
    close(x.norm(axis=2), np.linalg.norm(a, axis=2), rtol=1e-5)
    close(bp.sum(x, axis=0), a.sum(axis=0))
    close(bp.mean(x), a.mean())
    close(bp.max(x), a.max())
    close(bp.min(x), a.min())
    close(np.sum(x), a.sum())  # NumPy's functions call our methods
    close(np.mean(x, axis=0), a.mean(axis=0))
    assert x.sum().shape == ()
    i = bp.tensor(np.array([[1, 2], [3, 4]], dtype=np.int32), device=dev)
    assert i.sum().dtype == bp.int64 and i.sum().item() == 10
    assert i.mean().dtype == bp.float64 and i.mean().item() == 2.5
    b = bp.tensor([True, False, True], device=dev)
    assert b.sum().item() == 2
    assert bool(b.any()) and not bool(b.all())
    with pytest.raises(bp.ShapeError):
        x.sum(axis=3)


# ---- shapes, views and indexing ----------------------------------------------------

def test_reshape_transpose_astype(dev):
    a = np.arange(6, dtype=np.float32)
    x = bp.tensor(a, device=dev)
    assert x.reshape(2, 3).shape == (2, 3)
    assert x.reshape((3, -1)).shape == (3, 2)
    assert bp.reshape(x, [1, 6]).shape == (1, 6)
    close(x.reshape(2, 3).T, a.reshape(2, 3).T)
    close(x.reshape(1, 2, 3).transpose(2, 0, 1), a.reshape(1, 2, 3).transpose(2, 0, 1))
    assert x.reshape(2, 3).T.reshape(6).tolist() == a.reshape(2, 3).T.reshape(6).tolist()
    assert x.reshape(2, 3).T.flatten().shape == (6,)
    for dtype in DTYPES:
        y = x.astype(dtype)
        assert y.dtype == dtype and y.device is dev
        np.testing.assert_array_equal(y.numpy(), a.astype(dtype))
    z = x.astype("float32")
    assert z is not x and z._handle != x._handle
    with pytest.raises(bp.ShapeError):
        x.reshape(4, 2)


def test_indexing_views(dev):
    a = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    x = bp.tensor(a, device=dev)
    keys = [0, -1, 2, slice(None), slice(1, 3), slice(None, None, 2), slice(-2, None),
            slice(10, 20), (1, 2), (1, slice(1, 3)), (slice(None), 0), (-1, -1, -1),
            (slice(None), slice(None, None, 3), 1), (Ellipsis, 0), (0, Ellipsis),
            (1, Ellipsis, slice(2, 4)), Ellipsis, (slice(0, 0),)]
    for k in keys:
        np.testing.assert_array_equal(x[k].numpy(), a[k], err_msg=str(k))
        assert x[k].device is dev
    assert x[1][2][3].item() == a[1, 2, 3]
    rows = [r.numpy() for r in x]
    assert len(rows) == 3 and all(np.array_equal(r, a[i]) for i, r in enumerate(rows))
    assert x[np.int64(1)].shape == (4, 5)


def test_indexing_errors(dev):
    x = bp.zeros((3, 4), device=dev)
    with pytest.raises(IndexError):
        x[3]
    with pytest.raises(IndexError):
        x[-4]
    with pytest.raises(IndexError):
        x[0, 0, 0]
    with pytest.raises(IndexError):
        x[[0, 3]]
    with pytest.raises(IndexError):
        x[..., ...]
    with pytest.raises(ValueError):
        x[::0]


def test_views_share_storage(dev):
    x = bp.zeros((3, 4), device=dev)
    row = x[1]
    row[2] = 5.0
    x[0, 1:3] = 7
    x[2] = bp.tensor([1, 2, 3, 4], dtype="float32", device=dev)
    x[:, 0] = bp.full((3,), -1.0, device=dev)
    x[..., 3] = [9, 9, 9]  # host data: an explicit copy into the view
    want = np.zeros((3, 4), dtype=np.float32)
    want[1, 2] = 5
    want[0, 1:3] = 7
    want[2] = [1, 2, 3, 4]
    want[:, 0] = -1
    want[:, 3] = 9
    np.testing.assert_array_equal(x.numpy(), want)
    np.testing.assert_array_equal(row.numpy(), want[1])
    x[1, 1] += 100  # read, add, write back through the view
    assert x[1, 1].item() == want[1, 1] + 100
    assert x.T.is_contiguous() is False and x.is_contiguous() is True
    assert x.T.contiguous().is_contiguous()
    assert x.strides == (4, 1) and x.T.strides == (1, 4)


# ---- moving between devices ---------------------------------------------------------

def test_to_and_copyto(dev_pair):
    a, b = dev_pair
    x = bp.ones((2, 3), device=a)
    z = x.copyto(b)
    assert z.device is b and z is not x
    np.testing.assert_array_equal(z.numpy(), x.numpy())
    # copyto always copies, even on the same device
    z2 = z.copyto(b)
    assert z2 is not z and z2._handle != z._handle
    # to / as_in_ctx return the same object when already there
    assert z.to(b) is z
    assert z.as_in_ctx(b) is z
    assert z.as_in_context(b.name) is z
    assert bp.to(z, b) is z
    w = x.to(b)
    assert w is not x and w.device is b
    assert x.to(a, dtype="float32") is x
    assert x.to(b, dtype="float64").dtype == bp.float64
    # writes to the copy do not touch the original
    z[0, 0] = 42
    assert x[0, 0].item() == 1
    # copyto into an existing tensor (MXNet)
    dst = bp.zeros((2, 3), device=b)
    assert x.copyto(dst) is dst
    np.testing.assert_array_equal(dst.numpy(), np.ones((2, 3)))
    assert x.cpu().device is bp.cpu()


def test_device_mismatch_error(dev_pair):
    a, b = dev_pair
    x = bp.ones((2, 3), device=a)
    y = bp.ones((2, 3), device=b)
    with pytest.raises(bp.DeviceMismatchError) as e:
        x + y
    err = e.value
    assert isinstance(err, bp.BackplaneError)
    assert err.op == "add"
    assert err.devices == (a, b)
    assert all(isinstance(d, bp.Device) for d in err.devices)
    assert err.status == "BP_ERR_DEVICE_MISMATCH" and err.code == 3
    assert err.input is None or err.input in (0, 1)
    msg = str(err)
    assert msg == err.message
    assert msg.startswith("add: all inputs must be on one device")
    assert "input 0 is on {}".format(a) in msg and "input 1 is on {}".format(b) in msg
    with pytest.raises(bp.DeviceMismatchError) as e:
        y @ x.T
    assert e.value.op == "matmul" and e.value.devices == (b, a)
    with pytest.raises(bp.DeviceMismatchError) as e:
        bp.where(x > 0, x, y)
    assert e.value.op == "where" and e.value.devices == (a, a, b)
    with pytest.raises(bp.DeviceMismatchError):
        x[0] = y[0]
    # the fix the message suggests works
    assert (x.to(b) + y).device is b
