/*
 * backplane._C — the CPython extension under the `backplane` package.
 *
 * Written against backplane/backplane.h only. It does not link against
 * libbackplane.so: backplane/_library.py finds the library (BACKPLANE_LIB,
 * next to the package, the build tree, the system search path) and calls
 * load(path), which dlopen()s it and resolves every bp_* function used here
 * into a table of pointers typed from the header's own declarations
 * (BP_FUNCTIONS in extension.h).
 *
 * What lives here is what must be fast or must be C:
 *   - TensorBase: a Python object owning one bp_tensor reference (released in
 *     tp_dealloc), with the arithmetic and comparison operators as type slots
 *     (a + b costs one bp_binary call and one object allocation), the unary
 *     float functions as methods, and the metadata getters.
 *   - one thin function per C API call, taking and returning plain ints,
 *     tuples and tensors; the Python layer (backplane/_tensor.py ...) holds
 *     the logic (devices, dtypes, indexing, reductions, repr).
 *   - the vocabulary of vocabulary.h as tuples (_C.statuses, _C.dtypes,
 *     _C.op_families, _C.ops), from which the Python layer makes its
 *     exception classes, dtype objects and operator numbers.
 *   - DLPack export (capsule with a retained handle) and import (host
 *     memory shared through bp_wrap_host, else a copy, or the tensor itself
 *     for memory it lent), in dlpack.c.
 * Every failure becomes the exception made by the error factory registered
 * from Python (backplane/_errors.py) out of the C API's structured error.
 */
#include "extension.h"

#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dlpack.h"

/* ---- the C API, resolved at load() -------------------------------------- */

#define BP_DEFINE_POINTER(name) __typeof__(name) *p_##name;
BP_FUNCTIONS(BP_DEFINE_POINTER)
#undef BP_DEFINE_POINTER

void *g_library;                   /* dlopen handle, never closed */
static PyObject *g_library_path;   /* str */
static PyTypeObject *g_tensor_cls; /* Python subclass results are made of */
static PyObject *g_error_factory;  /* callable(status, message, op, input, devices) */

PyObject *not_loaded(void) {
  PyErr_SetString(PyExc_RuntimeError,
                  "backplane: libbackplane.so is not loaded (backplane._C.load was not called)");
  return NULL;
}

/* ---- errors ------------------------------------------------------------- */

PyObject *raise_status(bp_status status) {
  const char *message = p_bp_last_error();
  const char *op = p_bp_last_error_op();
  int32_t input = p_bp_last_error_input();
  int32_t ndev = p_bp_last_error_device_count();
  if (ndev < 0) ndev = 0;
  PyObject *devices = PyTuple_New(ndev);
  if (!devices) return NULL;
  for (int32_t i = 0; i < ndev; ++i) {
    PyObject *d = PyLong_FromLong(p_bp_last_error_device(i));
    if (!d) {
      Py_DECREF(devices);
      return NULL;
    }
    PyTuple_SET_ITEM(devices, i, d);
  }
  if (!g_error_factory) {
    PyErr_Format(PyExc_RuntimeError, "%s: %s", p_bp_status_name(status), message ? message : "");
    Py_DECREF(devices);
    return NULL;
  }
  PyObject *exc = PyObject_CallFunction(g_error_factory, "isziN", (int)status,
                                        message ? message : "", op ? op : "", (int)input,
                                        devices);
  if (!exc) return NULL;
  PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
  Py_DECREF(exc);
  return NULL;
}

/* ---- tensor objects ------------------------------------------------------ */

static PyTypeObject TensorBase_Type;

#define IS_TENSOR(o) PyObject_TypeCheck((o), &TensorBase_Type)

/* Tensors are made of the Python subclass registered by set_hooks. */
PyObject *wrap(bp_tensor handle) {
  PyTypeObject *tp = g_tensor_cls ? g_tensor_cls : &TensorBase_Type;
  TensorObject *self = (TensorObject *)tp->tp_alloc(tp, 0);
  if (!self) {
    p_bp_tensor_release(handle);
    return NULL;
  }
  self->handle = handle;
  return (PyObject *)self;
}

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

