"""backplane.utils.data: datasets and a DataLoader shaped like
torch.utils.data, delivering batches as backplane tensors.

    loader = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True,
                        generator=bp.Generator().manual_seed(0), device=bp.try_gpu())
    for xb, yb in loader:   # on try_gpu(), whatever device X and y live on
        ...

Loading runs in the calling thread (num_workers and pin_memory are accepted
for PyTorch's code and change nothing). A TensorDataset's batch is taken
with one gather per tensor on the tensor's own device; other datasets are
read sample by sample and collated (default_collate). Shuffling draws a
permutation per epoch from the generator's seed sequence (else the one
bp.manual_seed restarts), so a seeded run repeats exactly; the orders are
Backplane's own, not PyTorch's."""
import itertools
import numbers
import operator

from .. import random
from .._composite import stack
from .._dtype import float64
from .._tensor import Tensor, tensor

__all__ = ["Dataset", "TensorDataset", "Subset", "random_split", "Sampler", "SequentialSampler",
           "RandomSampler", "BatchSampler", "DataLoader", "default_collate"]


class Dataset:
    """A map-style dataset: __getitem__(i) for i in range(len(self))."""

    def __getitem__(self, index):
        raise NotImplementedError("a Dataset subclass defines __getitem__")


class TensorDataset(Dataset):
    """Sample i is (t[i] for each tensor): the tensors share their first extent."""

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        n = tensors[0].shape[0]
        if any(t.shape[0] != n for t in tensors):
            raise ValueError("TensorDataset: the tensors' first extents differ: {}".format(
                [t.shape[0] for t in tensors]))
        self.tensors = tensors

    def __getitem__(self, index):
        """One sample (a tuple of views), or with a list of indices a tuple
        of batches (gathered on each tensor's device)."""
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of dataset at indices, in that order."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, [operator.index(i) for i in indices]

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Subsets of the given lengths (or fractions adding up to 1) of a
    shuffled dataset."""
    n = len(dataset)
    lengths = list(lengths)
    if lengths and all(isinstance(x, float) for x in lengths) and abs(sum(lengths) - 1) < 1e-9:
        counts = [int(n * x) for x in lengths]
        for i in range(n - sum(counts)):  # the remainder, one each, as PyTorch
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n:
        raise ValueError("random_split: the lengths {} do not add up to the dataset's {}".format(
            lengths, n))
    perm = random.host_permutation(n, generator).tolist()
    bounds = list(itertools.accumulate(lengths))
    return [Subset(dataset, perm[end - length:end]) for end, length in zip(bounds, lengths)]


class Sampler:
    """An iterable of dataset indices."""

    def __init__(self, data_source=None):
        self.data_source = data_source


class SequentialSampler(Sampler):
    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A new permutation of the indices at every iteration, drawn from
    generator's seed sequence (else the module's)."""

    def __init__(self, data_source, generator=None):
        super().__init__(data_source)
        self.generator = generator

    def __iter__(self):
        return iter(random.host_permutation(len(self.data_source), self.generator).tolist())

    def __len__(self):
        return len(self.data_source)


class BatchSampler(Sampler):
    """Lists of batch_size indices from sampler; the last one shorter unless
    drop_last."""

    def __init__(self, sampler, batch_size, drop_last):
        super().__init__()
        if not isinstance(batch_size, numbers.Integral) or batch_size <= 0:
            raise ValueError("batch_size must be a positive integer, not {!r}".format(batch_size))
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        it = iter(self.sampler)
        while True:
            batch = list(itertools.islice(it, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


def default_collate(batch):
    """One batch from a list of samples, as PyTorch's default_collate:
    tensors stacked (on their device), Python floats into a float64 tensor
    and ints into int64 (bools into bool), NumPy arrays stacked into a
    tensor, and tuples, lists and dicts field by field."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(batch)
    if type(elem).__module__ == "numpy":  # arrays and NumPy scalars keep their dtype
        import numpy
        return tensor(numpy.stack(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, (bool, numbers.Number)):
        return tensor(batch)
    if isinstance(elem, str):
        return list(batch)
    if isinstance(elem, dict):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple keeps its type
        return type(elem)(*(default_collate(list(field)) for field in zip(*batch)))
    if isinstance(elem, (tuple, list)):
        if any(len(sample) != len(elem) for sample in batch):
            raise ValueError("default_collate: the samples have different lengths")
        return [default_collate(list(field)) for field in zip(*batch)]
    raise TypeError("default_collate: cannot batch a {}; pass collate_fn=".format(
        type(elem).__name__))


def _to_device(data, device):
    if isinstance(data, Tensor):
        return data.to(device)
    if isinstance(data, dict):
        return {k: _to_device(v, device) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(_to_device(v, device) for v in data))
    if isinstance(data, (tuple, list)):
        return type(data)(_to_device(v, device) for v in data)
    return data


class DataLoader:
    """Batches of dataset: batch_size samples at a time, in order or
    shuffled (shuffle=True; generator= a bp.Generator for a seeded order),
    the last short batch dropped with drop_last=True, collated by collate_fn
    (default_collate) and, with device=, moved there (tensor.to(device):
    nothing is copied for data already on it).

    Also PyTorch's sampler= and batch_sampler=; num_workers, pin_memory,
    timeout, worker_init_fn and persistent_workers are accepted and ignored
    (loading runs in the calling thread)."""

    def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, generator=None, *, prefetch_factor=None,
                 persistent_workers=False, device=None):
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None or
                                          drop_last):
            raise ValueError("batch_sampler= excludes batch_size, shuffle, sampler and drop_last")
        if sampler is not None and shuffle:
            raise ValueError("sampler= excludes shuffle")
        if sampler is None:
            sampler = RandomSampler(dataset, generator) if shuffle else SequentialSampler(dataset)
        if batch_sampler is None and batch_size is not None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.collate_fn = collate_fn
        self.device = device
        self.num_workers, self.pin_memory = num_workers, pin_memory

    def _fetch(self, indices):
        if self.collate_fn is None and _is_tensor_dataset(self.dataset):
            return list(self.dataset[indices])  # one gather per tensor, on its device
        collate = self.collate_fn or default_collate
        return collate([self.dataset[i] for i in indices])

    def __iter__(self):
        # batch_size=None: the samples one by one, not collated
        batches = (self._fetch(indices) for indices in self.batch_sampler) \
            if self.batch_sampler is not None else (self.dataset[i] for i in self.sampler)
        for batch in batches:
            yield batch if self.device is None else _to_device(batch, self.device)

    def __len__(self):
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)


def _is_tensor_dataset(dataset):
    while isinstance(dataset, Subset):
        dataset = dataset.dataset
    return isinstance(dataset, TensorDataset)
