"""The Tensor class and the functions that make and combine tensors.

Operators (+ - * / ** @, comparisons, unary -, abs) and the float functions
(exp, log, sqrt, tanh, sigmoid, relu) are implemented in C (backplane._C);
everything here is plain Python over the thin _C functions."""
import builtins as _builtins
import collections
import numbers
import operator
import sys

from . import _C, _indexing
from ._device import _BY_ID, Device, device as _as_device, device_of, resolve as _resolve
from ._dtype import (ALL as _DTYPES, BY_CODE, DType, as_dtype, bfloat16, bool_, float16, float32,
                     float64, int8, int16, int32, int64, uint8)
from ._errors import DtypeError, UnknownDeviceError, UnsupportedError
from ._inplace import InPlace

OP = {name: value for value, name, _family in _C.ops}  # bp_op values by name ("add": 1)
AXIS_ALL = _C.AXIS_ALL

# DLPack device types
_DL_CPU, _DL_CUDA, _DL_OPENCL, _DL_EXT = 1, 2, 4, 12

_np = None


def _numpy():
    global _np
    if _np is None:
        import numpy
        _np = numpy
    return _np


def _shape_arg(shape):
    """(2, 3), [2, 3], 6, or the varargs tuple ((2, 3),) / (2, 3) -> tuple of ints."""
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = shape[0]
    if isinstance(shape, int):
        return (shape,)
    return tuple(operator.index(s) for s in shape)


def _to_dtype_method(name, dtype):
    def method(self):
        return self.to(dtype)
    method.__name__ = name
    method.__doc__ = "to(bp.{}).".format(dtype.name)
    return method


