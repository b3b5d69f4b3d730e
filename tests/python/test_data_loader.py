"""backplane.utils.data: batching, seeded shuffling, collation and batches
delivered to a device."""
import collections

import numpy as np
import pytest

import backplane as bp
from backplane.utils.data import (DataLoader, Dataset, TensorDataset, default_collate,
                                  random_split)


def test_batches_arrive_on_the_device_asked_for(dev):
    X, y = bp.arange(20.0).reshape(10, 2), bp.arange(10)
    loader = DataLoader(TensorDataset(X, y), batch_size=4, device=dev)
    batches = list(loader)
    assert len(loader) == len(batches) == 3
    assert all(xb.device == dev and yb.device == dev for xb, yb in batches)
    assert [tuple(yb.shape) for _, yb in batches] == [(4,), (4,), (2,)]
    np.testing.assert_array_equal(batches[2][0].numpy(), [[16, 17], [18, 19]])


def test_drop_last(dev):
    ds = TensorDataset(bp.arange(10, device=dev))
    loader = DataLoader(ds, batch_size=3, drop_last=True)
    assert len(loader) == 3
    assert [b[0].numpy().tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]


def test_seeded_shuffling_repeats_and_covers_every_sample(dev):
    ds = TensorDataset(bp.arange(50, device=dev))

    def epochs(seed):
        loader = DataLoader(ds, batch_size=7, shuffle=True,
                            generator=bp.Generator().manual_seed(seed))
        return [np.concatenate([b[0].numpy() for b in loader]).tolist() for _ in range(2)]
    first = epochs(1)
    assert first == epochs(1)
    assert first[0] != first[1]  # a new order each epoch
    assert sorted(first[0]) == list(range(50)) and first[0] != list(range(50))
    assert epochs(2) != first
    bp.manual_seed(4)  # without a generator: the sequence manual_seed restarts
    a = [b[0].numpy().tolist() for b in DataLoader(ds, batch_size=50, shuffle=True)]
    bp.manual_seed(4)
    assert a == [b[0].numpy().tolist() for b in DataLoader(ds, batch_size=50, shuffle=True)]


class Pairs(Dataset):
    Sample = collections.namedtuple("Sample", "x label")

    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"pair": (bp.full((2,), float(i)), i), "weight": i / 4, "name": "s{}".format(i),
                "nt": self.Sample(np.float64(i), True)}


def test_default_collate_follows_pytorch(dev):
    batch = next(iter(DataLoader(Pairs(), batch_size=3, device=dev)))
    xs, labels = batch["pair"]
    assert xs.shape == (3, 2) and xs.device == dev
    assert labels.dtype == bp.int64 and labels.numpy().tolist() == [0, 1, 2]
    assert batch["weight"].dtype == bp.float64
    assert batch["name"] == ["s0", "s1", "s2"]
    assert isinstance(batch["nt"], Pairs.Sample) and batch["nt"].x.dtype == bp.float64
    assert batch["nt"].label.dtype == bp.bool
    with pytest.raises(TypeError, match="collate_fn"):
        default_collate([object(), object()])


def test_collate_fn_and_unbatched():
    ds = TensorDataset(bp.arange(4))
    loader = DataLoader(ds, batch_size=2, collate_fn=lambda samples: len(samples))
    assert list(loader) == [2, 2]
    assert [s[0].item() for s in DataLoader(ds, batch_size=None)] == [0, 1, 2, 3]


def test_random_split(dev):
    ds = TensorDataset(bp.arange(10, device=dev))
    a, b = random_split(ds, [7, 3], generator=bp.Generator().manual_seed(0))
    seen = [a[i][0].item() for i in range(len(a))] + [b[i][0].item() for i in range(len(b))]
    assert sorted(seen) == list(range(10)) and (len(a), len(b)) == (7, 3)
    # a Subset of a TensorDataset is still batched by one gather
    batch = next(iter(DataLoader(a, batch_size=7)))
    assert batch[0].numpy().tolist() == seen[:7]
    assert [len(s) for s in random_split(ds, [0.5, 0.5])] == [5, 5]
    with pytest.raises(ValueError, match="add up"):
        random_split(ds, [3, 3])


def test_bad_arguments_are_refused():
    ds = TensorDataset(bp.arange(4))
    with pytest.raises(ValueError, match="batch_size"):
        DataLoader(ds, batch_size=0)
    with pytest.raises(ValueError, match="excludes shuffle"):
        DataLoader(ds, sampler=[0, 1], shuffle=True)
    with pytest.raises(ValueError, match="first extents"):
        TensorDataset(bp.arange(4), bp.arange(3))
