/*
 * tensor.c — TensorBase, the Python object owning one bp_tensor reference:
 * its arithmetic and comparison slots, unary methods and metadata getters,
 * and the conversions from Python arguments (tensors, scalars, shapes) the
 * other files of backplane._C share (extension.h).
 */
#include "extension.h"

#include <math.h>
#include <string.h>

#include "dlpack.h"

PyTypeObject *g_tensor_cls; /* Python subclass results are made of */

/* ---- tensor objects ------------------------------------------------------ */

/* Tensors are made of the Python subclass registered by set_hooks. */
PyObject *wrap(bp_tensor handle) { return wrap_as(g_tensor_cls ? g_tensor_cls : &TensorBase_Type, handle); }

PyObject *wrap_as(PyTypeObject *tp, bp_tensor handle) {
  TensorObject *self = (TensorObject *)tp->tp_alloc(tp, 0);
  if (!self) {
    p_bp_tensor_release(handle);
    return NULL;
  }
  self->handle = handle;
  return (PyObject *)self;
}

static PyObject *wrap_into(PyObject *seq, int is_list, bp_tensor *handles, Py_ssize_t n) {
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *t = seq ? wrap(handles[i]) : NULL; /* wrap releases the handle it fails on */
    if (t) {
      if (is_list) PyList_SET_ITEM(seq, i, t);
      else PyTuple_SET_ITEM(seq, i, t);
      continue;
    }
    for (Py_ssize_t j = seq ? i + 1 : i; j < n; ++j) p_bp_tensor_release(handles[j]);
    Py_CLEAR(seq);
    break;
  }
  return seq;
}

PyObject *wrap_tuple(bp_tensor *handles, Py_ssize_t n) { return wrap_into(PyTuple_New(n), 0, handles, n); }

PyObject *wrap_list(bp_tensor *handles, Py_ssize_t n) { return wrap_into(PyList_New(n), 1, handles, n); }

static void tensor_dealloc(TensorObject *self) {
  if (self->handle && g_library) p_bp_tensor_release(self->handle);
  self->handle = BP_NO_TENSOR;
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *tensor_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  (void)type;
  (void)args;
  (void)kwds;
  PyErr_SetString(PyExc_TypeError,
                  "backplane tensors are made by bp.tensor(), bp.ones(), bp.zeros(), ...");
  return NULL;
}

int get_tensor(PyObject *o, bp_tensor *out) {
  if (!IS_TENSOR(o)) {
    PyErr_Format(PyExc_TypeError, "expected a backplane tensor, got %.200s", Py_TYPE(o)->tp_name);
    return 0;
  }
  *out = HANDLE(o);
  return 1;
}

/* The bp_scalar_kind of another number (NumPy scalars, Fraction, ...) by its
 * type: numpy.bool_ (known by name: NumPy is not imported here) is BOOL, a
 * type with __index__ (np.int64, ...) INT, any other with __float__
 * (np.float32, ...) FLOAT; 0 for none. */
static int number_kind(PyObject *o) {
  PyNumberMethods *nb = Py_TYPE(o)->tp_as_number;
  if (!nb || PyComplex_Check(o)) return 0;
  const char *type = Py_TYPE(o)->tp_name;  /* NumPy 1's name, and NumPy 2's */
  if (strcmp(type, "numpy.bool_") == 0 || strcmp(type, "numpy.bool") == 0) return BP_SCALAR_KIND_BOOL;
  if (nb->nb_index) return BP_SCALAR_KIND_INT;
  if (nb->nb_float) return BP_SCALAR_KIND_FLOAT;
  return 0;
}

/* A Python number usable as a scalar operand, with its kind (backplane.h,
 * "Dtypes (promotion)"): bool is BOOL, int INT, float FLOAT, and NumPy
 * scalars by their type. The kind, not the value, picks the result dtype:
 * int_tensor * 2 stays int, int_tensor * 2.0 is float64. An int too large
 * for a double keeps its sign as an infinity, which the core refuses as an
 * INT scalar the dtype cannot hold. 1 = yes, 0 = no (no error set). */
