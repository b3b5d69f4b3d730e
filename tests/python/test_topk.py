"""bp.topk, bp.sort, bp.argsort, bp.msort and the Tensor methods on every
device against NumPy's stable sort (np.argsort(kind='stable')): random
shapes, dims, k and every dtype, with ties, NaN of both signs, infinities,
-0 and +0 and strided inputs; the named tuples and out=; PyTorch's
torch.sort(stable=True) where it is installed; and the errors (k outside
0..n, a bad dim) naming the function. The gradients are test_gradcheck.py's."""
import math
import zlib

import numpy as np
import pytest

import backplane as bp

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64", "bool"]
FLOATS = ("float32", "float64", "float16", "bfloat16")
SPECIALS = [-2.0, -1.0, -0.0, 0.0, 1.0, 1.0, 2.0, math.inf, -math.inf, math.nan, -math.nan]


def require_dtype(dev, dtype):
    try:
        bp.zeros(2, dtype=dtype, device=dev).sort()
    except (bp.DtypeError, bp.UnsupportedError) as e:
        pytest.skip("{} has no {}: {}".format(dev, dtype, e))


def random_tensor(rng, shape, dtype, dev):
    """Values of `dtype` from few distinct ones (ties everywhere), floats with
    NaN of either sign, infinities and both zeros."""
    if dtype in FLOATS:
        data = rng.choice(np.array(SPECIALS), size=shape)
    elif dtype == "bool":
        data = rng.integers(0, 2, size=shape).astype(bool)
    else:
        info = np.iinfo(dtype)
        data = rng.choice(np.array([info.min, -1 if info.min < 0 else 7, 0, 1, 3, info.max], dtype=dtype), size=shape)
    return bp.tensor(data, dtype=dtype, device=dev)


def host(t):
    """t's values on the host, exactly: floats widened to float64."""
    return t.to(bp.float64).numpy() if str(t.dtype) in FLOATS else t.numpy()


def expected_positions(a, dim, descending):
    """NumPy's stable order of a along dim; descending keeps ties in position
    order and puts NaN first (plugin.h's order), through a key whose stable
    ascending sort is it."""
    if not descending:
        return np.argsort(a, axis=dim, kind="stable")
    if a.dtype.kind == "f":
        key = np.where(np.isnan(a), -np.inf, -a)
        # -inf of a NaN and of +inf: NaN first, then +inf, as their own keys.
        rank = np.where(np.isnan(a), 0, 1)
        order = np.lexsort((np.moveaxis(key, dim, -1), np.moveaxis(rank, dim, -1)), axis=-1)
        return np.moveaxis(order, -1, dim)
    if a.dtype == np.bool_:
        return np.argsort(~a, axis=dim, kind="stable")
    if a.dtype.kind == "u":
        return np.argsort(np.iinfo(a.dtype).max - a, axis=dim, kind="stable")
    return np.argsort(~a, axis=dim, kind="stable")  # ~x = -x - 1: order reversed, no overflow