static int get_tensor(PyObject *o, bp_tensor *out) {
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
static int get_scalar(PyObject *o, double *value, int32_t *kind) {
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
static PyObject *binary(int32_t op, PyObject *a, PyObject *b) {
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

static PyObject *unary(int32_t op, PyObject *a) {
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

static PyObject *int_tuple(const int64_t *v, int32_t n) {
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

static PyTypeObject TensorBase_Type = {
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
static int get_shape_arg(PyObject *seq, int64_t *shape) {
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

static int tensor_converter(PyObject *o, void *out) { return get_tensor(o, (bp_tensor *)out); }

/* A Python int into *v; 0 with an error set when it is not one. */
static int int_arg(PyObject *o, long *v) {
  *v = PyLong_AsLong(o);
  return !(*v == -1 && PyErr_Occurred());
}

/* ---- list helpers -------------------------------------------------------- */

/* Appends item (a new reference, or NULL after a failed build) to list and
 * drops the caller's reference to it. On failure the list is dropped too and
 * NULL returned with the error set; otherwise the list. */
static PyObject *append_or_drop(PyObject *list, PyObject *item) {
  if (!item || PyList_Append(list, item) < 0) Py_CLEAR(list);
  Py_XDECREF(item);
  return list;
}

/* The list of item(0, ctx) .. item(n - 1, ctx), each a new reference or NULL
 * with the error set (then the list is dropped and NULL returned). */
static PyObject *list_of(int32_t n, PyObject *(*item)(int32_t i, void *ctx), void *ctx) {
  PyObject *list = PyList_New(0);
  for (int32_t i = 0; list && i < n; ++i) list = append_or_drop(list, item(i, ctx));
  return list;
}

/* ---- module functions ---------------------------------------------------- */

static PyObject *m_load(PyObject *mod, PyObject *arg) {
  (void)mod;
  if (g_library) {
    Py_INCREF(g_library_path);
    return g_library_path;
  }
  PyObject *bytes;
  if (!PyUnicode_FSConverter(arg, &bytes)) return NULL;
  const char *path = PyBytes_AS_STRING(bytes);
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *err = dlerror();
    PyErr_Format(PyExc_OSError, "%s", err ? err : "dlopen failed");
    Py_DECREF(bytes);
    return NULL;
  }
#define BP_RESOLVE(name)                                                                  \
  *(void **)(&p_##name) = dlsym(lib, #name);                                              \
  if (!p_##name) {                                                                        \
    PyErr_Format(PyExc_OSError,                                                           \
                 "%s: missing symbol %s (library older than the headers this extension "  \
                 "was built with?)",                                                      \
                 path, #name);                                                            \
    dlclose(lib);                                                                         \
    Py_DECREF(bytes);                                                                     \
    return NULL;                                                                          \
  }
  BP_FUNCTIONS(BP_RESOLVE)
#undef BP_RESOLVE
  uint32_t version = p_bp_api_version();
  if ((version >> 16) != BP_API_VERSION_MAJOR) {
    PyErr_Format(PyExc_OSError,
                 "%s: C API version %u.%u, but this extension was built for %d.x", path,
                 version >> 16, version & 0xffffu, BP_API_VERSION_MAJOR);
    dlclose(lib);
    Py_DECREF(bytes);
    return NULL;
  }
  /* The file the dynamic linker opened (a bare name given to the system
   * search comes back as the path it found). */
  Dl_info info;
  PyObject *used = NULL;
  if (dladdr(__extension__(void *) p_bp_api_version, &info) && info.dli_fname)
    used = PyUnicode_DecodeFSDefault(info.dli_fname);
  if (!used) {
    PyErr_Clear();
    used = PyUnicode_DecodeFSDefault(path);
  }
  Py_DECREF(bytes);
  if (!used) return NULL;
  g_library = lib;
  g_library_path = used;
  Py_INCREF(g_library_path);
  return g_library_path;
}

static PyObject *m_set_hooks(PyObject *mod, PyObject *args) {
  (void)mod;
  PyObject *cls, *factory;
  if (!PyArg_ParseTuple(args, "OO:set_hooks", &cls, &factory)) return NULL;
  if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &TensorBase_Type)) {
    PyErr_SetString(PyExc_TypeError, "set_hooks: the class must derive from TensorBase");
    return NULL;
  }
  if (((PyTypeObject *)cls)->tp_basicsize != TensorBase_Type.tp_basicsize) {
    PyErr_SetString(PyExc_TypeError, "set_hooks: the class must declare __slots__ = ()");
    return NULL;
  }
  Py_INCREF(cls);
  Py_XSETREF(g_tensor_cls, (PyTypeObject *)cls);
  Py_INCREF(factory);
  Py_XSETREF(g_error_factory, factory);
  Py_RETURN_NONE;
}

/* ---- thin wrappers -----------------------------------------------------------
 * Calls of one shape, each defined by one line: WRAP_x(f) defines m_f over
 * p_bp_f. */

/* f() -> int, for the calls that cannot fail. */
#define WRAP_NUMBER(f)                                      \
  static PyObject *m_##f(PyObject *mod, PyObject *unused) { \
    (void)mod;                                              \
    (void)unused;                                           \
    REQUIRE_LOADED();                                       \
    return PyLong_FromLongLong((long long)p_bp_##f());      \
  }
WRAP_NUMBER(api_version)
WRAP_NUMBER(num_gpus)
WRAP_NUMBER(live_tensor_count)

/* f(number) -> str: the name the loaded library gives a status, dtype, op. */
#define WRAP_NAME(f)                                     \
  static PyObject *m_##f(PyObject *mod, PyObject *arg) { \
    (void)mod;                                           \
    REQUIRE_LOADED();                                    \
    long v;                                              \
    if (!int_arg(arg, &v)) return NULL;                  \
    return PyUnicode_FromString(p_bp_##f((int32_t)v));   \
  }
WRAP_NAME(status_name)
WRAP_NAME(dtype_name)
WRAP_NAME(op_name)

/* f() -> device id. */
#define WRAP_DEVICE(f)                                      \
  static PyObject *m_##f(PyObject *mod, PyObject *unused) { \
    (void)mod;                                              \
    (void)unused;                                           \
    REQUIRE_LOADED();                                       \
    bp_device d;                                            \
    CHECK(p_bp_##f(&d));                                    \
    return PyLong_FromLong(d);                              \
  }
WRAP_DEVICE(cpu)
WRAP_DEVICE(default_device)

/* f(i) -> device id: the i-th GPU. */
#define WRAP_GPU(f)                                      \
  static PyObject *m_##f(PyObject *mod, PyObject *arg) { \
    (void)mod;                                           \
    REQUIRE_LOADED();                                    \
    long i;                                              \
    bp_device d;                                         \
    if (!int_arg(arg, &i)) return NULL;                  \
    CHECK(p_bp_##f((int32_t)i, &d));                     \
    return PyLong_FromLong(d);                           \
  }
WRAP_GPU(gpu)
WRAP_GPU(try_gpu)

/* f() -> tuple of device ids (the calls that fill a caller's array). */
typedef __typeof__(bp_devices) *device_list_fn;
static PyObject *device_list(device_list_fn *fn) {
  REQUIRE_LOADED();
  int32_t n = 0;
  CHECK((*fn)(NULL, 0, &n));
  bp_device ids[256];
  if (n > 256) n = 256;
  CHECK((*fn)(ids, n, &n));
  if (n > 256) n = 256;
  int64_t wide[256];
  for (int32_t i = 0; i < n; ++i) wide[i] = ids[i];
  return int_tuple(wide, n);
}
#define WRAP_DEVICE_LIST(f)                                 \
  static PyObject *m_##f(PyObject *mod, PyObject *unused) { \
    (void)mod;                                              \
    (void)unused;                                           \
    return device_list(&p_bp_##f);                          \
  }
WRAP_DEVICE_LIST(devices)
WRAP_DEVICE_LIST(try_all_gpus)

/* f(t) -> tensor: the views and copies that take no other argument. */
#define WRAP_TENSOR(f)                                   \
  static PyObject *m_##f(PyObject *mod, PyObject *arg) { \
    (void)mod;                                           \
    bp_tensor t, out;                                    \
    if (!get_tensor(arg, &t)) return NULL;               \
    CHECK(p_bp_##f(t, &out));                            \
    return wrap(out);                                    \
  }
WRAP_TENSOR(transpose)
WRAP_TENSOR(contiguous)
WRAP_TENSOR(detach)

/* ---- runtime ---------------------------------------------------------------- */

static PyObject *m_init(PyObject *mod, PyObject *args) {
  (void)mod;
  REQUIRE_LOADED();
  PyObject *path = Py_None, *bytes = NULL;
  if (!PyArg_ParseTuple(args, "|O:init", &path)) return NULL;
  if (path != Py_None && !PyUnicode_FSConverter(path, &bytes)) return NULL;
  bp_status st = p_bp_init(bytes ? PyBytes_AS_STRING(bytes) : NULL);
  Py_XDECREF(bytes);
  CHECK(st);
  Py_RETURN_NONE;
}

static PyObject *m_init_from_string(PyObject *mod, PyObject *args) {
  (void)mod;
  REQUIRE_LOADED();
  const char *text, *name;
  if (!PyArg_ParseTuple(args, "ss:init_from_string", &text, &name)) return NULL;
  CHECK(p_bp_init_from_string(text, name));
  Py_RETURN_NONE;
}

static PyObject *config_entry_item(int32_t i, void *unused) {
  (void)unused;
  const char *k, *v, *o;
  CHECK(p_bp_config_entry(i, &k, &v, &o));
  return Py_BuildValue("(sss)", k, v, o);
}

static PyObject *m_config_entries(PyObject *mod, PyObject *unused) {
  (void)mod;
  (void)unused;
  REQUIRE_LOADED();
  return list_of(p_bp_config_count(), config_entry_item, NULL);
}

static PyObject *plugin_report_item(int32_t i, void *count_devices) {
  bp_plugin_report r = {.struct_size = sizeof r};
  CHECK(p_bp_plugin_report_get(i, *(int *)count_devices, &r));
  return Py_BuildValue("(Nssssi)", PyBool_FromLong(r.loaded), r.path ? r.path : "",
                       r.name ? r.name : "", r.version ? r.version : "", r.reason ? r.reason : "",
                       (int)r.device_count);
}

static PyObject *m_plugin_reports(PyObject *mod, PyObject *args) {
  (void)mod;
  REQUIRE_LOADED();
  int count_devices = 0;
  if (!PyArg_ParseTuple(args, "|p:plugin_reports", &count_devices)) return NULL;
  return list_of(p_bp_plugin_report_count(), plugin_report_item, &count_devices);
}

static PyObject *m_device_get(PyObject *mod, PyObject *arg) {
  (void)mod;
  REQUIRE_LOADED();
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name) return NULL;
  bp_device d;
  CHECK(p_bp_device_get(name, &d));
  return PyLong_FromLong(d);
}

static PyObject *m_device_info(PyObject *mod, PyObject *arg) {
  (void)mod;
  REQUIRE_LOADED();
  long id;
  if (!int_arg(arg, &id)) return NULL;
  bp_device_info info = {.struct_size = sizeof info};
  CHECK(p_bp_device_info_get((bp_device)id, &info));
  return Py_BuildValue("{s:s,s:s,s:i,s:N,s:i,s:s,s:s,s:K,s:K,s:K}", "name", info.name,
                       "backend", info.backend, "kind", info.kind, "is_accelerator",
                       PyBool_FromLong(info.is_accelerator), "index", info.index, "model",
                       info.model ? info.model : "", "plugin_path",
                       info.plugin_path ? info.plugin_path : "",
                       "memory_total", (unsigned long long)info.memory_total, "memory_free",
                       (unsigned long long)info.memory_free, "memory_in_use",
                       (unsigned long long)info.memory_in_use);
}

static PyObject *m_device_properties(PyObject *mod, PyObject *arg) {
  (void)mod;
  REQUIRE_LOADED();
  long id;
  if (!int_arg(arg, &id)) return NULL;
  /* The count written never exceeds the capacity, so a full array may mean
   * more: ask again with twice the room. */
  int32_t capacity = 32, n = 0;
  bp_property *props = NULL;
  for (;;) {
    bp_property *grown = (bp_property *)realloc(props, (size_t)capacity * sizeof(bp_property));
    if (!grown) {
      free(props);
      return PyErr_NoMemory();
    }
    props = grown;
    memset(props, 0, (size_t)capacity * sizeof(bp_property));
    bp_status st = p_bp_device_properties((bp_device)id, props, capacity, &n);
    if (st != BP_OK) {
      free(props);
      return raise_status(st);
    }
    if (n < capacity || capacity >= 4096) break;
    capacity *= 2;
  }
  PyObject *list = PyList_New(0);
  for (int32_t i = 0; list && i < n; ++i) {
    props[i].key[sizeof props[i].key - 1] = 0;
    props[i].value[sizeof props[i].value - 1] = 0;
    list = append_or_drop(list, Py_BuildValue("(ss)", props[i].key, props[i].value));
  }
  free(props);
  return list;
}

static PyObject *m_synchronize(PyObject *mod, PyObject *arg) {
  (void)mod;
  REQUIRE_LOADED();
  long id;
  if (!int_arg(arg, &id)) return NULL;
  bp_status st;
  Py_BEGIN_ALLOW_THREADS st = p_bp_synchronize((bp_device)id);
  Py_END_ALLOW_THREADS
  CHECK(st);
  Py_RETURN_NONE;
}

/* empty/zeros/ones(device, dtype, shape) */
/* bp_empty, bp_zeros and bp_ones share one signature. */
typedef __typeof__(bp_empty) *fill_fn;
static PyObject *creation(fill_fn *fn, PyObject *args, const char *fmt) {
  REQUIRE_LOADED();
  int device, dtype;
  PyObject *shape_obj;
  if (!PyArg_ParseTuple(args, fmt, &device, &dtype, &shape_obj)) return NULL;
  int64_t shape[MAX_SHAPE];
  int rank = get_shape_arg(shape_obj, shape);
  if (rank < 0) return NULL;
  bp_tensor out;
  CHECK((*fn)(device, dtype, rank, shape, &out));
  return wrap(out);
}
#define WRAP_CREATION(f)                                  \
  static PyObject *m_##f(PyObject *mod, PyObject *args) { \
    (void)mod;                                            \
    return creation(&p_bp_##f, args, "iiO:" #f);          \
  }
WRAP_CREATION(empty)
WRAP_CREATION(zeros)
WRAP_CREATION(ones)

static PyObject *m_full(PyObject *mod, PyObject *args) {
  (void)mod;
  REQUIRE_LOADED();
  int device, dtype;
  PyObject *shape_obj;
  double value;
  if (!PyArg_ParseTuple(args, "iiOd:full", &device, &dtype, &shape_obj, &value)) return NULL;
  int64_t shape[MAX_SHAPE];
  int rank = get_shape_arg(shape_obj, shape);
  if (rank < 0) return NULL;
  bp_tensor out;
  CHECK(p_bp_full(device, dtype, rank, shape, value, &out));
  return wrap(out);
}

static PyObject *m_arange(PyObject *mod, PyObject *args) {
  (void)mod;
  REQUIRE_LOADED();
  int device, dtype;
  double start, stop, step;
  if (!PyArg_ParseTuple(args, "iiddd:arange", &device, &dtype, &start, &stop, &step)) return NULL;
  bp_tensor out;
  CHECK(p_bp_arange(device, dtype, start, stop, step, &out));
  return wrap(out);
}

/* random_uniform/normal(device, dtype, shape, p0, p1, seed): the two calls
 * share one signature. */
typedef __typeof__(bp_random_uniform) *random_fn;
static PyObject *random_tensor(random_fn *fn, PyObject *args) {
  REQUIRE_LOADED();
  int device, dtype;
  PyObject *shape_obj;
  double p0, p1;
  unsigned long long seed;
  if (!PyArg_ParseTuple(args, "iiOddK:random", &device, &dtype, &shape_obj, &p0, &p1, &seed))
    return NULL;
  int64_t shape[MAX_SHAPE];
  int rank = get_shape_arg(shape_obj, shape);
  if (rank < 0) return NULL;
  bp_tensor out;
  CHECK((*fn)(device, dtype, rank, shape, p0, p1, (uint64_t)seed, &out));
  return wrap(out);
}
static PyObject *m_random_integers(PyObject *mod, PyObject *args) {
  (void)mod;
  REQUIRE_LOADED();
  int device, dtype;
  PyObject *shape_obj;
  long long low, high;
  unsigned long long seed;
  if (!PyArg_ParseTuple(args, "iiOLLK:random_integers", &device, &dtype, &shape_obj, &low, &high, &seed))
    return NULL;
  int64_t shape[MAX_SHAPE];
  int rank = get_shape_arg(shape_obj, shape);
  if (rank < 0) return NULL;
  bp_tensor out;
  CHECK(p_bp_random_integers(device, dtype, rank, shape, low, high, (uint64_t)seed, &out));
  return wrap(out);
}
#define WRAP_RANDOM(f)                                    \
  static PyObject *m_##f(PyObject *mod, PyObject *args) { \
    (void)mod;                                            \
    return random_tensor(&p_bp_##f, args);                \
  }
WRAP_RANDOM(random_uniform)
WRAP_RANDOM(random_normal)

int64_t shape_numel(const int64_t *shape, int rank) {
  int64_t n = 1;
  for (int i = 0; i < rank; ++i) n *= shape[i];
  return n;
}

/* from_buffer(device, dtype, shape, obj): obj exposes a C-contiguous buffer
 * (a NumPy array, bytes, array.array) of exactly numel * itemsize bytes. */
static PyObject *m_from_buffer(PyObject *mod, PyObject *args) {
  (void)mod;
  REQUIRE_LOADED();
  int device, dtype;
  PyObject *shape_obj, *obj;
  if (!PyArg_ParseTuple(args, "iiOO:from_buffer", &device, &dtype, &shape_obj, &obj)) return NULL;
  int64_t shape[MAX_SHAPE];
  int rank = get_shape_arg(shape_obj, shape);
  if (rank < 0) return NULL;
  Py_buffer view;
  if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS) < 0) return NULL;
  int64_t need = shape_numel(shape, rank) * (int64_t)p_bp_dtype_size((int32_t)dtype);
  if (need >= 0 && view.len != (Py_ssize_t)need) {
    PyErr_Format(PyExc_ValueError, "from_buffer: buffer has %zd bytes, the tensor needs %lld",
                 view.len, (long long)need);
    PyBuffer_Release(&view);
    return NULL;
  }
  bp_tensor out;
  bp_status st;
  Py_BEGIN_ALLOW_THREADS st = p_bp_from_host(device, dtype, rank, shape, view.buf, &out);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&view);
  CHECK(st);
  return wrap(out);
}

/* to_buffer(t, obj): copies t in C order into obj's writable buffer. */
static PyObject *m_to_buffer(PyObject *mod, PyObject *args) {
  (void)mod;
  REQUIRE_LOADED();
  bp_tensor t;
  PyObject *obj;
  if (!PyArg_ParseTuple(args, "O&O:to_buffer", tensor_converter, &t, &obj)) return NULL;
  Py_buffer view;
  if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) return NULL;
  bp_status st;
  Py_BEGIN_ALLOW_THREADS st = p_bp_to_host(t, view.buf, (uint64_t)view.len);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&view);
  CHECK(st);
  Py_RETURN_NONE;
}