int get_scalar(PyObject *o, double *value, int32_t *kind) {
  if (PyFloat_Check(o)) {
    *value = PyFloat_AS_DOUBLE(o);
    *kind = BP_SCALAR_KIND_FLOAT;
    return 1;
  }
  if (PyBool_Check(o)) {
    *value = o == Py_True ? 1.0 : 0.0;
    *kind = BP_SCALAR_KIND_BOOL;
    return 1;
  }
  if (PyLong_Check(o)) {
    *kind = BP_SCALAR_KIND_INT;
    *value = PyLong_AsDouble(o);
    if (*value == -1.0 && PyErr_Occurred()) {
      if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
        PyErr_Clear();
        return 0;
      }
      PyErr_Clear();
      PyObject *zero = PyLong_FromLong(0);
      const int negative = zero ? PyObject_RichCompareBool(o, zero, Py_LT) : -1;
      Py_XDECREF(zero);
      if (negative < 0) {
        PyErr_Clear();
        return 0;
      }
      *value = negative ? -HUGE_VAL : HUGE_VAL;
    }
    return 1;
  }
  const int k = number_kind(o);
  if (!k) return 0;
  double v = PyFloat_AsDouble(o);
  if (v == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    return 0;
  }
  *value = v;
  *kind = k;
  return 1;
}

/* op(a, b) for tensors and scalars on either side; NotImplemented otherwise. */
PyObject *binary(int32_t op, PyObject *a, PyObject *b) {
  bp_tensor out;
  double s;
  int32_t kind;
  if (IS_TENSOR(a)) {
    if (IS_TENSOR(b)) {
      CHECK(p_bp_binary(op, HANDLE(a), HANDLE(b), &out));
      return wrap(out);
    }
    if (get_scalar(b, &s, &kind)) {
      CHECK(p_bp_binary_scalar_kind(op, HANDLE(a), s, kind, 0, &out));
      return wrap(out);
    }
  } else if (IS_TENSOR(b) && get_scalar(a, &s, &kind)) {
    CHECK(p_bp_binary_scalar_kind(op, HANDLE(b), s, kind, 1, &out));
    return wrap(out);
  }
  Py_RETURN_NOTIMPLEMENTED;
}

static PyObject *nb_add(PyObject *a, PyObject *b) { return binary(BP_OP_ADD, a, b); }
static PyObject *nb_sub(PyObject *a, PyObject *b) { return binary(BP_OP_SUB, a, b); }
static PyObject *nb_mul(PyObject *a, PyObject *b) { return binary(BP_OP_MUL, a, b); }
static PyObject *nb_div(PyObject *a, PyObject *b) { return binary(BP_OP_DIV, a, b); }
static PyObject *nb_floor_div(PyObject *a, PyObject *b) { return binary(BP_OP_FLOOR_DIVIDE, a, b); }
static PyObject *nb_rem(PyObject *a, PyObject *b) { return binary(BP_OP_REMAINDER, a, b); }
static PyObject *nb_and(PyObject *a, PyObject *b) { return binary(BP_OP_BITWISE_AND, a, b); }
static PyObject *nb_or(PyObject *a, PyObject *b) { return binary(BP_OP_BITWISE_OR, a, b); }
static PyObject *nb_xor(PyObject *a, PyObject *b) { return binary(BP_OP_BITWISE_XOR, a, b); }
static PyObject *nb_pow(PyObject *a, PyObject *b, PyObject *mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return binary(BP_OP_POW, a, b);
}

PyObject *unary(int32_t op, PyObject *a) {
  bp_tensor out;
  CHECK(p_bp_unary(op, HANDLE(a), &out));
  return wrap(out);
}
static PyObject *nb_neg(PyObject *a) { return unary(BP_OP_NEG, a); }
static PyObject *nb_abs(PyObject *a) { return unary(BP_OP_ABS, a); }
static PyObject *nb_invert(PyObject *a) { return unary(BP_OP_BITWISE_NOT, a); }
static PyObject *nb_pos(PyObject *a) {
  Py_INCREF(a);
  return a;
}

static PyObject *nb_matmul(PyObject *a, PyObject *b) {
  if (!IS_TENSOR(a) || !IS_TENSOR(b)) Py_RETURN_NOTIMPLEMENTED;
  bp_tensor out;
  CHECK(p_bp_matmul(HANDLE(a), HANDLE(b), 0, 0, &out));
  return wrap(out);
}