def same_values(got, want):
    """Equal as float64 or integers, NaN equal to NaN, -0 apart from +0."""
    if got.dtype.kind == "f":
        return np.array_equal(np.isnan(got), np.isnan(want)) and np.array_equal(
            np.signbit(got), np.signbit(want)) and np.array_equal(got[~np.isnan(got)], want[~np.isnan(want)])
    return np.array_equal(got, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_topk_and_sort_match_numpys_stable_order(dev, dtype):
    require_dtype(dev, dtype)
    rng = np.random.default_rng(zlib.crc32("{} {}".format(dev.name, dtype).encode()))
    for trial in range(6):
        rank = int(rng.integers(1, 5))
        shape = tuple(int(rng.integers(0, 5)) for _ in range(rank - 1)) + (int(rng.integers(1, 13)),)
        x = random_tensor(rng, shape, dtype, dev)
        if trial % 2 and rank > 1:
            x = x.transpose(0, rank - 1)  # a strided view
        dim = int(rng.integers(-rank, rank))
        a = host(x)
        n = x.shape[dim]
        for descending in (False, True):
            order = expected_positions(a, dim, descending)
            want = np.take_along_axis(a, order, axis=dim)
            s = bp.sort(x, dim=dim, descending=descending)
            assert s.values.dtype == x.dtype and s.indices.dtype == bp.int64
            np.testing.assert_array_equal(s.indices.numpy(), order)
            assert same_values(host(s.values), want)
            np.testing.assert_array_equal(x.argsort(dim, descending).numpy(), order)
            k = int(rng.integers(0, n + 1))
            t = x.topk(k, dim=dim, largest=descending)
            picked = np.take(order, np.arange(k), axis=dim)
            np.testing.assert_array_equal(t.indices.numpy(), picked)
            assert same_values(host(t.values), np.take_along_axis(a, picked, axis=dim))


def test_results_are_named_tuples_and_out_writes_into_tensors(dev):
    x = bp.tensor([[3, 1, 4, 1], [5, 9, 2, 6]], dtype=bp.int32, device=dev)
    top = bp.topk(x, 2)
    values, indices = top
    assert type(top).__name__ == "topk" and top.values is values and top.indices is indices
    assert values.tolist() == [[4, 3], [9, 6]] and indices.tolist() == [[2, 0], [1, 3]]
    s = x.sort(stable=True)
    assert type(s).__name__ == "sort" and s.indices.tolist() == [[1, 3, 0, 2], [2, 0, 3, 1]]
    assert bp.msort(x).tolist() == [[3, 1, 2, 1], [5, 9, 4, 6]]
    assert x.msort().tolist() == bp.sort(x, 0).values.tolist()
    v, i = bp.zeros((2, 2), dtype=bp.int32, device=dev), bp.zeros((2, 2), dtype=bp.int64, device=dev)
    r = bp.topk(x, 2, largest=False, out=(v, i))
    assert r.values is v and r.indices is i
    assert v.tolist() == [[1, 1], [2, 5]] and i.tolist() == [[1, 3], [2, 0]]
    wv, wi = bp.zeros((2, 4), dtype=bp.int32, device=dev), bp.zeros((2, 4), dtype=bp.int64, device=dev)
    bp.sort(x, descending=True, out=(wv, wi))
    assert wv.tolist() == [[4, 3, 1, 1], [9, 6, 5, 2]] and wi.tolist() == [[2, 0, 1, 3], [1, 3, 0, 2]]
    # A 0-d tensor is one element, as in PyTorch.
    scalar = bp.tensor(2.5, device=dev)
    assert bp.topk(scalar, 1).values.shape == () and bp.sort(scalar).indices.item() == 0


def test_sort_matches_torch_where_torch_is_installed(dev):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    for dtype in ("float32", "float64", "int32", "int64", "int16", "uint8"):
        require_dtype(dev, dtype)
        data = random_tensor(rng, (5, 17), dtype, bp.cpu()).numpy()
        x = bp.tensor(data, device=dev)
        for descending in (False, True):
            want = torch.sort(torch.from_numpy(data), dim=1, descending=descending, stable=True)
            got = bp.sort(x, dim=1, descending=descending)
            np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy())
            assert same_values(got.values.numpy(), want.values.numpy())
            top = bp.topk(x, 4, largest=descending)
            # torch.topk leaves the order of ties open: only the values
            # compare, -0 equal to +0 (which of the two it picks is open too).
            np.testing.assert_array_equal(
                top.values.numpy(), torch.topk(torch.from_numpy(data), 4, largest=descending).values.numpy())


def test_bad_k_and_dim_raise_shape_errors_naming_the_function(dev):
    x = bp.zeros((2, 3), device=dev)
    with pytest.raises(bp.ShapeError, match="topk: k = 4 is outside 0..3") as e:
        bp.topk(x, 4)
    assert e.value.op == "topk"
    with pytest.raises(bp.ShapeError, match="topk: k = -1"):
        x.topk(-1)
    with pytest.raises(bp.ShapeError, match="topk: axis 2 is out of range"):
        bp.topk(x, 1, dim=2)
    with pytest.raises(bp.ShapeError, match="sort: axis -3 is out of range") as e:
        x.sort(dim=-3)
    assert e.value.op == "sort"
    with pytest.raises(bp.ShapeError, match="argsort: axis 5"):
        bp.argsort(x, dim=5)
    with pytest.raises(TypeError, match="out= is a"):
        bp.topk(x, 1, out=bp.zeros((2, 1), device=dev))
    with pytest.raises(bp.DtypeError):
        bp.topk(x, 1, out=(bp.zeros((2, 1), device=dev), bp.zeros((2, 1), device=dev)))