static PyObject *m_host_address(PyObject *mod, PyObject *arg) {
  (void)mod;
  REQUIRE_LOADED();
  bp_tensor t;
  if (!get_tensor(arg, &t)) return NULL;
  void *address;
  CHECK(p_bp_tensor_host_address(t, &address));
  return PyLong_FromVoidPtr(address);
}

/* ---- views and transfers ------------------------------------------------ */

/* The (t, ints) arguments of reshape and permute: the tensor into *t and the
 * sequence into ints[]; returns how many ints, or -1 with an error. `format`
 * is "O&O:<function name>". */
static int tensor_and_ints(PyObject *args, const char *format, bp_tensor *t, int64_t *ints) {
  PyObject *seq;
  if (!PyArg_ParseTuple(args, format, tensor_converter, t, &seq)) return -1;
  return get_shape_arg(seq, ints);
}

static PyObject *m_reshape(PyObject *mod, PyObject *args) {
  (void)mod;
  bp_tensor t, out;
  int64_t shape[MAX_SHAPE];
  int rank = tensor_and_ints(args, "O&O:reshape", &t, shape);
  if (rank < 0) return NULL;
  CHECK(p_bp_reshape(t, rank, shape, &out));
  return wrap(out);
}

static PyObject *m_permute(PyObject *mod, PyObject *args) {
  (void)mod;
  bp_tensor t;
  int64_t axes64[MAX_SHAPE];
  int n = tensor_and_ints(args, "O&O:permute", &t, axes64);
  if (n < 0) return NULL;
  int32_t rank;
  CHECK(p_bp_tensor_rank(t, &rank));
  if (n != rank) {
    PyErr_Format(PyExc_ValueError, "permute: %d axes given for a tensor of rank %d", n, rank);
    return NULL;
  }
  int32_t axes[MAX_SHAPE];
  for (int i = 0; i < n; ++i) axes[i] = (int32_t)axes64[i];
  bp_tensor out;
  CHECK(p_bp_permute(t, axes, &out));
  return wrap(out);
}

