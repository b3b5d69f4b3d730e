"""Element types: bp.float32, bp.float64, bp.int32, bp.int64, bp.bool_,
bp.float16, bp.bfloat16, bp.int8, bp.uint8, bp.int16: one DType per entry of
BP_DTYPE_LIST (backplane/vocabulary.h, exported as _C.dtypes). Each is a
module attribute named as the dtype, with "_" appended where the name is a
Python builtin (bool_)."""
import builtins
import sys

from . import _C


# Dtypes NumPy has no dtype for (ml_dtypes adds a bfloat16, but is no
# dependency): their data reaches NumPy widened (Tensor.float()) or goes
# through DLPack.
_NOT_IN_NUMPY = frozenset({"bfloat16"})


class DType:
    """One Backplane element type. Compares equal to itself, to its name
    ("float32"), to the NumPy dtype of the same name and to the PyTorch dtype
    of the same name (torch.bfloat16)."""

    __slots__ = ("name", "code", "itemsize", "kind")

    def __init__(self, name, code, itemsize, kind):
        self.name = name
        self.code = code          # bp_dtype value
        self.itemsize = itemsize  # bytes per element
        self.kind = kind          # NumPy kind: "f", "i", "b"

    def __repr__(self):
        return "backplane." + self.name

    def __str__(self):
        return self.name

    def __eq__(self, other):
        if isinstance(other, DType):
            return self is other
        if isinstance(other, str):
            return other == self.name
        if _torch_dtype_name(other) is not None:
            return _torch_dtype_name(other) == self.name
        np = sys.modules.get("numpy")
        if np is not None:
            try:
                return np.dtype(other).name == self.name
            except Exception:
                pass
        return NotImplemented

    def __hash__(self):
        return hash(self.name)

    def __reduce__(self):
        return (as_dtype, (self.name,))

    @property
    def is_floating_point(self):
        return self.kind == "f"

    @property
    def has_numpy(self):
        """Whether NumPy has a dtype of this name (not bfloat16)."""
        return self.name not in _NOT_IN_NUMPY

    @property
    def numpy(self):
        """The NumPy dtype of the same name; TypeError for bfloat16."""
        if not self.has_numpy:
            raise TypeError("NumPy has no {0} dtype: read a {0} tensor through DLPack "
                            "(torch.utils.dlpack.from_dlpack(t)) or widen it first "
                            "(t.float().numpy()); tolist() and item() give its values "
                            "as Python floats".format(self.name))
        import numpy
        return numpy.dtype(self.name)


def _torch_dtype_name(x):
    """"bfloat16" for torch.bfloat16 (any torch.dtype: its name), else None.
    torch is never imported here: only a dtype object of a loaded torch counts."""
    if type(x).__module__ == "torch" and type(x).__name__ == "dtype":
        return str(x)[len("torch."):]
    return None


# NumPy's kind letter for each bp_dtype_kind.
_NUMPY_KIND = {_C.DTYPE_KIND_BOOL: "b", _C.DTYPE_KIND_SIGNED_INT: "i",
               _C.DTYPE_KIND_UNSIGNED_INT: "u", _C.DTYPE_KIND_FLOAT: "f"}

ALL = tuple(DType(name, code, size, _NUMPY_KIND.get(kind, "V"))
            for code, name, size, kind in _C.dtypes)


def _attribute(d):
    return d.name + "_" if hasattr(builtins, d.name) else d.name


__all__ = ["DType", "as_dtype"] + [_attribute(d) for d in ALL]
globals().update((_attribute(d), d) for d in ALL)

BY_CODE = [None] * (max(d.code for d in ALL) + 1)  # indexed by bp_dtype value
_BY_NAME = {}
for _d in ALL:
    BY_CODE[_d.code] = _d
    # "float32", "bool_" and NumPy's "f4", "b1" ("f2" is float16, not bfloat16)
    _BY_NAME[_d.name] = _BY_NAME[_attribute(_d)] = _d
    if _d.has_numpy:
        _BY_NAME[_d.kind + str(_d.itemsize)] = _d
del _d
BY_CODE = tuple(BY_CODE)
# What Python's own types and C's names mean.
_BY_TYPE = {float: _BY_NAME["float64"], int: _BY_NAME["int64"], bool: _BY_NAME["bool"]}
_BY_NAME.update({"float": _BY_TYPE[float], "double": _BY_TYPE[float], "int": _BY_TYPE[int],
                 "long": _BY_TYPE[int], "half": _BY_NAME["float16"]})
_NAMES = ", ".join(d.name for d in ALL[:-1]) + " and " + ALL[-1].name  # for messages


def as_dtype(x):
    """A DType from a DType, a name, float/int/bool, a NumPy dtype or type, or
    a PyTorch dtype; None stays None. Anything else raises bp.DtypeError."""
    if x is None or isinstance(x, DType):
        return x
    if isinstance(x, str):
        d = _BY_NAME.get(x)
    elif _torch_dtype_name(x) is not None:
        d = _BY_NAME.get(_torch_dtype_name(x))
    elif isinstance(x, type) and x in _BY_TYPE:
        d = _BY_TYPE[x]
    else:
        d = None
        np = sys.modules.get("numpy")
        if np is not None:
            try:
                d = _BY_NAME.get(np.dtype(x).name)
            except Exception:
                pass
    if d is not None:
        return d
    from ._errors import DtypeError
    raise DtypeError("unsupported dtype {!r}: backplane has {}".format(x, _NAMES))
