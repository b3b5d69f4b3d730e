"""PyTorch's elementwise and small linear-algebra functions: the unary
operators of 1.5 (erf, expm1, log1p, rsqrt, floor, ceil, round, sign) and
1.6 (isnan, isinf), each one kernel, and what the operators compose:
logical_and/or/xor/not, isfinite, count_nonzero, lerp, addmm,
exp2, log2, log10, tan, std_mean, var_mean, empty_like, randint_like. They
run on every device; the float ones pass gradients back and agree with
PyTorch's to a few roundings of the dtype (log2(x) is log(x) / log(2), not a
separate kernel)."""
import math

from . import _composite
from ._dtype import as_dtype, bool_, int64
from ._tensor import Tensor, _unary_fn, empty, log, matmul
from ._torch_api import randint

erf = _unary_fn("erf", "The error function 2/sqrt(pi) * integral of exp(-t**2) from 0 to x "
                "(integers give float64).")
expm1 = _unary_fn("expm1", "exp(x) - 1, exact for small x (integers give float64).")
log1p = _unary_fn("log1p", "log(1 + x), exact for small x (integers give float64).")
rsqrt = _unary_fn("rsqrt", "1 / sqrt(x), each step correctly rounded (integers give float64).")
floor = _unary_fn("floor", "The largest integral value <= x (integers unchanged).")
ceil = _unary_fn("ceil", "The smallest integral value >= x (integers unchanged).")
round = _unary_fn("round", "The nearest integral value, ties to even as NumPy's rint and "
                  "PyTorch's round (integers unchanged).")
sign = _unary_fn("sign", "1, -1 or 0 (+0 for -0 as in NumPy and PyTorch); NaN stays NaN.")
isnan = _unary_fn("isnan", "True where x is NaN (a bool tensor; integers are never NaN).")
isinf = _unary_fn("isinf", "True where x is +inf or -inf (a bool tensor; integers never are).")


def _truth(x):
    return x if x.dtype is bool_ else x != 0


def logical_and(x, other):
    return _truth(x) & _truth(other)


def logical_or(x, other):
    return _truth(x) | _truth(other)


def logical_xor(x, other):
    return _truth(x) ^ _truth(other)


def logical_not(x):
    return x == 0


def isfinite(x):
    """True where x is neither NaN nor infinite (every integer is)."""
    return ~(isnan(x) | isinf(x))


def count_nonzero(x, dim=None):
    """The number of nonzero elements (int64), over all or along dim (an
    int or a tuple)."""
    return (x != 0).sum(axis=dim)


def lerp(start, end, weight):
    """start + weight * (end - start)."""
    return start + weight * (end - start)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2); input is not read when beta is 0."""
    product = matmul(mat1, mat2)
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product
    return (input if beta == 1 else input * beta) + product


def exp2(x):
    return 2.0 ** x


def log2(x):
    return log(x) / math.log(2)


def log10(x):
    return log(x) / math.log(10)


def tan(x):
    return x.sin() / x.cos()


def std_mean(x, dim=None, unbiased=True, keepdim=False):
    """(std, mean), as PyTorch's std_mean (divided by n - 1 unless
    unbiased=False)."""
    return (_composite.std(x, dim=dim, unbiased=unbiased, keepdim=keepdim),
            x.mean(dim=dim, keepdim=keepdim))


def var_mean(x, dim=None, unbiased=True, keepdim=False):
    """(var, mean), as std_mean."""
    return (_composite.var(x, dim=dim, unbiased=unbiased, keepdim=keepdim),
            x.mean(dim=dim, keepdim=keepdim))


def empty_like(x, *, dtype=None, device=None, requires_grad=False):
    return empty(x.shape, dtype=dtype or x.dtype, device=device or x.device,
                 requires_grad=requires_grad)


def randint_like(x, low=0, high=None, *, dtype=None, device=None, generator=None):
    """randint(low, high, x.shape), or randint(0, low, ...) with one bound,
    in x's dtype (a float tensor gets whole numbers, as in PyTorch)."""
    if high is None:
        low, high = 0, low
    dt = as_dtype(dtype) or x.dtype
    drawn = randint(low, high, x.shape, dtype=dt if dt.kind in "iu" else int64,
                    device=device or x.device, generator=generator)
    return drawn.to(dt)


for _fn in (erf, expm1, log1p, rsqrt, floor, ceil, round, sign, logical_and, logical_or, logical_xor, logical_not, isnan, isinf, isfinite,
            count_nonzero, lerp, addmm, exp2, log2, log10, tan):
    setattr(Tensor, _fn.__name__, _fn)
del _fn

# Not round, which would shadow Python's builtin in `from backplane import *`
# (bp.round is there all the same).
__all__ = ["erf", "expm1", "log1p", "rsqrt", "floor", "ceil", "sign", "logical_and", "logical_or", "logical_xor", "logical_not", "isnan", "isinf",
           "isfinite", "count_nonzero", "lerp", "addmm", "exp2", "log2", "log10", "tan",
           "std_mean", "var_mean", "empty_like", "randint_like"]