/* The (t, axis, n ints) arguments of slice and select: 0 with an error unless
 * t is a tensor and the rest are ints. */
static int tensor_axis_ints(PyObject *const *args, bp_tensor *t, int32_t *axis, long long *ints,
                            int n) {
  if (!get_tensor(args[0], t)) return 0;
  *axis = (int32_t)PyLong_AsLong(args[1]);
  for (int i = 0; i < n; ++i) ints[i] = PyLong_AsLongLong(args[2 + i]);
  return !PyErr_Occurred();
}

static PyObject *m_slice(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  if (nargs != 5) return PyErr_Format(PyExc_TypeError, "slice(t, axis, start, stop, step)");
  bp_tensor t, out;
  int32_t axis;
  long long range[3]; /* start, stop, step */
  if (!tensor_axis_ints(args, &t, &axis, range, 3)) return NULL;
  CHECK(p_bp_slice(t, axis, range[0], range[1], range[2], &out));
  return wrap(out);
}

static PyObject *m_select(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  if (nargs != 3) return PyErr_Format(PyExc_TypeError, "select(t, axis, index)");
  bp_tensor t, out;
  int32_t axis;
  long long index;
  if (!tensor_axis_ints(args, &t, &axis, &index, 1)) return NULL;
  CHECK(p_bp_select(t, axis, index, &out));
  return wrap(out);
}

/* copy_to(t, device) always copies; to(t, device) returns t itself when it
 * already lives there. The two calls share one signature. */
typedef __typeof__(bp_copy_to) *transfer_fn;
static PyObject *transfer(transfer_fn *fn, PyObject *const *args, Py_ssize_t nargs) {
  if (nargs != 2) return PyErr_Format(PyExc_TypeError, "expected (tensor, device id)");
  bp_tensor t, out;
  if (!get_tensor(args[0], &t)) return NULL;
  long dev;
  if (!int_arg(args[1], &dev)) return NULL;
  bp_status st;
  Py_BEGIN_ALLOW_THREADS st = (*fn)(t, (bp_device)dev, &out);
  Py_END_ALLOW_THREADS
  CHECK(st);
  if (out == t) {
    /* bp_to gave the same handle (a new reference): keep the object too. */
    p_bp_tensor_release(out);
    Py_INCREF(args[0]);
    return args[0];
  }
  return wrap(out);
}
#define WRAP_TRANSFER(f)                                                             \
  static PyObject *m_##f(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) { \
    (void)mod;                                                                       \
    return transfer(&p_bp_##f, args, nargs);                                         \
  }
WRAP_TRANSFER(copy_to)
WRAP_TRANSFER(to)

/* ---- operators ---------------------------------------------------------- */

/* binary(op, a, b): tensors or scalars; TypeError when neither is a tensor. */
static PyObject *m_binary(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  long op;
  if (nargs != 3) return PyErr_Format(PyExc_TypeError, "binary(op, a, b)");
  if (!int_arg(args[0], &op)) return NULL;
  PyObject *r = binary((int32_t)op, args[1], args[2]);
  if (r == Py_NotImplemented) {
    Py_DECREF(r);
    return PyErr_Format(PyExc_TypeError,
                        "%s: unsupported operands %.100s and %.100s (tensors on one device, "
                        "or a tensor and a Python number)",
                        p_bp_op_name((int32_t)op), Py_TYPE(args[1])->tp_name,
                        Py_TYPE(args[2])->tp_name);
  }
  return r;
}

/* binary_out(op, a, b, out): a/b tensors or scalars (not both scalars). */
static PyObject *m_binary_out(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  long op;
  bp_tensor out;
  double s;
  int32_t kind;
  if (nargs != 4) return PyErr_Format(PyExc_TypeError, "binary_out(op, a, b, out)");
  if (!int_arg(args[0], &op) || !get_tensor(args[3], &out)) return NULL;
  PyObject *a = args[1], *b = args[2];
  if (IS_TENSOR(a) && IS_TENSOR(b))
    CHECK(p_bp_binary_out((int32_t)op, HANDLE(a), HANDLE(b), out));
  else if (IS_TENSOR(a) && get_scalar(b, &s, &kind))
    CHECK(p_bp_binary_scalar_kind_out((int32_t)op, HANDLE(a), s, kind, 0, out));
  else if (IS_TENSOR(b) && get_scalar(a, &s, &kind))
    CHECK(p_bp_binary_scalar_kind_out((int32_t)op, HANDLE(b), s, kind, 1, out));
  else
    return PyErr_Format(PyExc_TypeError, "binary_out: unsupported operands");
  Py_INCREF(args[3]);
  return args[3];
}

static PyObject *m_unary(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  long op;
  bp_tensor a, out;
  if (nargs != 2) return PyErr_Format(PyExc_TypeError, "unary(op, a)");
  if (!int_arg(args[0], &op) || !get_tensor(args[1], &a)) return NULL;
  CHECK(p_bp_unary((int32_t)op, a, &out));
  return wrap(out);
}

static PyObject *m_unary_out(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  long op;
  bp_tensor a, out;
  if (nargs != 3) return PyErr_Format(PyExc_TypeError, "unary_out(op, a, out)");
  if (!int_arg(args[0], &op) || !get_tensor(args[1], &a) || !get_tensor(args[2], &out))
    return NULL;
  CHECK(p_bp_unary_out((int32_t)op, a, out));
  Py_INCREF(args[2]);
  return args[2];
}

static PyObject *m_where(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor c, a, b, out;
  if (nargs != 3 && nargs != 4) return PyErr_Format(PyExc_TypeError, "where(c, a, b[, out])");
  if (!get_tensor(args[0], &c) || !get_tensor(args[1], &a) || !get_tensor(args[2], &b))
    return NULL;
  if (nargs == 4) {
    if (!get_tensor(args[3], &out)) return NULL;
    CHECK(p_bp_where_out(c, a, b, out));
    Py_INCREF(args[3]);
    return args[3];
  }
  CHECK(p_bp_where(c, a, b, &out));
  return wrap(out);
}

static PyObject *m_reduce(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  long op;
  bp_tensor a, out;
  if (nargs != 4 && nargs != 5)
    return PyErr_Format(PyExc_TypeError, "reduce(op, a, axis, keepdims[, out])");
  if (!int_arg(args[0], &op) || !get_tensor(args[1], &a)) return NULL;
  long axis;
  if (!int_arg(args[2], &axis)) return NULL;
  int keep = PyObject_IsTrue(args[3]);
  if (keep < 0) return NULL;
  if (nargs == 5 && args[4] != Py_None) {
    if (!get_tensor(args[4], &out)) return NULL;
    CHECK(p_bp_reduce_out((int32_t)op, a, (int32_t)axis, keep, out));
    Py_INCREF(args[4]);
    return args[4];
  }
  CHECK(p_bp_reduce((int32_t)op, a, (int32_t)axis, keep, &out));
  return wrap(out);
}

static PyObject *m_scan(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  long op, axis;
  bp_tensor a, out;
  if (nargs != 3 && nargs != 4) return PyErr_Format(PyExc_TypeError, "scan(op, a, axis[, out])");
  if (!int_arg(args[0], &op) || !get_tensor(args[1], &a) || !int_arg(args[2], &axis)) return NULL;
  if (nargs == 4 && args[3] != Py_None) {
    if (!get_tensor(args[3], &out)) return NULL;
    CHECK(p_bp_scan_out((int32_t)op, a, (int32_t)axis, out));
    Py_INCREF(args[3]);
    return args[3];
  }
  CHECK(p_bp_scan((int32_t)op, a, (int32_t)axis, &out));
  return wrap(out);
}

static PyObject *m_gather_nd(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor a, index, out;
  if (nargs != 2) return PyErr_Format(PyExc_TypeError, "gather_nd(a, index)");
  if (!get_tensor(args[0], &a) || !get_tensor(args[1], &index)) return NULL;
  bp_status st;
  /* Reads the index's range back: may wait for the device. */
  Py_BEGIN_ALLOW_THREADS st = p_bp_gather_nd(a, index, &out);
  Py_END_ALLOW_THREADS
  CHECK(st);
  return wrap(out);
}

