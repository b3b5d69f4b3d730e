"""bp_index, bp_index_put and bp_index_put_into (the C API's indexing,
which t[key] and t[key] = v call) against NumPy over many random keys on
every device: reads, writes, adding writes with repeated positions
(np.add.at), and the gradient that flows back through a read and an
out-of-place put."""
import random

import numpy as np
import pytest

import backplane as bp
from backplane import _C

SHAPE = (4, 3, 5)
BASE = np.arange(60, dtype=np.float64).reshape(SHAPE) - 20


def _entry(rng, axes_left):
    """One random entry of a key and how many axes it takes."""
    kind = rng.randrange(6)
    if kind == 0 or axes_left == 0:
        return (None, 0) if rng.random() < 0.5 else (Ellipsis, 0)
    n = SHAPE[-axes_left]
    if kind == 1:
        return rng.randrange(-n, n), 1
    if kind == 2:
        pick = lambda: rng.choice([None, rng.randrange(-n - 2, n + 3)])  # noqa: E731
        return slice(pick(), pick(), rng.choice([None, 1, 2, -1, -2, 3])), 1
    if kind == 3:
        shape = rng.choice([(2,), (3,), (1,), (2, 1), (1, 2)])
        return np.array([rng.randrange(-n, n) for _ in range(int(np.prod(shape)))]).reshape(shape), 1
    if kind == 4 and axes_left >= 2 and rng.random() < 0.5:
        m = SHAPE[-axes_left + 1]
        return np.array([rng.random() < 0.5 for _ in range(n * m)]).reshape(n, m), 2
    return np.array([rng.random() < 0.5 for _ in range(n)]), 1


def _keys(count, seed):
    rng = random.Random(seed)
    keys = []
    while len(keys) < count:
        key, left = [], len(SHAPE)
        for _ in range(rng.randrange(1, 5)):
            entry, used = _entry(rng, left)
            if entry is Ellipsis and any(k is Ellipsis for k in key):
                continue
            key.append(entry)
            left -= used
        key = tuple(key)
        try:
            BASE[key]
        except IndexError:  # masks and arrays that NumPy cannot broadcast
            continue
        keys.append(key)
    return keys


KEYS = _keys(300, 27)


def _as_bp(key, dev):
    return tuple(bp.tensor(k, device=dev) if isinstance(k, np.ndarray) else k for k in key)


def test_random_keys_read_and_write_as_numpy(dev):
    x = bp.tensor(BASE, device=dev)
    for key in KEYS:
        want = BASE[key]
        got = x[_as_bp(key, dev)]
        assert got.shape == want.shape and np.array_equal(got.numpy(), want), key
        # A write of distinct values, compared where the key names each
        # position once (repeats keep one of their values).
        positions = np.arange(BASE.size).reshape(SHAPE)[key].ravel()
        if len(set(positions.tolist())) != positions.size:
            continue
        expected = BASE.copy()
        value = np.arange(want.size, dtype=np.float64).reshape(want.shape) + 100
        expected[key] = value
        y = bp.tensor(BASE, device=dev)
        y[_as_bp(key, dev)] = bp.tensor(value, device=dev)
        assert np.array_equal(y.numpy(), expected), key


def test_random_keys_put_and_accumulate_as_numpy(dev):
    x = bp.tensor(BASE, device=dev)
    for key in KEYS[:120]:
        want = BASE[key]
        ones = np.ones(want.shape)
        added = BASE.copy()
        np.add.at(added, key, ones)
        got = _C.index_put(x, list(_as_bp(key, dev)), bp.tensor(ones, device=dev), True)
        assert np.array_equal(got.numpy(), added), key
        assert np.array_equal(x.numpy(), BASE), key  # the input is left alone


def test_gradient_through_random_reads_and_puts(dev):
    for key in KEYS[:60]:
        x = bp.tensor(BASE, device=dev).requires_grad_()
        picked = x[_as_bp(key, dev)]
        weights = np.arange(picked.size, dtype=np.float64).reshape(picked.shape) + 1
        (picked * bp.tensor(weights, device=dev)).sum().backward()
        expected = np.zeros(SHAPE)
        np.add.at(expected, key, weights)
        assert np.array_equal(x.grad.numpy(), expected), key
        # torch.index_put's gradient: a's is zero where values went; values'
        # is the output's gradient there.
        a = bp.tensor(BASE, device=dev).requires_grad_()
        v = bp.tensor(np.ones(picked.shape), device=dev).requires_grad_()
        out = _C.index_put(a, list(_as_bp(key, dev)), v, False)
        w = np.arange(BASE.size, dtype=np.float64).reshape(SHAPE)
        (out * bp.tensor(w, device=dev)).sum().backward()
        kept = np.ones(SHAPE)
        kept[key] = 0
        assert np.array_equal(a.grad.numpy(), w * kept), key
        assert np.array_equal(v.grad.numpy(), w[key]), key


def test_malformed_keys_raise_the_index_error(dev):
    x = bp.tensor(BASE, device=dev)
    with pytest.raises(IndexError, match="axis 1 with size 3"):
        x[0, 3]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., 0, ...]
    with pytest.raises(ValueError, match="step"):
        x[::0]
    with pytest.raises(IndexError, match="0-d boolean"):
        x[bp.tensor(True, device=dev)]
    with pytest.raises(bp.StateError):
        x.requires_grad_()[0] = 1.0
