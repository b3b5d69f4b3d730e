"""Indexing with NumPy's rules (masks, integer arrays, negative steps, None),
cumsum, nonzero and one-argument where, and the bitwise operators, against
NumPy on every device."""
import itertools

import numpy as np
import pytest

import backplane as bp

N = np.arange(60).reshape(3, 4, 5)

# Entries a key is made of: every kind of basic and advanced index.
ENTRIES = [slice(None), slice(1, None, 2), slice(None, None, -1), slice(3, 0, -2), 1, -1, None,
           np.array([0, 2]), np.array([[1], [0]]), Ellipsis]


def _keys():
    for r in (1, 2, 3):
        for key in itertools.product(ENTRIES, repeat=r):
            try:
                N[key]
            except IndexError:
                continue
            yield key


KEYS = list(_keys())


def _unique(key):
    """Whether the key names each element at most once (NumPy's last-wins on
    repeats is one of the answers bp_scatter_nd allows, not the only one)."""
    names = np.arange(N.size).reshape(N.shape)[key].ravel().tolist()
    return len(set(names)) == len(names)


def test_every_kind_of_key_reads_and_writes_as_numpy(dev):
    x = bp.tensor(N, device=dev)
    checked = 0
    for key in KEYS:
        want = N[key]
        got = x[key]
        assert got.device == dev, key
        assert got.shape == want.shape and (got.numpy() == want).all(), key
        if not _unique(key):
            continue
        expected = N.copy()
        value = -np.arange(want.size).reshape(want.shape) - 1
        expected[key] = value
        y = bp.tensor(N, device=dev)
        y[key] = bp.tensor(value, device=dev)
        assert (y.numpy() == expected).all(), key
        checked += 1
    assert checked > 500


def test_masks_read_and_assign(dev):
    c = bp.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], device=dev)
    assert c[c > 2].tolist() == [5.0, 3.0, 4.0, 6.0]
    c[c > 2] = 0
    assert c.tolist() == [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]]
    rows = bp.tensor([True, False], device=dev)
    assert c[rows].tolist() == [[1.0, 0.0, 0.0]]
    c[:, bp.tensor([False, True, True], device=dev)] = bp.tensor([7.0, 8.0], device=dev)
    assert c.tolist() == [[1.0, 7.0, 8.0], [0.0, 7.0, 8.0]]
    assert c[c > 100].shape == (0,)
    with pytest.raises(IndexError, match="boolean index of shape"):
        c[bp.tensor([True, False, True], device=dev)]


def test_index_errors(dev):
    x = bp.tensor(N, device=dev)
    with pytest.raises(IndexError, match="out of range"):
        x[bp.tensor([0, 3], device=dev)]
    with pytest.raises(IndexError, match="out of range"):
        x[:, [-5]] = 0
    with pytest.raises(IndexError, match="out of bounds"):
        x[3]
    with pytest.raises(IndexError, match="integer or boolean"):
        x[bp.tensor([0.0, 1.0], device=dev)]
    with pytest.raises(IndexError, match="broadcast"):
        x[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0, 0]
    with pytest.raises(IndexError, match="Python bool"):
        x[True]
    assert isinstance(bp.IndexError("m"), IndexError)


def test_negative_steps_copy_and_none_views(dev):
    x = bp.tensor([1, 2, 3, 4], device=dev)
    r = x[::-1]
    r[0] = 100
    assert x.tolist() == [1, 2, 3, 4] and r.tolist() == [100, 3, 2, 1]
    x[::-2] = bp.tensor([10, 20], device=dev)
    assert x.tolist() == [1, 20, 3, 10]
    v = x[None, 1:]
    v[0, 0] = -1
    assert v.shape == (1, 3) and x.tolist() == [1, -1, 3, 10]


