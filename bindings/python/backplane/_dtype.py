"""Element types: bp.float32, bp.float64, bp.int32, bp.int64, bp.bool_, one
DType per entry of BP_DTYPE_LIST (backplane/vocabulary.h, exported as
_C.dtypes). Each is a module attribute named as the dtype, with "_" appended
where the name is a Python builtin (bool_)."""
import builtins
import sys

from . import _C


class DType:
    """One Backplane element type. Compares equal to itself, to its name
    ("float32") and to the NumPy dtype of the same name."""

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
    def numpy(self):
        """The NumPy dtype of the same name."""
        import numpy
        return numpy.dtype(self.name)


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
    # "float32", "bool_" and NumPy's "f4", "b1"
    _BY_NAME[_d.name] = _BY_NAME[_attribute(_d)] = _BY_NAME[_d.kind + str(_d.itemsize)] = _d
del _d
BY_CODE = tuple(BY_CODE)
# What Python's own types and C's names mean.
_BY_TYPE = {float: _BY_NAME["float64"], int: _BY_NAME["int64"], bool: _BY_NAME["bool"]}
_BY_NAME.update({"float": _BY_TYPE[float], "double": _BY_TYPE[float], "int": _BY_TYPE[int],
                 "long": _BY_TYPE[int]})
_NAMES = ", ".join(d.name for d in ALL[:-1]) + " and " + ALL[-1].name  # for messages


def as_dtype(x):
    """A DType from a DType, a name, float/int/bool, or a NumPy dtype or type;
    None stays None. Anything else raises bp.DtypeError."""
    if x is None or isinstance(x, DType):
        return x
    if isinstance(x, str):
        d = _BY_NAME.get(x)
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