static PyObject *tensor_richcompare(PyObject *a, PyObject *b, int cmp) {
  static const int32_t ops[] = {[Py_LT] = BP_OP_LT, [Py_LE] = BP_OP_LE, [Py_EQ] = BP_OP_EQ,
                              [Py_NE] = BP_OP_NE, [Py_GT] = BP_OP_GT, [Py_GE] = BP_OP_GE};
  return binary(ops[cmp], a, b);
}

static PyNumberMethods tensor_as_number = {
    .nb_add = nb_add,
    .nb_subtract = nb_sub,
    .nb_multiply = nb_mul,
    .nb_true_divide = nb_div,
    .nb_floor_divide = nb_floor_div,
    .nb_remainder = nb_rem,
    .nb_and = nb_and,
    .nb_or = nb_or,
    .nb_xor = nb_xor,
    .nb_invert = nb_invert,
    .nb_power = nb_pow,
    .nb_negative = nb_neg,
    .nb_positive = nb_pos,
    .nb_absolute = nb_abs,
    .nb_matrix_multiply = nb_matmul,
};

/* Unary float functions as methods: t.exp(), ... */
#define UNARY_METHOD(name, OP) \
  static PyObject *tensor_##name(PyObject *self, PyObject *unused) { \
    (void)unused;                                                     \
    return unary(OP, self);                                           \
  }
UNARY_METHOD(exp, BP_OP_EXP)
UNARY_METHOD(log, BP_OP_LOG)
UNARY_METHOD(sqrt, BP_OP_SQRT)
UNARY_METHOD(tanh, BP_OP_TANH)
UNARY_METHOD(sigmoid, BP_OP_SIGMOID)
UNARY_METHOD(relu, BP_OP_RELU)
UNARY_METHOD(abs, BP_OP_ABS)
UNARY_METHOD(square, BP_OP_SQUARE)
UNARY_METHOD(sin, BP_OP_SIN)
UNARY_METHOD(cos, BP_OP_COS)
#undef UNARY_METHOD

static PyObject *tensor_wait(PyObject *self, PyObject *unused) {
  (void)unused;
  bp_status st;
  Py_BEGIN_ALLOW_THREADS st = p_bp_tensor_wait(HANDLE(self));
  Py_END_ALLOW_THREADS
  if (st != BP_OK) return raise_status(st);
  Py_INCREF(self);
  return self;
}

static PyObject *tensor_is_contiguous(PyObject *self, PyObject *unused) {
  (void)unused;
  int32_t c;
  CHECK(p_bp_tensor_is_contiguous(HANDLE(self), &c));
  return PyBool_FromLong(c);
}

PyObject *int_tuple(const int64_t *v, int32_t n) {
  PyObject *t = PyTuple_New(n);
  if (!t) return NULL;
  for (int32_t i = 0; i < n; ++i) {
    PyObject *x = PyLong_FromLongLong(v[i]);
    if (!x) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SET_ITEM(t, i, x);
  }
  return t;
}

/* t.shape or t.strides: bp_tensor_shape and bp_tensor_strides share one
 * signature. */
typedef __typeof__(bp_tensor_shape) *extents_fn;
static PyObject *extents(PyObject *self, extents_fn *fn) {
  int32_t rank;
  int64_t v[BP_MAX_RANK];
  CHECK(p_bp_tensor_rank(HANDLE(self), &rank));
  if (rank > BP_MAX_RANK) rank = BP_MAX_RANK;
  CHECK((*fn)(HANDLE(self), v));
  return int_tuple(v, rank);
}
static PyObject *get_shape(PyObject *self, void *closure) {
  (void)closure;
  return extents(self, &p_bp_tensor_shape);
}
static PyObject *get_strides(PyObject *self, void *closure) {
  (void)closure;
  return extents(self, &p_bp_tensor_strides);
}

/* Getters of one number: get_<name> returns bp_tensor_<call>'s result. */
#define INT_GETTER(name, type, call)                               \
  static PyObject *get_##name(PyObject *self, void *closure) {     \
    (void)closure;                                                 \
    type v;                                                        \
    CHECK(p_bp_tensor_##call(HANDLE(self), &v));                   \
    return PyLong_FromLongLong((long long)v);                      \
  }
