"""einsum, as PyTorch's, for one or two operands: made of sum, permute,
reshape and one matmul, so it runs and differentiates on every device
(what it does not take is in bindings/python/README.md)."""
import math

from ._errors import ShapeError
from ._tensor import matmul


def _einsum_spec(equation, count):
    """(input subscripts, output subscripts) of an einsum equation; the
    output is implicit (letters seen once, sorted) without '->'."""
    eq = equation.replace(" ", "")
    if "." in eq:
        raise NotImplementedError("einsum: '...' (ellipsis) is not supported")
    lhs, arrow, out = eq.partition("->")
    ins = lhs.split(",")
    if len(ins) != count:
        raise ValueError("einsum: {!r} names {} operands, {} given".format(
            equation, len(ins), count))
    if not arrow:
        letters = "".join(ins)
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    for s in ins + [out]:
        if s and not s.isalpha():
            raise ValueError("einsum: subscripts are letters, not {!r}".format(s))
        if len(set(s)) != len(s):
            raise NotImplementedError("einsum: a repeated subscript in one operand ({!r}: "
                                      "diagonals) is not supported".format(s))
    if set(out) - set("".join(ins)):
        raise ValueError("einsum: output subscripts {!r} not in the inputs".format(out))
    return ins, out


def _sum_letters(x, letters, keep):
    """x (subscripts letters) summed over the letters not in keep."""
    gone = [i for i, c in enumerate(letters) if c not in keep]
    if gone:
        x = x.sum(axis=tuple(gone))
    return x, "".join(c for c in letters if c in keep)


def einsum(equation, *operands):
    """Einstein summation over one or two operands, as PyTorch's einsum:
    "ij->ji", "ij->j", "ij,jk->ik", "bij,bjk->bik", "i,i->", "i,j->ij",
    "bhqd,bhkd->bhqk" ... Subscripts are letters; each appears at most once
    per operand (no diagonals such as "ii") and there is no '...'."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if len(operands) not in (1, 2):
        raise NotImplementedError("einsum: one or two operands, not {}".format(len(operands)))
    ins, out = _einsum_spec(equation, len(operands))
    for s, x in zip(ins, operands):
        if len(s) != x.ndim:
            raise ShapeError("einsum: {!r} has {} subscripts for a {}-D operand".format(
                s, len(s), x.ndim), op="einsum")
    if len(operands) == 1:
        x, letters = _sum_letters(operands[0], ins[0], out)
        return x.permute(*(letters.index(c) for c in out)) if letters != out else x
    (a, sa), (b, sb) = zip(operands, ins)
    # Letters only one side has and the output lacks are summed first.
    a, sa = _sum_letters(a, sa, out + sb)
    b, sb = _sum_letters(b, sb, out + sa)
    batch = [c for c in sa if c in sb and c in out]
    contract = [c for c in sa if c in sb and c not in out]
    left = [c for c in sa if c not in sb]
    right = [c for c in sb if c not in sa]
    extent = dict(zip(sa, a.shape))
    extent.update(zip(sb, b.shape))
    for c in set(sa) & set(sb):
        if a.shape[sa.index(c)] != b.shape[sb.index(c)]:
            raise ShapeError("einsum: subscript {!r} has extents {} and {}".format(
                c, a.shape[sa.index(c)], b.shape[sb.index(c)]), op="einsum")
    nb, nm, nk, nn = (math.prod(extent[c] for c in group)
                      for group in (batch, left, contract, right))
    a3 = a.permute(*(sa.index(c) for c in batch + left + contract)).reshape(nb, nm, nk)
    b3 = b.permute(*(sb.index(c) for c in batch + contract + right)).reshape(nb, nk, nn)
    letters = batch + left + right
    r = matmul(a3, b3).reshape(*(extent[c] for c in letters))
    order = [letters.index(c) for c in out]
    return r.permute(*order) if order != sorted(order) else r