def test_cumsum(dev):
    a = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32)
    x = bp.tensor(a, device=dev)
    assert x.cumsum(0).tolist() == np.cumsum(a, 0).tolist() and x.cumsum(0).dtype == bp.int64
    assert bp.cumsum(x).tolist() == np.cumsum(a).tolist()
    assert np.cumsum(x, axis=1).tolist() == np.cumsum(a, axis=1).tolist()
    assert x.cumsum(1, dtype=bp.int32).dtype == bp.int32
    f = bp.tensor([0.5, 0.25, 0.125], device=dev)
    assert f.cumsum(0).tolist() == [0.5, 0.75, 0.875] and f.cumsum().dtype == bp.float32
    assert bp.tensor([True, True, False], device=dev).cumsum().tolist() == [1, 2, 2]


def test_nonzero_and_where(dev):
    a = np.array([[0.0, 3.0, 0.0], [-1.0, 0.0, np.nan]])
    x = bp.tensor(a, device=dev)
    assert x.nonzero().tolist() == np.argwhere(a).tolist()
    assert bp.argwhere(x).tolist() == np.argwhere(a).tolist()
    for got, want in zip(bp.where(x != 0), np.where(a != 0)):
        assert got.tolist() == want.tolist() and got.dtype == bp.int64
    assert [t.tolist() for t in x.nonzero(as_tuple=True)] == [w.tolist() for w in np.nonzero(a)]
    assert x[x.nonzero(as_tuple=True)].tolist()[:2] == [3.0, -1.0]
    assert bp.zeros((2, 3), device=dev).nonzero().shape == (0, 2)
    with pytest.raises(TypeError, match="both a and b"):
        bp.where(x > 0, 1)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_bitwise_integers(dev, dtype):
    a = np.array([12, -1, 5, 0], dtype=dtype)
    b = np.array([10, 7, 1, -8], dtype=dtype)
    x, y = bp.tensor(a, device=dev), bp.tensor(b, device=dev)
    assert (x & y).tolist() == (a & b).tolist()
    assert (x | y).tolist() == (a | b).tolist()
    assert (x ^ y).tolist() == (a ^ b).tolist()
    assert (~x).tolist() == (~a).tolist()
    assert (x & 6).tolist() == (a & 6).tolist() and (6 | x).tolist() == (6 | a).tolist()
    assert bp.bitwise_xor(x, y).tolist() == np.bitwise_xor(a, b).tolist()
    assert np.invert(x).tolist() == np.invert(a).tolist() and np.bitwise_and(x, y).device == dev


def test_bitwise_bool_is_logical(dev):
    m = bp.tensor([True, True, False, False], device=dev)
    n = bp.tensor([True, False, True, False], device=dev)
    assert (m & n).tolist() == [True, False, False, False] and (m & n).dtype == bp.bool
    assert (m | n).tolist() == [True, True, True, False]
    assert (m ^ n).tolist() == [False, True, True, False]
    assert (~m).tolist() == [False, False, True, True]
    assert (m & True).dtype == bp.bool and (False | m).tolist() == [True, True, False, False]
    x = bp.tensor([1.0, 5.0, 3.0], device=dev)
    assert x[(x > 1) & (x < 4)].tolist() == [3.0]


def test_bitwise_refuses_floats(dev):
    x = bp.tensor([1.0, 2.0], device=dev)
    with pytest.raises(bp.DtypeError, match="integer and bool"):
        x & x
    with pytest.raises(TypeError):
        ~x
    # A float scalar makes the operation float64 (by its kind, not its value).
    with pytest.raises(TypeError, match="float64"):
        bp.tensor([1, 2], device=dev) | 2.5
    with pytest.raises(TypeError, match="float64"):
        bp.tensor([1, 2], device=dev) | 2.0


def test_empty_and_small_integer_index_arrays(dev):
    x = bp.tensor(N, device=dev)
    assert x[[]].shape == N[[]].shape
    for dtype in ("int8", "uint8", "int16", "int32"):
        idx = np.array([2, 0], dtype=dtype)
        assert (x[idx].numpy() == N[idx]).all()
