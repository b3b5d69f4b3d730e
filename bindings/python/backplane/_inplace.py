"""Writing into a tensor, as PyTorch's in-place operations do: the augmented
assignments (a += b, -=, *=, /=, //=, %=, **=, &=, |=, ^=) and the methods
ending in "_" (add_, mul_, exp_, clamp_, copy_, fill_, zero_, ...).

Each writes into the tensor's own storage and returns the tensor, so every
other reference to it, and every view of it, sees the new values; writing
into a view writes its base. Three rules decide what happens:

- Dtype (PyTorch's): the operator computes in the dtype its operands meet in
  (backplane.h, "Dtypes (promotion)"), and that result must be castable to
  the tensor's dtype: bool into anything, an integer into an integer or a
  float, a float into a float only. int_tensor += 0.5 and int_tensor /= 2
  raise DtypeError, as in PyTorch. A result of the tensor's own dtype is
  written by the operator's _out form, allocating nothing; another one is
  computed apart and converted into the tensor (float32 += float64 tensor).
- Autograd (backplane/autograd.h): with grad mode on, writing into a tensor
  that requires gradients, or from inputs that do, raises StateError; write
  inside bp.no_grad(), as optimiser steps do. A tensor saved for a backward
  pass and written afterwards makes that pass raise StateError.
- The augmented assignments, where PyTorch would record the write in the
  graph (the tensor is a recorded result, or the operand requires gradients,
  with grad mode on: loss += l), compute the new tensor and rebind the name
  instead: the values and gradients are PyTorch's; other references to the
  old tensor keep its values. A leaf that requires gradients still raises,
  as in PyTorch.
"""
from . import _C
from ._dtype import BY_CODE
from ._errors import DtypeError, ShapeError, StateError

_OP = {name: value for value, name, _family in _C.ops}

# PyTorch's casting rule for writing a result into an existing tensor: the
# result's category must not be above the tensor's.
_CATEGORY = {"b": 0, "i": 1, "u": 1, "f": 2}


def _tensor_module():
    from . import _tensor
    return _tensor


def _convert_into(t, result, name):
    """Writes result, of another dtype than t's, into t under PyTorch's rule."""
    _check_writable(t, result, name)
    _C.assign(t, result)
    return t


def _rebound(t, result, name):
    """result as the new tensor t <op>= rebinds to where PyTorch would record
    the write: t's dtype and shape, as the write would have kept them."""
    _check_writable(t, result, name)
    return result if result._dtype_code == t._dtype_code else result.to(t.dtype)


def _check_writable(t, result, name):
    """Refuses a result PyTorch would not write into t: a wider category or
    another shape."""
    have, want = BY_CODE[result._dtype_code], BY_CODE[t._dtype_code]
    if _CATEGORY[have.kind] > _CATEGORY[want.kind]:
        raise DtypeError(
            "{}: the result is {}, which cannot be written in place into a tensor of dtype {} "
            "(a float goes into floats only, an integer into integers or floats, as in "
            "PyTorch); write t = t.to(bp.{}) first, or compute a new tensor".format(
                name, have.name, want.name, have.name), op=name)
    if result.shape != t.shape:
        raise ShapeError("{}: the result has shape {} but the tensor written has shape {}".format(
            name, result.shape, t.shape), op=name)


def _operand_error(name, other):
    return TypeError("{}: expected a backplane tensor or a Python number, got {}".format(
        name, type(other).__name__))


def _write_binary(t, op, other, name):
    """op(t, other) written into t; returns t."""
    try:
        return _C.binary_out(op, t, other, t)
    except DtypeError:
        pass  # a result of another dtype, or an operator refusing these dtypes: decided below
    except TypeError:
        raise _operand_error(name, other) from None
    return _convert_into(t, _C.binary(op, t, other), name)


def _records_in_pytorch(t, other):
    """Whether PyTorch would record an in-place write of other into t in the
    graph (rather than refuse it, as it does for a leaf requiring gradients)."""
    if not _C.is_grad_enabled():
        return False
    if _C.requires_grad(t):
        return not _C.is_leaf(t)
    return isinstance(other, _C.TensorBase) and _C.requires_grad(other)


def _augmented(name, op_name, symbol):
    """The method `name` for t <symbol>= other: written into t, or, where
    PyTorch would record the write, a new tensor that rebinds the name (see
    the module's docstring)."""
    op = _OP[op_name]

    def method(self, other):
        try:
            return _C.binary_out(op, self, other, self)
        except DtypeError:
            pass
        except StateError:
            if not _records_in_pytorch(self, other):
                raise
            return _rebound(self, _C.binary(op, self, other), symbol)
        except TypeError:
            return NotImplemented  # Python then tries other's reflected operator
        result = _C.binary(op, self, other)
        try:
            return _convert_into(self, result, symbol)
        except StateError:
            if not _records_in_pytorch(self, other):
                raise
            return _rebound(self, result, symbol)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = "self {} other, written into self (see backplane._inplace).".format(symbol)
    return method