static PyObject *m_scatter_nd(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor dst, index, values;
  if (nargs != 3) return PyErr_Format(PyExc_TypeError, "scatter_nd(dst, index, values)");
  if (!get_tensor(args[0], &dst) || !get_tensor(args[1], &index) || !get_tensor(args[2], &values))
    return NULL;
  bp_status st;
  Py_BEGIN_ALLOW_THREADS st = p_bp_scatter_nd(dst, index, values);
  Py_END_ALLOW_THREADS
  CHECK(st);
  Py_RETURN_NONE;
}

static PyObject *m_scatter_add_nd(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor dst, index, values;
  if (nargs != 3) return PyErr_Format(PyExc_TypeError, "scatter_add_nd(dst, index, values)");
  if (!get_tensor(args[0], &dst) || !get_tensor(args[1], &index) || !get_tensor(args[2], &values))
    return NULL;
  bp_status st;
  Py_BEGIN_ALLOW_THREADS st = p_bp_scatter_add_nd(dst, index, values);
  Py_END_ALLOW_THREADS
  CHECK(st);
  Py_RETURN_NONE;
}

static PyObject *m_nonzero(PyObject *mod, PyObject *arg) {
  (void)mod;
  bp_tensor a, out;
  if (!get_tensor(arg, &a)) return NULL;
  bp_status st;
  Py_BEGIN_ALLOW_THREADS st = p_bp_nonzero(a, &out);
  Py_END_ALLOW_THREADS
  CHECK(st);
  return wrap(out);
}

static PyObject *m_expand_dims(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor t, out;
  long axis;
  if (nargs != 2) return PyErr_Format(PyExc_TypeError, "expand_dims(t, axis)");
  if (!get_tensor(args[0], &t) || !int_arg(args[1], &axis)) return NULL;
  CHECK(p_bp_expand_dims(t, (int32_t)axis, &out));
  return wrap(out);
}

/* The handles of a sequence of tensors, in a PyMem block the caller frees
 * (NULL with an exception set on failure). The sequence keeps the tensors
 * alive for as long as the caller holds it. */
static bp_tensor *handles_of(PyObject *seq, Py_ssize_t *n) {
  *n = PySequence_Fast_GET_SIZE(seq);
  bp_tensor *handles = PyMem_Malloc(sizeof(bp_tensor) * (size_t)(*n > 0 ? *n : 1));
  if (!handles) {
    PyErr_NoMemory();
    return NULL;
  }
  for (Py_ssize_t i = 0; i < *n; ++i) {
    if (!get_tensor(PySequence_Fast_GET_ITEM(seq, i), &handles[i])) {
      PyMem_Free(handles);
      return NULL;
    }
  }
  return handles;
}

/* join(stack, [tensors], axis): bp_stack or bp_concatenate of the sequence's
 * handles. */
static PyObject *m_join(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  long stack, axis;
  if (nargs != 3) return PyErr_Format(PyExc_TypeError, "join(stack, tensors, axis)");
  if (!int_arg(args[0], &stack) || !int_arg(args[2], &axis)) return NULL;
  PyObject *seq = PySequence_Fast(args[1], "join: tensors must be a sequence");
  if (!seq) return NULL;
  Py_ssize_t n;
  bp_tensor *handles = handles_of(seq, &n);
  if (!handles) {
    Py_DECREF(seq);
    return NULL;
  }
  bp_tensor out;
  bp_status st = stack ? p_bp_stack(handles, (int32_t)n, (int32_t)axis, &out)
                       : p_bp_concatenate(handles, (int32_t)n, (int32_t)axis, &out);
  PyMem_Free(handles);
  Py_DECREF(seq);
  CHECK(st);
  return wrap(out);
}

/* collective(kind, [tensors], arg): across the devices of this process.
 * all_reduce (arg: the reduce op) and broadcast (arg: the root) write in
 * place and return None; all_gather and reduce_scatter (arg: the reduce op)
 * return a list of new tensors. Runs without the GIL: staging may copy a
 * lot. */
static PyObject *m_collective(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  long kind, arg;
  if (nargs != 3) return PyErr_Format(PyExc_TypeError, "collective(kind, tensors, arg)");
  if (!int_arg(args[0], &kind) || !int_arg(args[2], &arg)) return NULL;
  PyObject *seq = PySequence_Fast(args[1], "collective: tensors must be a sequence");
  if (!seq) return NULL;
  Py_ssize_t n;
  bp_tensor *handles = handles_of(seq, &n);
  bp_tensor *outs = handles ? PyMem_Malloc(sizeof(bp_tensor) * (size_t)(n > 0 ? n : 1)) : NULL;
  if (!outs) {
    if (handles) {
      PyMem_Free(handles);
      PyErr_NoMemory();
    }
    Py_DECREF(seq);
    return NULL;
  }
  bp_status st;
  Py_BEGIN_ALLOW_THREADS switch (kind) {
    case BP_COLLECTIVE_ALL_REDUCE: st = p_bp_all_reduce(handles, (int32_t)n, (int32_t)arg); break;
    case BP_COLLECTIVE_BROADCAST: st = p_bp_broadcast(handles, (int32_t)n, (int32_t)arg); break;
    case BP_COLLECTIVE_ALL_GATHER: st = p_bp_all_gather(handles, (int32_t)n, outs); break;
    default: st = p_bp_reduce_scatter(handles, (int32_t)n, (int32_t)arg, outs); break;
  }
  Py_END_ALLOW_THREADS
  PyMem_Free(handles);
  Py_DECREF(seq);
  if (st != BP_OK) {
    PyMem_Free(outs);
    CHECK(st);
  }
  if (kind == BP_COLLECTIVE_ALL_REDUCE || kind == BP_COLLECTIVE_BROADCAST) {
    PyMem_Free(outs);
    Py_RETURN_NONE;
  }
  PyObject *list = PyList_New(n);
  if (!list) {
    for (Py_ssize_t j = 0; j < n; ++j) p_bp_tensor_release(outs[j]);
    PyMem_Free(outs);
    return NULL;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *t = wrap(outs[i]);
    if (!t) {
      /* wrap released what it could not wrap; release the rest too. */
      for (Py_ssize_t j = i + 1; j < n; ++j) p_bp_tensor_release(outs[j]);
      Py_DECREF(list);
      PyMem_Free(outs);
      return NULL;
    }
    PyList_SET_ITEM(list, i, t);
  }
  PyMem_Free(outs);
  return list;
}

/* ---- across processes (bp_dist_*): every call releases the GIL, since it
 * waits for the other ranks ---------------------------------------------- */

static PyObject *m_dist_init(PyObject *mod, PyObject *arg) {
  (void)mod;
  bp_dist_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.timeout_seconds = PyFloat_AsDouble(arg);
  if (PyErr_Occurred()) return NULL;
  bp_status st;
  Py_BEGIN_ALLOW_THREADS st = p_bp_dist_init(&o);
  Py_END_ALLOW_THREADS
  CHECK(st);
  Py_RETURN_NONE;
}

static PyObject *m_dist_finalize(PyObject *mod, PyObject *unused) {
  (void)mod;
  (void)unused;
  bp_status st;
  Py_BEGIN_ALLOW_THREADS st = p_bp_dist_finalize();
  Py_END_ALLOW_THREADS
  CHECK(st);
  Py_RETURN_NONE;
}

static PyObject *m_dist_barrier(PyObject *mod, PyObject *unused) {
  (void)mod;
  (void)unused;
  bp_status st;
  Py_BEGIN_ALLOW_THREADS st = p_bp_dist_barrier();
  Py_END_ALLOW_THREADS
  CHECK(st);
  Py_RETURN_NONE;
}

/* dist_info() -> (rank, size, local_rank, local_size) */
static PyObject *m_dist_info(PyObject *mod, PyObject *unused) {
  (void)mod;
  (void)unused;
  int32_t rank, size, local_rank, local_size;
  CHECK(p_bp_dist_rank(&rank));
  CHECK(p_bp_dist_size(&size));
  CHECK(p_bp_dist_local_rank(&local_rank));
  CHECK(p_bp_dist_local_size(&local_size));
  return Py_BuildValue("(iiii)", rank, size, local_rank, local_size);
}

