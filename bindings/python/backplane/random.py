"""Random tensors: bp.random.uniform, bp.random.normal, bp.random.seed.

The generator is counter-based (bp_random_*): the same seed gives the same
values on every backend and device. Without seed=, each call takes the next
seed of a module-wide sequence, which bp.random.seed(n) restarts (it starts
from 0 in every process, so runs are reproducible)."""
from . import _C
from ._device import resolve as _resolve
from ._dtype import as_dtype, float32
from ._tensor import _shape_arg

_MASK = (1 << 64) - 1
_counter = [0, 0]  # [base seed, calls made]


def seed(value):
    """Restarts the sequence of seeds used by calls without seed=."""
    _counter[0] = int(value) & _MASK
    _counter[1] = 0


def _next_seed():
    # splitmix64 of (base, counter): distinct, well-mixed seeds per call.
    _counter[1] += 1
    z = (_counter[0] + _counter[1] * 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def uniform(shape=(), low=0.0, high=1.0, *, dtype=None, device=None, seed=None):
    """Samples from [low, high): bp.random.uniform((2, 3), device=bp.try_gpu(1)).
    float32 by default; on device, else the current default device."""
    s = _next_seed() if seed is None else int(seed) & _MASK
    return _C.random_uniform(_resolve(device), (as_dtype(dtype) or float32).code,
                             _shape_arg((shape,)), float(low), float(high), s)


def normal(shape=(), mean=0.0, std=1.0, *, dtype=None, device=None, seed=None):
    """Samples from N(mean, std**2); float32 by default."""
    s = _next_seed() if seed is None else int(seed) & _MASK
    return _C.random_normal(_resolve(device), (as_dtype(dtype) or float32).code,
                            _shape_arg((shape,)), float(mean), float(std), s)


def rand(*shape, dtype=None, device=None, seed=None):
    """uniform(shape) in [0, 1), PyTorch style: bp.random.rand(2, 3)."""
    return uniform(_shape_arg(shape), dtype=dtype, device=device, seed=seed)


def randn(*shape, dtype=None, device=None, seed=None):
    """normal(shape), PyTorch style: bp.random.randn(2, 3)."""
    return normal(_shape_arg(shape), dtype=dtype, device=device, seed=seed)
