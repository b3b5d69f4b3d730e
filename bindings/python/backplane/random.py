"""Random tensors: bp.random.uniform, normal, rand, randn, randint, seed.

The generator is counter-based (bp_random_*): the same seed gives the same
values on every backend and device. Without seed=, each call takes the next
seed of a module-wide sequence, which bp.random.seed(n) (also bp.manual_seed)
restarts; it starts from 0 in every process, so runs are reproducible. With
generator=g (a bp.random.Generator, also bp.Generator) it takes the next
seed of g's own sequence instead.

Spellings: NumPy's and MXNet's parameter order, uniform(low, high, size) and
normal(loc, scale, size) (PyTorch's normal(mean, std, size) is the same
order), with size= or shape=; a shape given first, uniform((2, 3)) or
normal((2, 3), mean, std), is the shape (this package's own spelling).
Keyword synonyms: loc/mean, scale/std."""
import operator

from . import _C
from ._device import resolve as _resolve
from ._dtype import as_dtype, float32, int64
from ._tensor import _leaf, _shape_arg

_MASK = (1 << 64) - 1


class Generator:
    """A sequence of seeds of its own (torch.Generator): a draw given
    generator=g takes its seed from g, not from the module-wide sequence
    that seed() (bp.manual_seed) restarts. g.manual_seed(n) restarts g and
    returns it: DataLoader(..., generator=bp.Generator().manual_seed(0))."""

    def __init__(self, device=None):
        self.device = device  # accepted for torch.Generator(device=...): the seeds fit any device
        self._base, self._calls = 0, 0

    def manual_seed(self, seed):
        self._base, self._calls = int(seed) & _MASK, 0
        return self

    def initial_seed(self):
        return self._base

    def next_seed(self):
        # splitmix64 of (base, counter): distinct, well-mixed seeds per call.
        self._calls += 1
        z = (self._base + self._calls * 0x9E3779B97F4A7C15) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)


default_generator = Generator()


def seed(value):
    """Restarts the sequence of seeds used by calls without seed= or generator=."""
    default_generator.manual_seed(value)


def next_seed(generator=None):
    """The seed of the next draw: from generator, else the module's sequence."""
    return (default_generator if generator is None else generator).next_seed()


def host_permutation(n, generator=None):
    """A random permutation of range(n) as a NumPy int64 array, drawn on the
    host (the C API has no sort) with the next seed of generator, else of
    the module's sequence: reproducible as every other draw."""
    import numpy
    return numpy.random.default_rng(next_seed(generator)).permutation(operator.index(n))


def _seed_of(seed, generator=None):
    return next_seed(generator) if seed is None else int(seed) & _MASK


def _parameters(fn, args, kwargs, names, defaults, synonyms):
    """(shape, p1, p2) from the two spellings: a shape first, then the two
    parameters; or NumPy's (p1, p2, size). kwargs may name the parameters by
    names or their synonyms, and the shape by size= or shape=."""
    for synonym, name in synonyms.items():
        if synonym in kwargs:
            if name in kwargs:
                raise TypeError("{}() got both {}= and {}=".format(fn, name, synonym))
            kwargs[name] = kwargs.pop(synonym)
    shape_first = bool(args) and isinstance(args[0], (tuple, list))
    order = ("shape",) + names if shape_first else names + ("shape",)
    if len(args) > 3:
        raise TypeError("{}() takes at most 3 positional arguments ({} given)".format(fn, len(args)))
    values = dict(zip(order, args))
    if "size" in kwargs:
        kwargs["shape"] = kwargs.pop("size")
    for key, value in kwargs.items():
        if key not in order:
            raise TypeError("{}() got an unexpected keyword argument '{}'".format(fn, key))
        if key in values:
            raise TypeError("{}() got multiple values for argument '{}'".format(fn, key))
        values[key] = value
    shape = values.get("shape")
    shape = () if shape is None else _shape_arg((shape,))
    return shape, values.get(names[0], defaults[0]), values.get(names[1], defaults[1])


def uniform(*args, dtype=None, device=None, seed=None, generator=None, requires_grad=False,
            **kwargs):
    """Samples from [low, high), float32 unless dtype says otherwise, on device
    (else the current default device):

        bp.random.uniform(size=(2, 3), device=bp.try_gpu(1))   # NumPy / MXNet
        bp.random.uniform(-1, 1, (2, 3))                       # low, high, size
        bp.random.uniform((2, 3), device=bp.try_gpu(1))        # shape first
    """
    shape, low, high = _parameters("uniform", args, kwargs, ("low", "high"), (0.0, 1.0), {})
    return _leaf(_C.random_uniform(_resolve(device), (as_dtype(dtype) or float32).code, shape,
                                   float(low), float(high), _seed_of(seed, generator)),
                 requires_grad)


def normal(*args, dtype=None, device=None, seed=None, generator=None, requires_grad=False,
           **kwargs):
    """Samples from N(loc, scale**2), float32 unless dtype says otherwise:

        bp.random.normal(0, 1, size=(3, 4))          # NumPy / MXNet: loc, scale, size
        bp.random.normal(mean=2, std=3, size=(3,))   # PyTorch's names
        bp.random.normal((3, 4), 0, 0.01)            # shape first
    """
    shape, loc, scale = _parameters("normal", args, kwargs, ("loc", "scale"), (0.0, 1.0),
                                    {"mean": "loc", "std": "scale"})
    return _leaf(_C.random_normal(_resolve(device), (as_dtype(dtype) or float32).code, shape,
                                  float(loc), float(scale), _seed_of(seed, generator)),
                 requires_grad)


def rand(*shape, dtype=None, device=None, seed=None, generator=None, requires_grad=False):
    """uniform in [0, 1), PyTorch style: bp.rand(2, 3), bp.random.rand((2, 3))."""
    return uniform(size=_shape_arg(shape), dtype=dtype, device=device, seed=seed,
                   generator=generator, requires_grad=requires_grad)


def randn(*shape, dtype=None, device=None, seed=None, generator=None, requires_grad=False):
    """normal(0, 1), PyTorch style: bp.randn(2, 3), bp.random.randn((2, 3))."""
    return normal(size=_shape_arg(shape), dtype=dtype, device=device, seed=seed,
                  generator=generator, requires_grad=requires_grad)


def randint(low, high=None, size=None, *, dtype=None, device=None, seed=None, generator=None):
    """Integers drawn uniformly from [low, high) (from [0, low) when high is
    None), int64 unless dtype says otherwise: NumPy's randint(low, high, size).
    bp_random_integers: made from the float64 uniform stream, so every
    backend draws the same."""
    if high is None:
        low, high = 0, low
    shape = () if size is None else _shape_arg((size,))
    return _C.random_integers(_resolve(device), (as_dtype(dtype) or int64).code, shape,
                              operator.index(low), operator.index(high),
                              _seed_of(seed, generator))