/* dist_collective(kind, tensor, arg): as collective() with one tensor per
 * process; all_gather and reduce_scatter return the new tensor. */
static PyObject *m_dist_collective(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  long kind, arg;
  bp_tensor t, out = 0;
  if (nargs != 3) return PyErr_Format(PyExc_TypeError, "dist_collective(kind, tensor, arg)");
  if (!int_arg(args[0], &kind) || !get_tensor(args[1], &t) || !int_arg(args[2], &arg)) return NULL;
  bp_status st;
  Py_BEGIN_ALLOW_THREADS switch (kind) {
    case BP_COLLECTIVE_ALL_REDUCE: st = p_bp_dist_all_reduce(t, (int32_t)arg); break;
    case BP_COLLECTIVE_BROADCAST: st = p_bp_dist_broadcast(t, (int32_t)arg); break;
    case BP_COLLECTIVE_ALL_GATHER: st = p_bp_dist_all_gather(t, &out); break;
    default: st = p_bp_dist_reduce_scatter(t, (int32_t)arg, &out); break;
  }
  Py_END_ALLOW_THREADS
  CHECK(st);
  if (!out) Py_RETURN_NONE;
  return wrap(out);
}

static PyObject *m_eye(PyObject *mod, PyObject *args) {
  (void)mod;
  int device, dtype;
  long long n, m, k;
  if (!PyArg_ParseTuple(args, "iiLLL:eye", &device, &dtype, &n, &m, &k)) return NULL;
  bp_tensor out;
  CHECK(p_bp_eye(device, dtype, n, m, k, &out));
  return wrap(out);
}

static PyObject *m_linspace(PyObject *mod, PyObject *args) {
  (void)mod;
  int device, dtype, endpoint;
  double start, stop;
  long long num;
  if (!PyArg_ParseTuple(args, "iiddLp:linspace", &device, &dtype, &start, &stop, &num, &endpoint))
    return NULL;
  bp_tensor out;
  CHECK(p_bp_linspace(device, dtype, start, stop, num, endpoint, &out));
  return wrap(out);
}

static PyObject *m_clip(PyObject *mod, PyObject *args) {
  (void)mod;
  bp_tensor a, out;
  PyObject *t;
  double low, high;
  if (!PyArg_ParseTuple(args, "Odd:clip", &t, &low, &high) || !get_tensor(t, &a)) return NULL;
  CHECK(p_bp_clip(a, low, high, &out));
  return wrap(out);
}

/* moments(std, a, axis, keepdims, ddof): bp_var, or bp_std when std is true. */
static PyObject *m_moments(PyObject *mod, PyObject *args) {
  (void)mod;
  bp_tensor a, out;
  PyObject *t;
  int std, axis, keepdims;
  double ddof;
  if (!PyArg_ParseTuple(args, "pOipd:moments", &std, &t, &axis, &keepdims, &ddof) ||
      !get_tensor(t, &a))
    return NULL;
  CHECK(std ? p_bp_std(a, axis, keepdims, ddof, &out) : p_bp_var(a, axis, keepdims, ddof, &out));
  return wrap(out);
}

static PyObject *m_softmax(PyObject *mod, PyObject *args) {
  (void)mod;
  bp_tensor a, out;
  PyObject *t;
  int axis;
  if (!PyArg_ParseTuple(args, "Oi:softmax", &t, &axis) || !get_tensor(t, &a)) return NULL;
  CHECK(p_bp_softmax(a, axis, &out));
  return wrap(out);
}

static PyObject *m_allclose(PyObject *mod, PyObject *args) {
  (void)mod;
  bp_tensor a, b;
  PyObject *ta, *tb;
  double rtol, atol;
  int equal_nan;
  if (!PyArg_ParseTuple(args, "OOddp:allclose", &ta, &tb, &rtol, &atol, &equal_nan) ||
      !get_tensor(ta, &a) || !get_tensor(tb, &b))
    return NULL;
  int32_t result = 0;
  bp_status st;
  Py_BEGIN_ALLOW_THREADS st = p_bp_allclose(a, b, rtol, atol, equal_nan, &result);
  Py_END_ALLOW_THREADS
  CHECK(st);
  return PyBool_FromLong(result);
}

static PyObject *m_norm(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor a, out;
  if (nargs != 1 && nargs != 2) return PyErr_Format(PyExc_TypeError, "norm(a[, out])");
  if (!get_tensor(args[0], &a)) return NULL;
  if (nargs == 2 && args[1] != Py_None) {
    if (!get_tensor(args[1], &out)) return NULL;
    CHECK(p_bp_norm_out(a, out));
    Py_INCREF(args[1]);
    return args[1];
  }
  CHECK(p_bp_norm(a, &out));
  return wrap(out);
}

static PyObject *m_matmul(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor a, b, out;
  if (nargs != 4 && nargs != 5)
    return PyErr_Format(PyExc_TypeError, "matmul(a, b, transpose_a, transpose_b[, out])");
  if (!get_tensor(args[0], &a) || !get_tensor(args[1], &b)) return NULL;
  int ta = PyObject_IsTrue(args[2]), tb = PyObject_IsTrue(args[3]);
  if (ta < 0 || tb < 0) return NULL;
  if (nargs == 5 && args[4] != Py_None) {
    if (!get_tensor(args[4], &out)) return NULL;
    CHECK(p_bp_matmul_out(a, b, ta, tb, out));
    Py_INCREF(args[4]);
    return args[4];
  }
  CHECK(p_bp_matmul(a, b, ta, tb, &out));
  return wrap(out);
}

static PyObject *m_cast(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor a, out;
  if (nargs != 2) return PyErr_Format(PyExc_TypeError, "cast(a, dtype)");
  if (!get_tensor(args[0], &a)) return NULL;
  long dtype;
  if (!int_arg(args[1], &dtype)) return NULL;
  CHECK(p_bp_cast(a, (int32_t)dtype, &out));
  return wrap(out);
}

static PyObject *m_assign(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor dst, src;
  if (nargs != 2) return PyErr_Format(PyExc_TypeError, "assign(dst, src)");
  if (!get_tensor(args[0], &dst) || !get_tensor(args[1], &src)) return NULL;
  CHECK(p_bp_assign(dst, src));
  Py_RETURN_NONE;
}

/* ---- autograd (backplane/autograd.h) ------------------------------------- */

static PyObject *m_set_requires_grad(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor t;
  if (nargs != 2) return PyErr_Format(PyExc_TypeError, "set_requires_grad(t, flag)");
  if (!get_tensor(args[0], &t)) return NULL;
  int flag = PyObject_IsTrue(args[1]);
  if (flag < 0) return NULL;
  CHECK(p_bp_tensor_set_requires_grad(t, flag));
  Py_RETURN_NONE;
}

/* f(t) -> bool: the autograd flags of a tensor. */
#define WRAP_FLAG(f)                                     \
  static PyObject *m_##f(PyObject *mod, PyObject *arg) { \
    (void)mod;                                           \
    bp_tensor t;                                         \
    int32_t v;                                           \
    if (!get_tensor(arg, &t)) return NULL;               \
    CHECK(p_bp_tensor_##f(t, &v));                       \
    return PyBool_FromLong(v);                           \
  }
WRAP_FLAG(requires_grad)
WRAP_FLAG(is_leaf)

/* grad(t) -> the leaf's accumulated gradient (sharing its storage) or None. */
static PyObject *m_grad(PyObject *mod, PyObject *arg) {
  (void)mod;
  bp_tensor t, g;
  if (!get_tensor(arg, &t)) return NULL;
  CHECK(p_bp_tensor_grad(t, &g));
  if (g == BP_NO_TENSOR) Py_RETURN_NONE;
  return wrap(g);
}

static PyObject *m_clear_grad(PyObject *mod, PyObject *arg) {
  (void)mod;
  bp_tensor t;
  if (!get_tensor(arg, &t)) return NULL;
  CHECK(p_bp_tensor_clear_grad(t));
  Py_RETURN_NONE;
}

/* grad_fn(t) -> the name of the operator that made t, or None for a leaf. */
static PyObject *m_grad_fn(PyObject *mod, PyObject *arg) {
  (void)mod;
  bp_tensor t;
  const char *name;
  if (!get_tensor(arg, &t)) return NULL;
  CHECK(p_bp_tensor_grad_fn(t, &name));
  if (!name) Py_RETURN_NONE;
  return PyUnicode_FromString(name);
}

