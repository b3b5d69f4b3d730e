"""Element types: bp.float32, bp.float64, bp.int32, bp.int64, bp.bool_."""
import sys


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


float32 = DType("float32", 1, 4, "f")
float64 = DType("float64", 2, 8, "f")
int32 = DType("int32", 3, 4, "i")
int64 = DType("int64", 4, 8, "i")
bool_ = DType("bool", 5, 1, "b")

BY_CODE = (None, float32, float64, int32, int64, bool_)
_BY_NAME = {d.name: d for d in BY_CODE[1:]}
_BY_NAME.update({"bool_": bool_, "float": float64, "double": float64, "int": int64,
                 "long": int64, "f4": float32, "f8": float64, "i4": int32, "i8": int64})
_BY_TYPE = {float: float64, int: int64, bool: bool_}


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
    raise DtypeError("unsupported dtype {!r}: backplane has float32, float64, int32, int64 "
                     "and bool".format(x), status="BP_ERR_DTYPE", code=7)