class Tensor(InPlace, _C.TensorBase):
    """An n-dimensional array on one device (a reference to a bp_tensor).

    Operators run on the device that holds the inputs and give a tensor there;
    inputs on different devices raise bp.DeviceMismatchError (no silent copy).
    Moving is explicit: t.copyto(dev) always copies, t.to(dev) returns t itself
    when it already lives on dev. Reading the data (numpy(), repr, item) waits
    for pending work and copies it to host memory. In-place operations
    (a += b, add_, copy_, ...) come from InPlace (backplane/_inplace.py)."""

    __slots__ = ()

    # ---- metadata -----------------------------------------------------------

    @property
    def device(self):
        """The Device that holds the data."""
        i = self._device_id
        d = _BY_ID.get(i)
        return d if d is not None else device_of(i)

    ctx = context = device  # MXNet spellings

    @property
    def dtype(self):
        """Element type (bp.float32, ...)."""
        return BY_CODE[self._dtype_code]

    @property
    def itemsize(self):
        return BY_CODE[self._dtype_code].itemsize

    @property
    def nbytes(self):
        return self.numel() * BY_CODE[self._dtype_code].itemsize

    @property
    def size(self):
        """The number of elements (NumPy); called, the shape (PyTorch): t.size()
        is t.shape and t.size(d) is t.shape[d]."""
        return _Size(_C.TensorBase.size.__get__(self), self)

    def numel(self):
        """The number of elements (PyTorch)."""
        return _C.TensorBase.size.__get__(self)

    def dim(self):
        """The number of axes (PyTorch; .ndim)."""
        return self.ndim

    def stride(self, dim=None):
        """Element strides (PyTorch): the tuple, or the stride of axis dim."""
        strides = self.strides
        return strides if dim is None else strides[_axis(dim, len(strides))]

    @property
    def T(self):
        """All axes reversed (a view)."""
        return _C.transpose(self)

    def __len__(self):
        shape = self.shape
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return shape[0]

    def __iter__(self):
        n = len(self)
        for i in range(n):
            yield _C.select(self, 0, i)

    # ---- moving between devices -----------------------------------------------

    def copyto(self, other):
        """A new tensor on device `other` (always a copy, even on the same device);
        or, when `other` is a tensor, copies into it and returns it (MXNet)."""
        if isinstance(other, Tensor):
            src = self if self._device_id == other._device_id else _C.copy_to(self, other._device_id)
            _C.assign(other, src)
            return other
        return _C.copy_to(self, _resolve_device(other))

    copy_to = copyto

    def to(self, *args, device=None, dtype=None):
        """This tensor on a device and/or in a dtype, as PyTorch's .to:
        t.to(dev), t.to(bp.float64), t.to("float64"), t.to("opencl:0",
        "float64"), t.to(other) (other's device and dtype), or by keyword.
        Returns self (the same object) when nothing changes, else a new
        tensor: a copy on the other device (MXNet .as_in_ctx), converted."""
        guessed = None  # a positional string taken for a device: it may be a misspelt dtype
        for a in args:
            if isinstance(a, Tensor):
                device, dtype = _set_once("device", device, a.device), _set_once("dtype", dtype, a.dtype)
            elif _is_dtype_spec(a):
                dtype = _set_once("dtype", dtype, a)
            else:
                device = _set_once("device", device, a)
                guessed = a if isinstance(a, str) else None
        t = self
        if device is not None:
            try:
                dev = _resolve_device(device)
            except UnknownDeviceError as e:
                if guessed is None:
                    raise
                raise UnknownDeviceError("{}; nor is '{}' a dtype ({})".format(
                    e.message, guessed, ", ".join(d.name for d in _DTYPES)), op="to") from None
            if dev != self._device_id:
                t = _C.to(self, dev)
        if dtype is not None:
            dt = as_dtype(dtype)
            if dt.code != t._dtype_code:
                t = _C.cast(t, dt.code)
        return t

    def as_in_ctx(self, device):
        """Same as to(device): self when already there, else a copy."""
        return self.to(device)

    as_in_context = as_in_ctx

    def cpu(self):
        """to(bp.cpu())."""
        return self.to(device_of(_C.cpu()))

    def gpu(self, i=0):
        """to(bp.gpu(i)): the i-th accelerator, whatever its backend (raises
        bp.UnknownDeviceError when there is none)."""
        return self.to(device_of(_C.gpu(operator.index(i))))

    def cuda(self, device=None):
        """to("cuda:<i>") (PyTorch): device is an index or a name; raises
        bp.UnknownDeviceError without the CUDA backend. .gpu(i) takes any
        accelerator."""
        if device is None or isinstance(device, int):
            device = "cuda:{}".format(device or 0)
        return self.to(device)

    # PyTorch's conversions: .float() is .to(bp.float32), and so on.
    float = _to_dtype_method("float", float32)
    double = _to_dtype_method("double", float64)
    half = _to_dtype_method("half", float16)
    bfloat16 = _to_dtype_method("bfloat16", bfloat16)
    int = _to_dtype_method("int", int32)
    long = _to_dtype_method("long", int64)
    short = _to_dtype_method("short", int16)
    char = _to_dtype_method("char", int8)
    byte = _to_dtype_method("byte", uint8)
    bool = _to_dtype_method("bool", bool_)

    # ---- host data -----------------------------------------------------------

    def numpy(self):
        """A NumPy array holding a copy of the data (waits for pending work).
        A bfloat16 tensor raises TypeError: NumPy has no such dtype."""
        dt = BY_CODE[self._dtype_code]
        if not dt.has_numpy:
            dt.numpy  # noqa: B018  (raises the TypeError that says what to do instead)
        return self._host()

    asnumpy = numpy

    def _host(self):
        """A NumPy copy of the data holding every value exactly: in the
        tensor's dtype, or widened to float32 for bfloat16."""
        np = _numpy()
        dt = BY_CODE[self._dtype_code]
        if dt is bfloat16:
            bits = np.empty(self.shape, dtype=np.uint16)
            _C.to_buffer(self, bits)
            # A bfloat16 is the upper half of a float32: widening is a shift
            # (in place: a 0-d array would become a NumPy scalar otherwise).
            wide = bits.astype(np.uint32)
            wide <<= np.uint32(16)
            return wide.view(np.float32)
        out = np.empty(self.shape, dtype=np.bool_ if dt is bool_ else dt.name)
        _C.to_buffer(self, out)
        return out

    def __array__(self, dtype=None, copy=None):
        if copy is False:
            raise ValueError("np.asarray(t, copy=False): a backplane tensor always becomes a NumPy "
                             "array by a copy (t.numpy()); np.from_dlpack(t) shares the memory of "
                             "a tensor in host memory (cpu, reference)")
        if dtype is not None:  # asked for a NumPy dtype: a bfloat16 tensor converts too
            return self._host().astype(dtype, copy=False)
        return self.numpy()  # always a fresh host copy

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """NumPy ufuncs on tensors run here, on the tensors' device, and give a
        tensor: np.exp(t) is bp.exp(t). An ndarray operand is refused: its data
        would have to move to the device silently."""
        return _numpy_ufunc(ufunc, method, inputs, kwargs)

    def __copy__(self):
        return _C.copy_to(self, self._device_id)

    def __deepcopy__(self, memo):
        return _C.copy_to(self, self._device_id)

    def __reduce__(self):
        # pickled as host data plus the device name (ids are per process)
        return (_rebuild, (self._host(), self.device.name, self.dtype.name))

    def item(self):
        """The only element as a Python number."""
        n = self.numel()
        if n != 1:
            raise ValueError("item(): the tensor has {} elements, not 1".format(n))
        return self._host().reshape(()).item()

    asscalar = item

    def tolist(self):
        """Nested lists of Python numbers (float16 and bfloat16 give floats)."""
        return self._host().tolist()

    def __bool__(self):
        n = self.numel()
        if n != 1:
            raise ValueError("the truth value of a tensor with {} elements is ambiguous; "
                             "use .any() or .all()".format(n))
        return bool(self.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if BY_CODE[self._dtype_code].kind not in "ib":
            raise TypeError("only integer tensors can be used as an index")
        return operator.index(self.item())

    def __repr__(self):
        np = _numpy()
        a = self._host()
        prefix = "tensor("
        body = np.array2string(a, separator=", ", prefix=prefix, threshold=1000)
        parts = [body]
        if a.size == 0 and a.ndim != 1:
            parts.append("size={}".format(tuple(a.shape)))
        parts.append("device='{}'".format(self.device))
        dt = BY_CODE[self._dtype_code]
        if dt not in (float32, int64, bool_):
            parts.append("dtype={}".format(dt.name))
        grad_fn = _C.grad_fn(self)
        if grad_fn is not None:
            parts.append("grad_fn=<{}>".format(grad_fn))
        elif _C.requires_grad(self):
            parts.append("requires_grad=True")
        return prefix + ", ".join(parts) + ")"

    __str__ = __repr__

    def __format__(self, spec):
        if spec and self.numel() == 1:
            return format(self.item(), spec)
        return format(str(self), spec)

    def __dlpack__(self, stream=None, **kwargs):
        """DLPack capsule sharing this tensor's memory (cpu and reference
        devices); the capsule holds a reference until its consumer lets go."""
        try:
            return _C.TensorBase.__dlpack__(self, stream, **kwargs)
        except UnsupportedError as e:
            raise BufferError("__dlpack__: the tensor on {} is not in host memory; copy it "
                              "with t.to(bp.cpu()) first ({})".format(self.device, e)) from None

    def __dlpack_device__(self):
        try:
            _C.host_address(self)
            return (_DL_CPU, 0)
        except UnsupportedError:
            dev = self.device
            return ({"cuda": _DL_CUDA, "opencl": _DL_OPENCL}.get(dev.type, _DL_EXT), dev.index)

    def wait_to_read(self):  # MXNet spelling of wait()
        return self.wait()

    block_until_ready = wait_to_read  # JAX spelling

    # ---- indexing -------------------------------------------------------------

    def __getitem__(self, key):
        """NumPy indexing: integers, slices and None give views; boolean masks
        and integer tensors (lists, NumPy arrays) give new tensors; a slice
        with a negative step gives a copy (bindings/python/README.md)."""
        return _indexing.getitem(self, key)

    def __setitem__(self, key, value):
        """Writes value (a tensor on this device, a number, or host data),
        broadcast and converted, into the elements key names."""
        _indexing.setitem(self, key, value)

    # ---- shape ----------------------------------------------------------------

    def reshape(self, *shape):
        """Same elements in a new shape (one extent may be -1): a view when the
        strides allow, else a copy on the same device."""
        return _C.reshape(self, _shape_arg(shape))

    def transpose(self, *axes):
        """A view with all axes reversed (no argument, NumPy), two axes
        swapped (two arguments, PyTorch's transpose(dim0, dim1): on a 2-D
        tensor, (0, 1) swaps too), or the axes permuted as given (NumPy)."""
        if not axes:
            return _C.transpose(self)
        if len(axes) == 2 and _builtins.all(isinstance(a, numbers.Integral) for a in axes):
            order = list(range(self.ndim))
            i, j = (_axis(a, self.ndim) for a in axes)
            order[i], order[j] = order[j], order[i]
            return _C.permute(self, tuple(order))
        return _C.permute(self, _shape_arg(axes))

    def permute(self, *axes):
        """A view with axis i taken from axes[i] (all axes, in any order)."""
        return _C.permute(self, _shape_arg(axes))

    def contiguous(self):
        """self when dense in C order, else a dense copy on the same device."""
        return _C.contiguous(self)

    def astype(self, dtype):
        """A new tensor with the elements converted to dtype (always a copy)."""
        return _C.cast(self, as_dtype(dtype).code)

    def copy(self):
        """A new tensor with the same elements on the same device."""
        return _C.copy_to(self, self._device_id)

    clone = copy  # PyTorch

    def detach(self):
        """A new tensor sharing this one's storage that requires no gradient
        and records nothing (PyTorch): writes through either show in both."""
        return _C.detach(self)

    # ---- autograd (backplane/autograd.h) ----------------------------------------

    @property
    def requires_grad(self):
        """True for a leaf marked to receive gradients and for every result
        recorded from one."""
        return _C.requires_grad(self)

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        """Marks (or unmarks) this leaf as requiring gradients; returns self.
        Only float tensors. A recorded result already requires them: asking
        again is allowed, unmarking it is bp.StateError (use detach())."""
        if requires_grad and not _C.is_leaf(self):
            return self
        _C.set_requires_grad(self, requires_grad)
        return self

    @property
    def is_leaf(self):
        """True unless a recorded operator made this tensor."""
        return _C.is_leaf(self)

    @property
    def grad(self):
        """The gradient backward() accumulated into this leaf (a tensor sharing
        its storage, so later passes add into it), or None."""
        return _C.grad(self)

    @grad.setter
    def grad(self, value):
        # The C API can forget a gradient but not install one.
        if value is not None:
            raise TypeError("only `t.grad = None` is supported (the next backward pass starts a "
                            "new gradient); to change a gradient, write into t.grad in place")
        _C.clear_grad(self)

    @property
    def grad_fn(self):
        """The name of the operator that made this tensor ("mul"), or None for
        a leaf."""
        return _C.grad_fn(self)

    def backward(self, gradient=None, retain_graph=False):
        """Adds d(self)/d(leaf) into the .grad of every leaf self was computed
        from, running on the devices of the forward pass. gradient is
        d(loss)/d(self): required unless self has one element (then 1). The
        graph is freed unless retain_graph."""
        if gradient is not None and not isinstance(gradient, Tensor):
            gradient = tensor(gradient, dtype=self.dtype, device=self.device)
        _C.backward(self, gradient, retain_graph)

    # ---- reductions ------------------------------------------------------------

    def sum(self, axis=None, keepdims=False, dtype=None, out=None, *, dim=None, keepdim=None):
        """Sum over all elements (axis=None), one axis, or a tuple of axes
        (NumPy's axis=/keepdims= or PyTorch's dim=/keepdim=). Integers sum
        to int64."""
        t = self if dtype is None else self.astype(dtype)
        return _reduce(OP["sum"], t, *_dims("sum", axis, keepdims, dim, keepdim), out)

    def mean(self, axis=None, keepdims=False, dtype=None, out=None, *, dim=None, keepdim=None):
        t = self if dtype is None else self.astype(dtype)
        return _reduce(OP["mean"], t, *_dims("mean", axis, keepdims, dim, keepdim), out)

    def max(self, dim=None, keepdim=False, *, axis=None, keepdims=None, out=None):
        """The largest element: of all (no argument); along dim, PyTorch's
        (values, indices) named tuple (x.max(1), x.max(dim=1)); along axis=
        (an int or tuple, NumPy's spelling), the values alone. A tensor
        argument is torch.max(a, b): the elementwise maximum."""
        return _extreme("max", self, dim, keepdim, axis, keepdims, out)

    def min(self, dim=None, keepdim=False, *, axis=None, keepdims=None, out=None):
        """The smallest element, as max()."""
        return _extreme("min", self, dim, keepdim, axis, keepdims, out)

    def prod(self, axis=None, keepdims=False, dtype=None, out=None, *, dim=None, keepdim=None):
        """Product over all elements (axis=None), one axis, or a tuple of axes.
        Integers multiply into int64 (wrapping); the product of nothing is 1."""
        t = self if dtype is None else self.astype(dtype)
        return _reduce(OP["prod"], t, *_dims("prod", axis, keepdims, dim, keepdim), out)

    def argmax(self, axis=None, keepdims=False, out=None, *, dim=None, keepdim=None):
        """Index of the first largest element (int64; a NaN counts as the
        largest): of the flattened tensor when axis (dim) is None, else along it."""
        return _argreduce("argmax", self, *_dims("argmax", axis, keepdims, dim, keepdim), out)

    def argmin(self, axis=None, keepdims=False, out=None, *, dim=None, keepdim=None):
        """Index of the first smallest element (int64; a NaN counts as the
        smallest): of the flattened tensor when axis (dim) is None, else along it."""
        return _argreduce("argmin", self, *_dims("argmin", axis, keepdims, dim, keepdim), out)

    def norm(self, axis=None, keepdims=False, out=None):
        """Frobenius norm sqrt(sum(x * x)), over all elements or along axis."""
        return norm(self, axis, keepdims, out)

    def logsumexp(self, axis=None, keepdims=False, out=None, *, dim=None, keepdim=None):
        """log(sum(exp(x))) over all elements (axis=None), one axis, or a
        tuple of axes, without overflow (SciPy's and PyTorch's logsumexp):
        NaN where a NaN is summed, inf where inf is, -inf for nothing but
        -inf or an empty set. Integers and bool give float64."""
        return _reduce(OP["logsumexp"], self, *_dims("logsumexp", axis, keepdims, dim, keepdim),
                       out)

    def cumsum(self, axis=None, dtype=None, out=None, *, dim=None):
        """Running sums along axis; axis=None runs along the flattened tensor
        (NumPy; PyTorch's dim is the same axis). Integers and bool sum into
        int64; dtype converts first (and the result to it)."""
        return cumsum(self, axis, dtype, out, dim=dim)

    def nonzero(self, as_tuple=False):
        """Where the nonzero elements are, in C order: an int64 tensor of shape
        (count, ndim) as in PyTorch, or with as_tuple=True one index tensor per
        axis (NumPy's nonzero, usable as t[x.nonzero(as_tuple=True)])."""
        return nonzero(self, as_tuple)

    def all(self, axis=None, keepdims=False):
        """True where every element (along axis) is nonzero: a bool tensor."""
        return _as_bool(_reduce(OP["min"], self != 0, axis, keepdims, None))

    def any(self, axis=None, keepdims=False):
        """True where some element (along axis) is nonzero: a bool tensor."""
        return _as_bool(_reduce(OP["max"], self != 0, axis, keepdims, None))

    # ---- NumPy-style functions as methods --------------------------------------

    def maximum(self, other):
        return _C.binary(OP["maximum"], self, other)

    def minimum(self, other):
        return _C.binary(OP["minimum"], self, other)

    def matmul(self, other):
        return _C.matmul(self, other, False, False)


Tensor.__module__ = "backplane"


class _Size(int):
    """Tensor.size: an int, the number of elements, as NumPy's .size; called
    as PyTorch's .size(), the shape, and .size(d), one extent."""

    def __new__(cls, numel, t):
        self = super().__new__(cls, numel)
        self._shape = t.shape
        return self

    def __call__(self, dim=None):
        return self._shape if dim is None else self._shape[_axis(dim, len(self._shape))]


def _axis(dim, ndim):
    d = operator.index(dim)
    if not -ndim <= d < ndim:
        raise IndexError("dimension {} is out of range for a tensor of dimension {}".format(dim, ndim))
    return d % ndim


def _as_bool(t):
    return t if t._dtype_code == bool_.code else _C.cast(t, bool_.code)


def _is_dtype_spec(x):
    """Whether an argument of .to() names a dtype rather than a device."""
    if isinstance(x, (DType, type)):
        return True
    if isinstance(x, Device):
        return False
    try:
        as_dtype(x)
        return True
    except DtypeError:
        return False


def _set_once(what, current, value):
    if current is not None:
        raise TypeError("to(): {} given twice".format(what))
    return value


def _scalar_or_data(value, like, op):
    """A tensor on like's device and in its dtype for a number or host data
    (op names the caller in errors)."""
    if isinstance(value, (int, float)) or _is_numpy_scalar(value):
        return _full(like._device_id, like.dtype, (), value)
    return tensor(value, dtype=BY_CODE[like._dtype_code], device=like.device)


def _rebuild(data, device_name, dtype=None):
    return tensor(data, dtype=dtype, device=device_name)


def _resolve_device(dev):
    if isinstance(dev, Device):
        return dev._id
    return _as_device(dev)._id


def _is_numpy_scalar(x):
    np = sys.modules.get("numpy")
    return np is not None and isinstance(x, np.generic)


def _full(device_id, dt, shape, value):
    """A tensor of dtype dt filled with the number value (bp_full_kind: an
    integer into an integer dtype must fit it, as an INT scalar operand must,
    rather than saturate; other values convert by the conversion rules)."""
    return _C.full_kind(device_id, dt.code, shape, value)


def _dims(fn, axis, keepdims, dim, keepdim):
    """(axis, keepdims) of a reduction called with NumPy's spelling
    (axis=, keepdims=) or PyTorch's (dim=, keepdim=)."""
    if dim is not None:
        if axis is not None:
            raise TypeError("{}(): axis= (NumPy) and dim= (PyTorch) name the same argument; "
                            "give one".format(fn))
        axis = dim
    return axis, keepdims if keepdim is None else keepdim


# What x.max(dim), x.min(dim), topk and sort return, as PyTorch's
# torch.return_types.
_RETURN_TYPES = {name: collections.namedtuple(name, ("values", "indices"))
                 for name in ("max", "min", "topk", "sort")}


def _extreme(name, t, dim, keepdim, axis, keepdims, out):
    """Tensor.max / Tensor.min: see Tensor.max."""
    if isinstance(dim, Tensor):
        return _C.binary(OP["maximum" if name == "max" else "minimum"], t, dim)
    if dim is None or isinstance(dim, (tuple, list)):
        axis, keep = _dims(name, axis, keepdim, dim, keepdims)
        return _reduce(OP[name], t, axis, keep, out)
    if axis is not None or keepdims is not None or out is not None:
        raise TypeError("{0}(dim) gives (values, indices) as PyTorch's does, and takes no axis=, "
                        "keepdims= or out=; {0}(axis=...) gives the values alone".format(name))
    dim = operator.index(dim)
    return _RETURN_TYPES[name](_C.reduce(OP[name], t, dim, keepdim),
                               _C.reduce(OP["arg" + name], t, dim, keepdim))


def _reduce(op, t, axis, keepdims, out):
    if axis is None:
        return _C.reduce(op, t, AXIS_ALL, keepdims, out)
    if isinstance(axis, (tuple, list)):
        if out is not None:
            raise TypeError("out= is supported for one axis or all axes only")
        return _C.reduce_axes(op, t, axis, keepdims)
    return _C.reduce(op, t, operator.index(axis), keepdims, out)


# ---- creation ------------------------------------------------------------------

def _infer_dtype(value):
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    return float32


_SUPPORTED = frozenset(d.name for d in _DTYPES)


def _leaf(t, requires_grad):
    """t, marked as a leaf requiring gradients when requires_grad (the
    creation functions' argument, as in PyTorch)."""
    if requires_grad:
        _C.set_requires_grad(t, True)
    return t


def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new tensor holding a copy of data: nested lists, Python numbers, NumPy
    arrays (their dtype is kept), or another tensor (copied on its device
    unless device is given; the copy is a new leaf). Without dtype, Python
    floats become float32 and ints int64 (like PyTorch). On device, else the
    current default device."""
    dt = as_dtype(dtype)
    if isinstance(data, Tensor):
        t = _C.copy_to(data, data._device_id if device is None else _resolve_device(device))
        t = t if dt is None or dt.code == t._dtype_code else _C.cast(t, dt.code)
        return _leaf(_C.detach(t), requires_grad)
    np = _numpy()
    from_numpy = isinstance(data, (np.ndarray, np.generic))
    arr = np.asarray(data)
    held = _held_dtype(arr, from_numpy, exact=dt is not None)
    arr = arr.astype(np.bool_ if held is bool_ else held.name, copy=False)
    if not arr.flags.c_contiguous:
        arr = arr.copy(order="C")
    t = _C.from_buffer(_resolve(device), held.code, arr.shape, arr)
    # Any other dtype is a conversion by the backend, as plugin.h's COPY
    # defines it (rounded once, saturated, NaN to 0), not NumPy's cast.
    if dt is not None and dt.code != held.code:
        t = _C.cast(t, dt.code)
    return _leaf(t, requires_grad)


def _held_dtype(arr, from_numpy, exact):
    """The dtype that holds the values of arr as they are: a NumPy array's
    own when Backplane has it, else bool, int64 for integers and, for
    floats, float32 (the default of a creation) or float64 when another
    dtype is asked for (exact: so that the one conversion starts from the
    Python value)."""
    kind = arr.dtype.kind
    if from_numpy and (arr.dtype.name in _SUPPORTED or not exact):
        return as_dtype(arr.dtype.name)  # DtypeError for uint16, complex, ...
    if kind == "b":
        return bool_
    if kind in "iu":
        return int64
    if kind == "f":
        return float64 if exact or from_numpy else float32
    return as_dtype(arr.dtype.name)  # DtypeError for complex, object, ...


array = tensor  # MXNet / NumPy spelling


def asarray(data, dtype=None, device=None):
    """data itself when it is a tensor already in dtype on device (either
    may be None: any), else tensor(data, dtype, device) (NumPy's asarray)."""
    if isinstance(data, Tensor):
        same_dtype = dtype is None or as_dtype(dtype).code == data._dtype_code
        same_device = device is None or _resolve_device(device) == data._device_id
        if same_dtype and same_device:
            return data
        return data.to(*(a for a in (device, dtype) if a is not None))
    return tensor(data, dtype=dtype, device=device)


def from_numpy(arr, device=None):
    """A tensor sharing arr's memory (PyTorch's from_numpy): no copy, writes
    through either show in both, and arr stays alive while the tensor or a
    view of it does. On cpu:0 (whatever the default device), or on the device
    given when it takes host memory (reference:0). arr's dtype and strides are
    kept (a non-contiguous array gives a strided view). Backplane writes
    asynchronously: t.wait() before NumPy reads what an operator wrote into t.

    Refused, saying why (bp.tensor(arr, device=...) copies instead): a device
    that does not take host memory (opencl, cuda; UnsupportedError), a dtype
    Backplane lacks (uint16, complex, ...; DtypeError), negative strides or
    unaligned data (ValueError), a read-only array (ValueError)."""
    np = _numpy()
    if not isinstance(arr, np.ndarray):
        raise TypeError("from_numpy: expected a NumPy array, got {}".format(type(arr).__name__))
    dt = as_dtype(arr.dtype.name)  # DtypeError naming the dtypes there are
    dev = _C.cpu() if device is None else _resolve_device(device)
    if not arr.flags.writeable:
        raise ValueError("from_numpy: the array is read-only, and a tensor sharing its memory "
                         "could write it; bp.tensor(arr) copies it")
    # NumPy 1.24 exports no bool through DLPack: its bytes go as uint8.
    shared = arr.view(np.uint8) if dt is bool_ else arr
    try:
        return _C.from_dlpack(shared, dev, True, dt.code if dt is bool_ else -1)
    except UnsupportedError as e:
        raise UnsupportedError("from_numpy: {} cannot share host memory ({}); bp.tensor(arr, "
                               "device=...) copies it".format(device_of(dev), e.message),
                               op="from_numpy", devices=e.devices) from None
    except BufferError as e:
        raise ValueError("from_numpy: {}; bp.tensor(arr) copies it".format(e)) from None


def empty(*shape, dtype=None, device=None, requires_grad=False):
    """Uninitialised tensor (float32 by default)."""
    return _leaf(_C.empty(_resolve(device), (as_dtype(dtype) or float32).code, _shape_arg(shape)),
                 requires_grad)


def zeros(*shape, dtype=None, device=None, requires_grad=False):
    """Tensor of zeros: bp.zeros((2, 3)) or bp.zeros(2, 3); float32 by default."""
    return _leaf(_C.zeros(_resolve(device), (as_dtype(dtype) or float32).code, _shape_arg(shape)),
                 requires_grad)


def ones(*shape, dtype=None, device=None, requires_grad=False):
    """Tensor of ones: bp.ones((2, 3)) or bp.ones(2, 3); float32 by default."""
    return _leaf(_C.ones(_resolve(device), (as_dtype(dtype) or float32).code, _shape_arg(shape)),
                 requires_grad)


def full(shape, fill_value, dtype=None, device=None, requires_grad=False):
    """Tensor filled with fill_value (dtype from the value: bool, int64, float32)."""
    dt = as_dtype(dtype) or _infer_dtype(fill_value)
    return _leaf(_full(_resolve(device), dt, _shape_arg((shape,)), fill_value), requires_grad)


def zeros_like(t, dtype=None, device=None, requires_grad=False):
    return _leaf(_C.zeros(_like_device(t, device), (as_dtype(dtype) or t.dtype).code, t.shape),
                 requires_grad)


def ones_like(t, dtype=None, device=None, requires_grad=False):
    return _leaf(_C.ones(_like_device(t, device), (as_dtype(dtype) or t.dtype).code, t.shape),
                 requires_grad)


def full_like(t, fill_value, dtype=None, device=None, requires_grad=False):
    dt = as_dtype(dtype) or t.dtype
    return _leaf(_full(_like_device(t, device), dt, t.shape, fill_value), requires_grad)


def _like_device(t, device):
    return t._device_id if device is None else _resolve_device(device)


def arange(start=None, stop=None, step=1, dtype=None, device=None, requires_grad=False, *,
           end=None):
    """start, start + step, ... while < stop (> stop for a negative step);
    arange(n) is 0..n-1. int64 when every argument is an int, else float32.
    end= is PyTorch's name for stop (arange(start=1, end=4))."""
    if end is not None:
        if stop is not None:
            raise TypeError("arange(): stop and end name the same argument; give one")
        start, stop = 0 if start is None else start, end
    if stop is None:
        start, stop = 0, start
    if stop is None:
        raise TypeError("arange(): give the end (arange(n), arange(start, end, step))")
    dt = as_dtype(dtype)
    if dt is None:
        ints = all(isinstance(v, int) and not isinstance(v, bool) for v in (start, stop, step))
        dt = int64 if ints else float32
    return _leaf(_C.arange(_resolve(device), dt.code, float(start), float(stop), float(step)),
                 requires_grad)


def from_dlpack(x, device=None, dtype=None):
    """A tensor from any DLPack producer in host memory (NumPy >= 1.22,
    PyTorch, ...). A backplane tensor comes back as itself (or moved with
    to(device)); memory a backplane tensor lent through DLPack
    (torch.utils.dlpack.from_dlpack(t)) comes back, while it is lent, as a
    new reference to that tensor (the same storage, no copy, no new wrap),
    on its own device. Other memory becomes a tensor on device (default
    cpu:0) without a copy where the device takes host memory (cpu,
    reference): both sides read and write the same memory, and the
    producer's memory stays alive until the tensor's last view is gone.
    Other devices get a copy. With dtype, the result is then converted
    (.to(dtype): a copy unless it already has that dtype)."""
    t = _from_dlpack(x, device)
    return t if dtype is None else t.to(dtype)


def _from_dlpack(x, device):
    if isinstance(x, Tensor):
        return x if device is None else x.to(device)
    dev = -1 if device is None else _resolve_device(device)
    try:
        return _C.from_dlpack(x, dev)
    except BufferError:
        # NumPy refuses to export read-only arrays (those it got from DLPack,
        # for one); we copy anyway, so take the data through the buffer protocol.
        np = sys.modules.get("numpy")
        if np is not None and isinstance(x, np.ndarray):
            return tensor(x, device=device_of(_C.cpu() if dev < 0 else dev))
        raise


# ---- functions ---------------------------------------------------------------

def _binary_fn(name, doc, op=None):
    """The function `name` over operator `op` of BP_OP_LIST (default: name)."""
    op = OP[op or name]

    def fn(a, b, out=None):
        if out is not None:
            return _C.binary_out(op, a, b, out)
        return _C.binary(op, a, b)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc + " Tensors on one device (NumPy broadcasting) or a tensor and a number."
    return fn


add = _binary_fn("add", "a + b.")
subtract = _binary_fn("subtract", "a - b.", op="sub")
multiply = _binary_fn("multiply", "a * b.", op="mul")
divide = _binary_fn("divide", "a / b (integers give float64).", op="div")
power = _binary_fn("power", "a ** b.", op="pow")
maximum = _binary_fn("maximum", "Elementwise larger of a and b.")
minimum = _binary_fn("minimum", "Elementwise smaller of a and b.")
equal = _binary_fn("equal", "a == b (bool).", op="eq")
not_equal = _binary_fn("not_equal", "a != b (bool).", op="ne")
less = _binary_fn("less", "a < b (bool).", op="lt")
less_equal = _binary_fn("less_equal", "a <= b (bool).", op="le")
greater = _binary_fn("greater", "a > b (bool).", op="gt")
greater_equal = _binary_fn("greater_equal", "a >= b (bool).", op="ge")
floor_divide = _binary_fn("floor_divide", "a // b: the quotient rounded toward -inf (integers: 0 "
                          "for b == 0).")
remainder = _binary_fn("remainder", "a % b with the sign of b, as Python's % (integers: 0 for "
                       "b == 0).")
mod = remainder
bitwise_and = _binary_fn("bitwise_and", "a & b: integers bitwise, bool logically (a bool "
                         "tensor with True/False stays bool). Floats raise DtypeError.")
bitwise_or = _binary_fn("bitwise_or", "a | b: integers bitwise, bool logically. Floats raise "
                        "DtypeError.")
bitwise_xor = _binary_fn("bitwise_xor", "a ^ b: integers bitwise, bool logically. Floats raise "
                         "DtypeError.")


def _unary_fn(name, doc, op=None):
    """The function `name` over operator `op` of BP_OP_LIST (default: name)."""
    op = OP[op or name]

    def fn(x, out=None):
        if out is not None:
            return _C.unary_out(op, x, out)
        return _C.unary(op, x)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


negative = _unary_fn("negative", "-x.", op="neg")
abs = _unary_fn("abs", "|x|.")
exp = _unary_fn("exp", "e ** x (integers give float64).")
log = _unary_fn("log", "Natural logarithm.")
sqrt = _unary_fn("sqrt", "Square root.")
tanh = _unary_fn("tanh", "Hyperbolic tangent.")
sigmoid = _unary_fn("sigmoid", "1 / (1 + exp(-x)).")
relu = _unary_fn("relu", "max(x, 0).")
square = _unary_fn("square", "x * x (integers wrap).")
sin = _unary_fn("sin", "Sine (integers give float64).")
cos = _unary_fn("cos", "Cosine (integers give float64).")
bitwise_not = _unary_fn("bitwise_not", "~x: every bit flipped (integers); not x (bool). "
                        "Floats raise DtypeError.")
invert = bitwise_not  # NumPy's name


def matmul(a, b, transpose_a=False, transpose_b=False, out=None):
    """a @ b with NumPy batch broadcasting; transpose_* swap the last two axes
    of that operand first (no copy)."""
    return _C.matmul(a, b, transpose_a, transpose_b, out)


def norm(x, axis=None, keepdims=False, out=None):
    """Frobenius norm sqrt(sum(x * x)): a 0-d tensor over all elements, or
    along axis (an int or tuple)."""
    if axis is None and not keepdims:
        return _C.norm(x, out)
    return _reduce(OP["norm"], x, axis, keepdims, out)


def _reduce_fn(name):
    """The function `name` over reduction `name` of BP_OP_LIST: all elements
    (axis=None), one axis, or a tuple of axes (dim=/keepdim= as PyTorch)."""
    op = OP[name]

    def fn(x, axis=None, keepdims=False, out=None, *, dim=None, keepdim=None):
        return _reduce(op, x, *_dims(name, axis, keepdims, dim, keepdim), out)
    fn.__name__ = fn.__qualname__ = name
    return fn


sum = _reduce_fn("sum")
prod = _reduce_fn("prod")
logsumexp = _reduce_fn("logsumexp")
mean = _reduce_fn("mean")


def max(x, dim=None, keepdim=False, *, axis=None, keepdims=None, out=None):
    """x.max(...) (see Tensor.max); max(a, b) with two tensors is maximum(a, b)."""
    return x.max(dim, keepdim, axis=axis, keepdims=keepdims, out=out)


def min(x, dim=None, keepdim=False, *, axis=None, keepdims=None, out=None):
    """x.min(...) (see Tensor.min); min(a, b) with two tensors is minimum(a, b)."""
    return x.min(dim, keepdim, axis=axis, keepdims=keepdims, out=out)


def argmax(x, axis=None, keepdims=False, out=None, *, dim=None, keepdim=None):
    return x.argmax(axis, keepdims, out, dim=dim, keepdim=keepdim)


def argmin(x, axis=None, keepdims=False, out=None, *, dim=None, keepdim=None):
    return x.argmin(axis, keepdims, out, dim=dim, keepdim=keepdim)


def _argreduce(name, t, axis, keepdims, out):
    if isinstance(axis, (tuple, list)):
        raise TypeError("{}: axis must be an int or None".format(name))
    return _reduce(OP[name], t, axis, keepdims, out)


def where(cond, a=None, b=None, out=None):
    """a where cond is true, else b (cond is bool; NumPy broadcasting). a and b
    may be Python numbers. With cond alone: the indices of its nonzero
    elements, one int64 tensor per axis (NumPy's and PyTorch's where(cond))."""
    if a is None and b is None and out is None:
        return nonzero(cond, as_tuple=True)
    if a is None or b is None:
        raise TypeError("where: give both a and b, or neither (where(cond) gives indices)")
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return _C.where(cond, a, b) if out is None else _C.where(cond, a, b, out)
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        # Two numbers: the first takes the creation functions' dtype.
        a = _full(cond._device_id, _infer_dtype(a), (), a)
    # A number beside a tensor: its kind decides the dtype (bp_where_scalar).
    if isinstance(a, Tensor):
        result = _C.where_scalar(cond, a, b, False)
    else:
        result = _C.where_scalar(cond, b, a, True)
    if out is None:
        return result
    _C.assign(out, result)
    return out


def nonzero(x, as_tuple=False):
    """The indices of x's nonzero elements in C order (NaN counts): an int64
    tensor of shape (count, x.ndim) as torch.nonzero and np.argwhere give, or
    with as_tuple=True one tensor per axis as np.nonzero gives."""
    at = _C.nonzero(x)
    if not as_tuple:
        return at
    return tuple(_C.select(at, 1, d) for d in range(x.ndim))


def argwhere(x):
    """np.argwhere: the same (count, x.ndim) tensor as nonzero(x)."""
    return _C.nonzero(x)


def cumsum(x, axis=None, dtype=None, out=None, *, dim=None):
    """Running sums of x along axis (PyTorch's dim; axis=None: of the
    flattened tensor, 1-D).
    Integers and bool sum into int64 (wrapping), floats keep their dtype;
    dtype converts x first and the result to it."""
    t = x if dtype is None else x.to(dtype)
    axis, _ = _dims("cumsum", axis, False, dim, None)
    if axis is None:
        axis = AXIS_ALL
    result = _C.scan(OP["cumsum"], t, operator.index(axis), out)
    dt = as_dtype(dtype)
    return result if dt is None or out is not None or result._dtype_code == dt.code \
        else result.to(dt)


def reshape(x, *shape):
    return x.reshape(*shape)


def transpose(x, *axes):
    return x.transpose(*axes)


def copyto(x, device):
    return x.copyto(device)


def to(x, device):
    """x itself when it lives on device, else a copy there (d2l.to)."""
    return x.to(device)


def live_tensor_count():
    """Live tensor handles in this process (bp_live_tensor_count), for leak checks."""
    return _C.live_tensor_count()


# ---- NumPy ufuncs on tensors ------------------------------------------------------

# NumPy's ufunc name -> the function here computing it on a tensor's device.
_UFUNCS = {
    "add": add, "subtract": subtract, "multiply": multiply, "true_divide": divide,
    "divide": divide, "power": power, "maximum": maximum, "minimum": minimum,
    "equal": equal, "not_equal": not_equal, "less": less, "less_equal": less_equal,
    "greater": greater, "greater_equal": greater_equal, "negative": negative,
    "absolute": abs, "exp": exp, "log": log, "sqrt": sqrt, "tanh": tanh, "matmul": matmul,
    "floor_divide": floor_divide, "remainder": remainder, "square": square, "sin": sin,
    "cos": cos, "bitwise_and": bitwise_and, "bitwise_or": bitwise_or,
    "bitwise_xor": bitwise_xor, "invert": bitwise_not, "bitwise_not": bitwise_not,
}


def _mixed_error(inputs):
    dev = next(x.device for x in inputs if isinstance(x, Tensor))
    return TypeError(
        "a NumPy array and a backplane tensor on {dev} in one operation: data does not move "
        "between host and device silently. Make the array a tensor first: "
        "bp.tensor(array, device='{dev}') (or bring the tensor to NumPy with t.numpy())"
        .format(dev=dev))


def _numpy_ufunc(ufunc, method, inputs, kwargs):
    np = _numpy()
    out = kwargs.pop("out", None)
    out = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    if _builtins.any(isinstance(x, np.ndarray) for x in inputs + (out,)):
        raise _mixed_error(inputs + (out,))
    fn = _UFUNCS.get(ufunc.__name__)
    if method != "__call__" or fn is None or kwargs:
        what = "np.{}{}".format(ufunc.__name__, "" if method == "__call__" else "." + method)
        if kwargs:
            what += " with " + ", ".join(k + "=" for k in kwargs)
        raise TypeError("{} is not supported on backplane tensors; the ufuncs that are: {}".format(
            what, ", ".join(sorted(_UFUNCS))))
    args = [x.item() if _is_numpy_scalar(x) else x for x in inputs]
    return fn(*args) if out is None else fn(*args, out=out)