/* backward(t, grad or None, retain_graph) */
static PyObject *m_backward(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor t, g = BP_NO_TENSOR;
  if (nargs != 3) return PyErr_Format(PyExc_TypeError, "backward(t, grad, retain_graph)");
  if (!get_tensor(args[0], &t)) return NULL;
  if (args[1] != Py_None && !get_tensor(args[1], &g)) return NULL;
  int retain = PyObject_IsTrue(args[2]);
  if (retain < 0) return NULL;
  bp_status st;
  /* The whole backward pass: may wait for the devices. Grad mode is per
   * thread, so releasing the GIL leaves it as it is. */
  Py_BEGIN_ALLOW_THREADS st = p_bp_backward(t, g, retain);
  Py_END_ALLOW_THREADS
  CHECK(st);
  Py_RETURN_NONE;
}

/* set_grad_enabled(flag) -> the mode it replaces (bool). */
static PyObject *m_set_grad_enabled(PyObject *mod, PyObject *arg) {
  (void)mod;
  REQUIRE_LOADED();
  int flag = PyObject_IsTrue(arg);
  if (flag < 0) return NULL;
  int32_t previous;
  CHECK(p_bp_grad_set_enabled(flag, &previous));
  return PyBool_FromLong(previous);
}

static PyObject *m_is_grad_enabled(PyObject *mod, PyObject *unused) {
  (void)mod;
  (void)unused;
  REQUIRE_LOADED();
  return PyBool_FromLong(p_bp_grad_is_enabled());
}

/* adopt(cls, t): a new object of cls (a subclass of TensorBase, which may
 * carry more fields: nn.Parameter) holding its own reference to t's tensor. */
static PyObject *m_adopt(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor t;
  if (nargs != 2) return PyErr_Format(PyExc_TypeError, "adopt(cls, t)");
  PyObject *cls = args[0];
  if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &TensorBase_Type))
    return PyErr_Format(PyExc_TypeError, "adopt: the class must derive from TensorBase");
  if (!get_tensor(args[1], &t)) return NULL;
  CHECK(p_bp_tensor_retain(t));
  PyTypeObject *tp = (PyTypeObject *)cls;
  TensorObject *self = (TensorObject *)tp->tp_alloc(tp, 0);
  if (!self) {
    p_bp_tensor_release(t);
    return NULL;
  }
  self->handle = t;
  return (PyObject *)self;
}

/* rebind(dst, src): dst now refers to src's tensor and lets go of its own,
 * so that an object others hold (a module's parameter) can move to another
 * device or dtype and stay the same object. */
static PyObject *m_rebind(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor src;
  if (nargs != 2) return PyErr_Format(PyExc_TypeError, "rebind(dst, src)");
  if (!IS_TENSOR(args[0])) return PyErr_Format(PyExc_TypeError, "rebind: dst must be a tensor");
  if (!get_tensor(args[1], &src)) return NULL;
  CHECK(p_bp_tensor_retain(src));
  bp_tensor old = HANDLE(args[0]);
  HANDLE(args[0]) = src;
  if (old) p_bp_tensor_release(old);
  Py_RETURN_NONE;
}

/* ---- tracing and counters ------------------------------------------------ */

static PyObject *m_trace_enable(PyObject *mod, PyObject *arg) {
  (void)mod;
  REQUIRE_LOADED();
  int on = PyObject_IsTrue(arg);
  if (on < 0) return NULL;
  CHECK(p_bp_trace_enable(on));
  Py_RETURN_NONE;
}

static PyObject *m_fusion_enable(PyObject *mod, PyObject *arg) {
  (void)mod;
  REQUIRE_LOADED();
  int on = PyObject_IsTrue(arg);
  if (on < 0) return NULL;
  CHECK(p_bp_fusion_enable(on));
  Py_RETURN_NONE;
}

static PyObject *m_fusion_enabled(PyObject *mod, PyObject *unused) {
  (void)mod;
  (void)unused;
  REQUIRE_LOADED();
  return PyBool_FromLong(p_bp_fusion_enabled());
}

static PyObject *m_trace_lines(PyObject *mod, PyObject *unused) {
  (void)mod;
  (void)unused;
  REQUIRE_LOADED();
  int32_t n = p_bp_trace_count();
  PyObject *list = PyList_New(0);
  char buf[2048];
  for (int32_t i = 0; list && i < n; ++i) {
    if (p_bp_trace_line(i, buf, (int32_t)sizeof buf) != BP_OK) continue;
    list = append_or_drop(list, PyUnicode_DecodeUTF8(buf, (Py_ssize_t)strlen(buf), "replace"));
  }
  return list;
}

static PyObject *m_trace_clear(PyObject *mod, PyObject *unused) {
  (void)mod;
  (void)unused;
  REQUIRE_LOADED();
  CHECK(p_bp_trace_clear());
  Py_RETURN_NONE;
}

static PyObject *m_backend_counters(PyObject *mod, PyObject *arg) {
  (void)mod;
  REQUIRE_LOADED();
  const char *name = PyUnicode_AsUTF8(arg);
  if (!name) return NULL;
  bp_backend_counters c = {.struct_size = sizeof c};
  CHECK(p_bp_backend_counters_get(name, &c));
  return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K}", "ops", (unsigned long long)c.ops,
                       "allocations", (unsigned long long)c.allocations, "bytes_host_to_device",
                       (unsigned long long)c.bytes_host_to_device, "bytes_device_to_host",
                       (unsigned long long)c.bytes_device_to_host, "bytes_device_to_device",
                       (unsigned long long)c.bytes_device_to_device, "staged_copies",
                       (unsigned long long)c.staged_copies);
}

/* _bench_core(a, b, n): seconds for n rounds of bp_binary(ADD, a, b),
 * bp_tensor_wait and bp_tensor_release of the result, timed in C (no Python
 * in the loop), so bench_overhead.py can split a forced a + b into core cost
 * and binding overhead. */