INT_GETTER(ndim, int32_t, rank)
INT_GETTER(size, int64_t, numel)
INT_GETTER(device_id, bp_device, device)
INT_GETTER(dtype_code, int32_t, dtype)
#undef INT_GETTER

static PyObject *get_handle(PyObject *self, void *closure) {
  (void)closure;
  return PyLong_FromUnsignedLongLong(HANDLE(self));
}

static PyMethodDef tensor_methods[] = {
    {"exp", tensor_exp, METH_NOARGS, "Elementwise e**x (integers become float64)."},
    {"square", tensor_square, METH_NOARGS, "Elementwise x*x (integers wrap)."},
    {"sin", tensor_sin, METH_NOARGS, "Elementwise sine (integers become float64)."},
    {"cos", tensor_cos, METH_NOARGS, "Elementwise cosine (integers become float64)."},
    {"log", tensor_log, METH_NOARGS, "Elementwise natural logarithm."},
    {"sqrt", tensor_sqrt, METH_NOARGS, "Elementwise square root."},
    {"tanh", tensor_tanh, METH_NOARGS, "Elementwise hyperbolic tangent."},
    {"sigmoid", tensor_sigmoid, METH_NOARGS, "Elementwise 1 / (1 + exp(-x))."},
    {"relu", tensor_relu, METH_NOARGS, "Elementwise max(x, 0)."},
    {"abs", tensor_abs, METH_NOARGS, "Elementwise absolute value."},
    {"wait", tensor_wait, METH_NOARGS,
     "Blocks until the work producing this tensor has finished; returns the tensor."},
    {"is_contiguous", tensor_is_contiguous, METH_NOARGS,
     "True when the elements are dense in C order."},
    {"__dlpack__", (PyCFunction)(void (*)(void))dlpack_export, METH_VARARGS | METH_KEYWORDS,
     "DLPack export of a tensor in host memory (cpu, reference); no copy."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef tensor_getset[] = {
    {"shape", get_shape, NULL, "Extents, a tuple of ints.", NULL},
    {"strides", get_strides, NULL, "Element (not byte) strides, a tuple of ints.", NULL},
    {"ndim", get_ndim, NULL, "Number of axes.", NULL},
    {"size", get_size, NULL, "Number of elements.", NULL},
    {"_device_id", get_device_id, NULL, "Runtime id of the device.", NULL},
    {"_dtype_code", get_dtype_code, NULL, "bp_dtype value.", NULL},
    {"_handle", get_handle, NULL, "The bp_tensor handle (an int).", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject TensorBase_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "backplane._C.TensorBase",
    .tp_basicsize = sizeof(TensorObject),
    .tp_dealloc = (destructor)tensor_dealloc,
    .tp_as_number = &tensor_as_number,
    .tp_hash = PyObject_HashNotImplemented,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A reference to one Backplane tensor (bp_tensor handle).",
    .tp_richcompare = tensor_richcompare,
    .tp_methods = tensor_methods,
    .tp_getset = tensor_getset,
    .tp_new = tensor_new,
};

/* ---- argument helpers ---------------------------------------------------- */

/* A sequence of ints into shape[]; returns the rank or -1 with an error. */
int get_shape_arg(PyObject *seq, int64_t *shape) {
  PyObject *fast = PySequence_Fast(seq, "shape must be a sequence of ints");
  if (!fast) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  if (n > MAX_SHAPE) {
    Py_DECREF(fast);
    PyErr_Format(PyExc_ValueError, "too many axes (%zd)", n);
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
    PyObject *index = PyNumber_Index(item);
    if (!index) {
      Py_DECREF(fast);
      return -1;
    }
    shape[i] = PyLong_AsLongLong(index);
    Py_DECREF(index);
    if (shape[i] == -1 && PyErr_Occurred()) {
      Py_DECREF(fast);
      return -1;
    }
  }
  Py_DECREF(fast);
  return (int)n;
}

int tensor_converter(PyObject *o, void *out) { return get_tensor(o, (bp_tensor *)out); }

/* A Python int into *v; 0 with an error set when it is not one. */
int int_arg(PyObject *o, long *v) {
  *v = PyLong_AsLong(o);
  return !(*v == -1 && PyErr_Occurred());
}