def _binary_method(name, op_name):
    op = _OP[op_name]

    def method(self, other):
        return _write_binary(self, op, other, name)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = "{}(self, other) written into self; returns self.".format(op_name)
    return method


def _unary_method(name, op_name):
    op = _OP[op_name]

    def method(self):
        try:
            return _C.unary_out(op, self, self)
        except DtypeError:
            pass
        return _convert_into(self, _C.unary(op, self), name)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = "{}(self) written into self; returns self.".format(op_name)
    return method


def _scaled(name, other, alpha):
    """other * alpha for add_/sub_'s alpha= (PyTorch), other itself for 1."""
    if alpha == 1:
        return other
    if isinstance(other, _C.TensorBase):
        return _C.binary(_OP["mul"], other, alpha)
    if isinstance(other, (int, float)):
        return other * alpha
    raise _operand_error(name, other)


class InPlace:
    """The in-place operations of bp.Tensor (see the module's docstring)."""

    __slots__ = ()

    __iadd__ = _augmented("__iadd__", "add", "+=")
    __isub__ = _augmented("__isub__", "sub", "-=")
    __imul__ = _augmented("__imul__", "mul", "*=")
    __itruediv__ = _augmented("__itruediv__", "div", "/=")
    __ifloordiv__ = _augmented("__ifloordiv__", "floor_divide", "//=")
    __imod__ = _augmented("__imod__", "remainder", "%=")
    __ipow__ = _augmented("__ipow__", "pow", "**=")
    __iand__ = _augmented("__iand__", "bitwise_and", "&=")
    __ior__ = _augmented("__ior__", "bitwise_or", "|=")
    __ixor__ = _augmented("__ixor__", "bitwise_xor", "^=")

    def add_(self, other, alpha=1):
        """self += other * alpha, in this tensor's storage; returns self."""
        return _write_binary(self, _OP["add"], _scaled("add_", other, alpha), "add_")

    def sub_(self, other, alpha=1):
        """self -= other * alpha, in this tensor's storage; returns self."""
        return _write_binary(self, _OP["sub"], _scaled("sub_", other, alpha), "sub_")

    mul_ = _binary_method("mul_", "mul")
    div_ = _binary_method("div_", "div")
    pow_ = _binary_method("pow_", "pow")
    floor_divide_ = _binary_method("floor_divide_", "floor_divide")
    remainder_ = _binary_method("remainder_", "remainder")
    bitwise_and_ = _binary_method("bitwise_and_", "bitwise_and")
    bitwise_or_ = _binary_method("bitwise_or_", "bitwise_or")
    bitwise_xor_ = _binary_method("bitwise_xor_", "bitwise_xor")

    neg_ = negative_ = _unary_method("neg_", "neg")
    abs_ = absolute_ = _unary_method("abs_", "abs")
    exp_ = _unary_method("exp_", "exp")
    log_ = _unary_method("log_", "log")
    sqrt_ = _unary_method("sqrt_", "sqrt")
    tanh_ = _unary_method("tanh_", "tanh")
    sigmoid_ = _unary_method("sigmoid_", "sigmoid")
    relu_ = _unary_method("relu_", "relu")
    square_ = _unary_method("square_", "square")
    sin_ = _unary_method("sin_", "sin")
    cos_ = _unary_method("cos_", "cos")
    erf_ = _unary_method("erf_", "erf")
    expm1_ = _unary_method("expm1_", "expm1")
    log1p_ = _unary_method("log1p_", "log1p")
    rsqrt_ = _unary_method("rsqrt_", "rsqrt")
    floor_ = _unary_method("floor_", "floor")
    ceil_ = _unary_method("ceil_", "ceil")
    round_ = _unary_method("round_", "round")
    sign_ = _unary_method("sign_", "sign")
    bitwise_not_ = _unary_method("bitwise_not_", "bitwise_not")

    def clamp_(self, min=None, max=None):
        """Each element limited to [min, max] (either may be None; numbers or
        tensors), in this tensor's storage: maximum with min, then minimum
        with max, so min > max gives max everywhere, as in PyTorch."""
        if min is None and max is None:
            raise TypeError("clamp_: give min, max or both")
        if min is not None:
            _write_binary(self, _OP["maximum"], min, "clamp_")
        if max is not None:
            _write_binary(self, _OP["minimum"], max, "clamp_")
        return self

    clip_ = clamp_

    def copy_(self, src):
        """Copies src's elements into this tensor (broadcast to its shape,
        converted to its dtype). A tensor on another device is copied across:
        the call asks for it. Host data (lists, NumPy arrays, numbers) too."""
        T = _tensor_module()
        if not isinstance(src, _C.TensorBase):
            src = T._scalar_or_data(src, self, "copy_")
        elif src._device_id != self._device_id:
            src = _C.copy_to(src, self._device_id)
        _C.assign(self, src)
        return self

    def fill_(self, value):
        """Sets every element to value."""
        _C.assign(self, _tensor_module()._full(self._device_id, BY_CODE[self._dtype_code], (), value))
        return self

    def zero_(self):
        """Sets every element to zero."""
        return self.fill_(0)