static PyObject *m__bench_core(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor a, b, out;
  if (nargs != 3) return PyErr_Format(PyExc_TypeError, "_bench_core(a, b, n)");
  if (!get_tensor(args[0], &a) || !get_tensor(args[1], &b)) return NULL;
  long n;
  if (!int_arg(args[2], &n)) return NULL;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long i = 0; i < n; ++i) {
    CHECK(p_bp_binary(BP_OP_ADD, a, b, &out));
    const bp_status st = p_bp_tensor_wait(out);
    if (st != BP_OK) {
      raise_status(st);
      p_bp_tensor_release(out);
      return NULL;
    }
    p_bp_tensor_release(out);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return PyFloat_FromDouble((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
}

#define FAST(name) {#name, (PyCFunction)(void (*)(void))m_##name, METH_FASTCALL, NULL}
static PyMethodDef module_methods[] = {
    {"load", m_load, METH_O, "load(path) -> path actually loaded; dlopen()s libbackplane."},
    {"set_hooks", m_set_hooks, METH_VARARGS, "set_hooks(tensor_class, error_factory)"},
    {"api_version", m_api_version, METH_NOARGS, NULL},
    {"init", m_init, METH_VARARGS, NULL},
    {"init_from_string", m_init_from_string, METH_VARARGS, NULL},
    {"config_entries", m_config_entries, METH_NOARGS, NULL},
    {"status_name", m_status_name, METH_O, NULL},
    {"dtype_name", m_dtype_name, METH_O, NULL},
    {"op_name", m_op_name, METH_O, NULL},
    {"plugin_reports", m_plugin_reports, METH_VARARGS, NULL},
    {"devices", m_devices, METH_NOARGS, NULL},
    {"device_get", m_device_get, METH_O, NULL},
    {"device_info", m_device_info, METH_O, NULL},
    {"device_properties", m_device_properties, METH_O, NULL},
    {"cpu", m_cpu, METH_NOARGS, NULL},
    {"gpu", m_gpu, METH_O, NULL},
    {"num_gpus", m_num_gpus, METH_NOARGS, NULL},
    {"try_gpu", m_try_gpu, METH_O, NULL},
    {"try_all_gpus", m_try_all_gpus, METH_NOARGS, NULL},
    {"default_device", m_default_device, METH_NOARGS, NULL},
    {"synchronize", m_synchronize, METH_O, NULL},
    {"empty", m_empty, METH_VARARGS, NULL},
    {"zeros", m_zeros, METH_VARARGS, NULL},
    {"ones", m_ones, METH_VARARGS, NULL},
    {"full", m_full, METH_VARARGS, NULL},
    {"arange", m_arange, METH_VARARGS, NULL},
    {"random_uniform", m_random_uniform, METH_VARARGS, NULL},
    {"random_normal", m_random_normal, METH_VARARGS, NULL},
    {"random_integers", m_random_integers, METH_VARARGS, NULL},
    {"from_buffer", m_from_buffer, METH_VARARGS, NULL},
    {"to_buffer", m_to_buffer, METH_VARARGS, NULL},
    {"host_address", m_host_address, METH_O, NULL},
    {"live_tensor_count", m_live_tensor_count, METH_NOARGS, NULL},
    {"reshape", m_reshape, METH_VARARGS, NULL},
    {"permute", m_permute, METH_VARARGS, NULL},
    {"transpose", m_transpose, METH_O, NULL},
    {"contiguous", m_contiguous, METH_O, NULL},
    FAST(slice),
    FAST(select),
    FAST(copy_to),
    FAST(to),
    FAST(binary),
    FAST(binary_out),
    FAST(unary),
    FAST(unary_out),
    FAST(where),
    FAST(reduce),
    FAST(norm),
    FAST(scan),
    FAST(gather_nd),
    FAST(scatter_nd),
    FAST(scatter_add_nd),
    {"nonzero", m_nonzero, METH_O, NULL},
    FAST(join),
    FAST(collective),
    {"dist_init", m_dist_init, METH_O, NULL},
    {"dist_finalize", m_dist_finalize, METH_NOARGS, NULL},
    {"dist_barrier", m_dist_barrier, METH_NOARGS, NULL},
    {"dist_info", m_dist_info, METH_NOARGS, NULL},
    FAST(dist_collective),
    {"eye", m_eye, METH_VARARGS, NULL},
    {"linspace", m_linspace, METH_VARARGS, NULL},
    {"clip", m_clip, METH_VARARGS, NULL},
    {"moments", m_moments, METH_VARARGS, NULL},
    {"softmax", m_softmax, METH_VARARGS, NULL},
    {"allclose", m_allclose, METH_VARARGS, NULL},
    FAST(expand_dims),
    FAST(matmul),
    FAST(cast),
    FAST(assign),
    FAST(set_requires_grad),
    {"requires_grad", m_requires_grad, METH_O, NULL},
    {"is_leaf", m_is_leaf, METH_O, NULL},
    {"grad", m_grad, METH_O, NULL},
    {"clear_grad", m_clear_grad, METH_O, NULL},
    {"grad_fn", m_grad_fn, METH_O, NULL},
    FAST(backward),
    {"set_grad_enabled", m_set_grad_enabled, METH_O, NULL},
    {"is_grad_enabled", m_is_grad_enabled, METH_NOARGS, NULL},
    {"detach", m_detach, METH_O, NULL},
    FAST(adopt),
    FAST(rebind),
    {"from_dlpack", (PyCFunction)(void (*)(void))dlpack_import, METH_FASTCALL, NULL},
    FAST(_bench_core),
    {"trace_enable", m_trace_enable, METH_O, NULL},
    {"trace_lines", m_trace_lines, METH_NOARGS, NULL},
    {"trace_clear", m_trace_clear, METH_NOARGS, NULL},
    {"fusion_enable", m_fusion_enable, METH_O, NULL},
    {"fusion_enabled", m_fusion_enabled, METH_NOARGS, NULL},
    {"backend_counters", m_backend_counters, METH_O, NULL},
    {NULL, NULL, 0, NULL}};
#undef FAST

/* ---- the vocabulary ------------------------------------------------------
 * BP_STATUS_LIST, BP_DTYPE_LIST, BP_OP_FAMILY_LIST, BP_OP_LIST,
 * BP_COLLECTIVE_LIST and BP_REDUCE_OP_LIST of
 * vocabulary.h as module attributes, one tuple per entry, in list order:
 *   statuses     (value, "BP_ERR_SHAPE", doc)
 *   dtypes       (value, "float32", size in bytes, kind: a DTYPE_KIND_*)
 *   op_families  (value, "binary", arity)
 *   ops          (value, "add", family name)
 *   collectives  (value, "all_reduce")
 *   reduce_ops   (value, "sum")
 * They are the header's lists as this module was built; the loaded library
 * may know more (status_name() and friends ask it). */

#define STATUS_ROW_(id, value, doc) Py_BuildValue("(iss)", value, "BP_" #id, doc),
#define DTYPE_ROW_(id, value, name, size, kind) Py_BuildValue("(isii)", value, name, size, kind),
#define FAMILY_ROW_(id, value, name, arity) Py_BuildValue("(isi)", value, name, arity),
#define OP_ROW_(id, value, name, family, dtypes, out) \
  Py_BuildValue("(iss)", value, name, bp_vocab_family_name(family)),
#define COLLECTIVE_ROW_(id, value, name) Py_BuildValue("(is)", value, name),
#define REDUCE_OP_ROW_(id, value, name, dtypes) Py_BuildValue("(is)", value, name),

/* Adds m.<name> = tuple(rows); steals the n rows, NULL where one could not
 * be made. Returns -1 with an error set on failure. */
static int add_rows(PyObject *m, const char *name, PyObject **rows, Py_ssize_t n) {
  PyObject *t = PyTuple_New(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (t && rows[i]) {
      PyTuple_SET_ITEM(t, i, rows[i]);
    } else {
      Py_XDECREF(rows[i]);
      Py_CLEAR(t);
    }
  }
  if (!t) return -1;
  if (PyModule_AddObject(m, name, t) < 0) {
    Py_DECREF(t);
    return -1;
  }
  return 0;
}
#define ADD_ROWS(m, name, rows) add_rows(m, name, rows, (Py_ssize_t)(sizeof rows / sizeof *rows))

static int add_vocabulary(PyObject *m) {
  PyObject *statuses[] = {BP_STATUS_LIST(STATUS_ROW_)};
  if (ADD_ROWS(m, "statuses", statuses) < 0) return -1;
  PyObject *dtypes[] = {BP_DTYPE_LIST(DTYPE_ROW_)};
  if (ADD_ROWS(m, "dtypes", dtypes) < 0) return -1;
  PyObject *families[] = {BP_OP_FAMILY_LIST(FAMILY_ROW_)};
  if (ADD_ROWS(m, "op_families", families) < 0) return -1;
  PyObject *ops[] = {BP_OP_LIST(OP_ROW_)};
  if (ADD_ROWS(m, "ops", ops) < 0) return -1;
  PyObject *collectives[] = {BP_COLLECTIVE_LIST(COLLECTIVE_ROW_)};
  if (ADD_ROWS(m, "collectives", collectives) < 0) return -1;
  PyObject *reduce_ops[] = {BP_REDUCE_OP_LIST(REDUCE_OP_ROW_)};
  return ADD_ROWS(m, "reduce_ops", reduce_ops);
}

/* Integer constants: _C.AXIS_ALL is BP_AXIS_ALL, ... */
#define CONSTANT(name) {#name, BP_##name}
static const struct {
  const char *name;
  long value;
} constants[] = {
    CONSTANT(AXIS_ALL),
    CONSTANT(MAX_RANK),
    CONSTANT(API_VERSION_MAJOR),
    CONSTANT(API_VERSION_MINOR),
    CONSTANT(DTYPE_KIND_BOOL),
    CONSTANT(DTYPE_KIND_SIGNED_INT),
    CONSTANT(DTYPE_KIND_UNSIGNED_INT),
    CONSTANT(DTYPE_KIND_FLOAT),
    CONSTANT(DEVICE_CPU),
    CONSTANT(DEVICE_GPU),
    CONSTANT(DEVICE_ACCELERATOR),
};
#undef CONSTANT

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "backplane._C",
    "CPython extension of the backplane package (wraps backplane.h).", -1, module_methods,
    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__C(void) {
  if (PyType_Ready(&TensorBase_Type) < 0) return NULL;
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  Py_INCREF(&TensorBase_Type);
  if (PyModule_AddObject(m, "TensorBase", (PyObject *)&TensorBase_Type) < 0) {
    Py_DECREF(&TensorBase_Type);
    Py_DECREF(m);
    return NULL;
  }
  for (size_t i = 0; i < sizeof constants / sizeof *constants; ++i) {
    if (PyModule_AddIntConstant(m, constants[i].name, constants[i].value) < 0) {
      Py_DECREF(m);
      return NULL;
    }
  }
  if (add_vocabulary(m) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
