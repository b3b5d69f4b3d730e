/*
 * ops.c — the operations of backplane._C: creation, host transfers, views,
 * operators and joins, one thin function per C API call.
 */
#include "extension.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dlpack.h"

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

/* The (device, dtype, shape, obj) arguments of full_kind and from_buffer:
 * the rank of the shape, or -1 with an error. `format` is "iiOO:<name>". */
static int device_dtype_shape_obj(PyObject *args, const char *format, int *device, int *dtype,
                                  int64_t *shape, PyObject **obj) {
  PyObject *shape_obj;
  if (!PyArg_ParseTuple(args, format, device, dtype, &shape_obj, obj)) return -1;
  return get_shape_arg(shape_obj, shape);
}

/* full_kind(device, dtype, shape, value): value a Python number, whose kind
 * decides whether it must fit the dtype (bp_full_kind). */
static PyObject *m_full_kind(PyObject *mod, PyObject *args) {
  (void)mod;
  REQUIRE_LOADED();
  int device, dtype;
  PyObject *value_obj;
  int64_t shape[MAX_SHAPE];
  int rank = device_dtype_shape_obj(args, "iiOO:full_kind", &device, &dtype, shape, &value_obj);
  if (rank < 0) return NULL;
  double value;
  int32_t kind;
  if (!get_scalar(value_obj, &value, &kind))
    return PyErr_Format(PyExc_TypeError, "full: the value must be a number, not %.100s", Py_TYPE(value_obj)->tp_name);
  bp_tensor out;
  CHECK(p_bp_full_kind(device, dtype, rank, shape, value, kind, &out));
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
  PyObject *obj;
  int64_t shape[MAX_SHAPE];
  int rank = device_dtype_shape_obj(args, "iiOO:from_buffer", &device, &dtype, shape, &obj);
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

WRAP_TENSOR(transpose)
WRAP_TENSOR(contiguous)

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
  CHECK_WITHOUT_GIL((*fn)(t, (bp_device)dev, &out));
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

/* reduce_axes(op, a, axes, keepdims) */
static PyObject *m_reduce_axes(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  long op;
  bp_tensor a, out;
  if (nargs != 4) return PyErr_Format(PyExc_TypeError, "reduce_axes(op, a, axes, keepdims)");
  if (!int_arg(args[0], &op) || !get_tensor(args[1], &a)) return NULL;
  int64_t wide[MAX_SHAPE];
  int n = get_shape_arg(args[2], wide);
  if (n < 0) return NULL;
  int32_t axes[MAX_SHAPE];
  for (int i = 0; i < n; ++i) axes[i] = (int32_t)wide[i];
  int keep = PyObject_IsTrue(args[3]);
  if (keep < 0) return NULL;
  CHECK(p_bp_reduce_axes((int32_t)op, a, axes, n, keep, &out));
  return wrap(out);
}

/* where_scalar(cond, a, scalar, scalar_is_a): scalar a Python number. */
static PyObject *m_where_scalar(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor c, a, out;
  double s;
  int32_t kind;
  if (nargs != 4) return PyErr_Format(PyExc_TypeError, "where_scalar(cond, a, scalar, scalar_is_a)");
  if (!get_tensor(args[0], &c) || !get_tensor(args[1], &a)) return NULL;
  if (!get_scalar(args[2], &s, &kind))
    return PyErr_Format(PyExc_TypeError, "where: a scalar operand must be a number, not %.100s",
                        Py_TYPE(args[2])->tp_name);
  int is_a = PyObject_IsTrue(args[3]);
  if (is_a < 0) return NULL;
  CHECK(p_bp_where_scalar(c, a, s, kind, is_a, &out));
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
  /* Reads the index's range back: may wait for the device. */
  CHECK_WITHOUT_GIL(p_bp_gather_nd(a, index, &out));
  return wrap(out);
}

/* f(dst, index, values) -> None: bp_scatter_nd and bp_scatter_add_nd. */
#define WRAP_SCATTER(f)                                                                    \
  static PyObject *m_##f(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {         \
    (void)mod;                                                                             \
    bp_tensor dst, index, values;                                                          \
    if (nargs != 3) return PyErr_Format(PyExc_TypeError, #f "(dst, index, values)");      \
    if (!get_tensor(args[0], &dst) || !get_tensor(args[1], &index) ||                      \
        !get_tensor(args[2], &values))                                                     \
      return NULL;                                                                         \
    CHECK_WITHOUT_GIL(p_bp_##f(dst, index, values));                                       \
    Py_RETURN_NONE;                                                                        \
  }
WRAP_SCATTER(scatter_nd)
WRAP_SCATTER(scatter_add_nd)

/* The result's size depends on the values: bp_nonzero waits for them. */
WRAP_TENSOR_WITH(CHECK_WITHOUT_GIL, nonzero)

/* topk(a, k, axis, largest[, values, indices]) -> (values, indices):
 * bp_topk, or bp_topk_out into the two tensors given. */
static PyObject *m_topk(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor a, h[2]; /* values, indices */
  long long k;
  long axis;
  if (nargs != 4 && nargs != 6) return PyErr_Format(PyExc_TypeError, "topk(a, k, axis, largest[, values, indices])");
  if (!get_tensor(args[0], &a) || !int_arg(args[2], &axis)) return NULL;
  k = PyLong_AsLongLong(args[1]);
  if (k == -1 && PyErr_Occurred()) return NULL;
  int largest = PyObject_IsTrue(args[3]);
  if (largest < 0) return NULL;
  if (nargs == 6) {
    if (!get_tensor(args[4], &h[0]) || !get_tensor(args[5], &h[1])) return NULL;
    CHECK(p_bp_topk_out(a, (int64_t)k, (int32_t)axis, largest, h[0], h[1]));
    return PyTuple_Pack(2, args[4], args[5]);
  }
  CHECK(p_bp_topk(a, (int64_t)k, (int32_t)axis, largest, &h[0], &h[1]));
  return wrap_tuple(h, 2);
}

/* sort(a, axis, descending) -> (values, indices); argsort(a, axis,
 * descending) -> indices. */
static PyObject *m_sort(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor a, h[2]; /* values, indices */
  long axis;
  if (nargs != 3) return PyErr_Format(PyExc_TypeError, "sort(a, axis, descending)");
  if (!get_tensor(args[0], &a) || !int_arg(args[1], &axis)) return NULL;
  int descending = PyObject_IsTrue(args[2]);
  if (descending < 0) return NULL;
  CHECK(p_bp_sort(a, (int32_t)axis, descending, &h[0], &h[1]));
  return wrap_tuple(h, 2);
}

static PyObject *m_argsort(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor a, indices;
  long axis;
  if (nargs != 3) return PyErr_Format(PyExc_TypeError, "argsort(a, axis, descending)");
  if (!get_tensor(args[0], &a) || !int_arg(args[1], &axis)) return NULL;
  int descending = PyObject_IsTrue(args[2]);
  if (descending < 0) return NULL;
  CHECK(p_bp_argsort(a, (int32_t)axis, descending, &indices));
  return wrap(indices);
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

/* ---- indexing ------------------------------------------------------------ */

/* A Python key (a sequence of ints, slices, None, Ellipsis and tensors, as
 * backplane/_indexing.py makes it) as bp_index_key entries, in a PyMem block
 * the caller frees; NULL with an exception set on failure. The sequence keeps
 * the key's tensors alive while the caller holds it. */
static bp_index_key *keys_of(PyObject *seq, Py_ssize_t *n) {
  *n = PySequence_Fast_GET_SIZE(seq);
  bp_index_key *keys = PyMem_Calloc((size_t)(*n > 0 ? *n : 1), sizeof(bp_index_key));
  if (!keys) {
    PyErr_NoMemory();
    return NULL;
  }
  for (Py_ssize_t i = 0; i < *n; ++i) {
    PyObject *k = PySequence_Fast_GET_ITEM(seq, i);
    bp_index_key *key = &keys[i];
    if (k == Py_None) {
      key->kind = BP_INDEX_NEWAXIS;
    } else if (k == Py_Ellipsis) {
      key->kind = BP_INDEX_ELLIPSIS;
    } else if (IS_TENSOR(k)) {
      key->kind = BP_INDEX_TENSOR;
      key->tensor = HANDLE(k);
    } else if (PySlice_Check(k)) {
      /* Bounds past int64 clamp: the core clamps them to the axis anyway. */
      PySliceObject *s = (PySliceObject *)k;
      PyObject *parts[3] = {s->start, s->stop, s->step};
      int64_t *values[3] = {&key->start, &key->stop, &key->step};
      const uint32_t bits[3] = {BP_INDEX_HAS_START, BP_INDEX_HAS_STOP, BP_INDEX_HAS_STEP};
      key->kind = BP_INDEX_SLICE;
      for (int j = 0; j < 3; ++j) {
        if (parts[j] == Py_None) continue;
        key->given |= bits[j];
        *values[j] = PyNumber_AsSsize_t(parts[j], NULL);
        if (*values[j] == -1 && PyErr_Occurred()) break;
      }
    } else {
      key->kind = BP_INDEX_INT;
      key->index = PyNumber_AsSsize_t(k, PyExc_IndexError);
    }
    if (PyErr_Occurred()) {
      PyMem_Free(keys);
      return NULL;
    }
  }
  return keys;
}

/* index(t, key) -> t[key]; index_put(t, key, values, accumulate) -> a new
 * tensor; index_put_into(t, key, values, accumulate) -> None. */
static PyObject *index_call(const char *fn, PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want) {
  bp_tensor t, values = BP_NO_TENSOR, out = BP_NO_TENSOR;
  int accumulate = 0;
  if (nargs != want) return PyErr_Format(PyExc_TypeError, "%s: %zd arguments, not %zd", fn, nargs, want);
  if (!get_tensor(args[0], &t)) return NULL;
  if (want == 4) {
    if (!get_tensor(args[2], &values)) return NULL;
    if ((accumulate = PyObject_IsTrue(args[3])) < 0) return NULL;
  }
  PyObject *seq = PySequence_Fast(args[1], "the key must be a sequence");
  if (!seq) return NULL;
  Py_ssize_t n;
  bp_index_key *keys = keys_of(seq, &n);
  bp_status st = BP_OK;
  if (keys) {
    /* Index tensors are read back to check their range: may wait. */
    Py_BEGIN_ALLOW_THREADS
    if (want == 2) st = p_bp_index(t, keys, (int32_t)n, &out);
    else if (strcmp(fn, "index_put") == 0) st = p_bp_index_put(t, keys, (int32_t)n, values, accumulate, &out);
    else st = p_bp_index_put_into(t, keys, (int32_t)n, values, accumulate);
    Py_END_ALLOW_THREADS
    PyMem_Free(keys);
  }
  Py_DECREF(seq);
  if (!keys) return NULL;
  CHECK(st);
  if (!out) Py_RETURN_NONE;
  return wrap(out);
}
#define WRAP_INDEX(f, want)                                                          \
  static PyObject *m_##f(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) { \
    (void)mod;                                                                       \
    return index_call(#f, args, nargs, want);                                        \
  }
WRAP_INDEX(index, 2)
WRAP_INDEX(index_put, 4)
WRAP_INDEX(index_put_into, 4)

int int_tensors_int(const char *usage, PyObject *const *args, Py_ssize_t nargs, long *first, TensorSeq *t,
                    long *last) {
  if (nargs != 3) {
    PyErr_SetString(PyExc_TypeError, usage);
    return 0;
  }
  if (!int_arg(args[0], first) || !int_arg(args[2], last)) return 0;
  char message[80];
  snprintf(message, sizeof message, "%.*s: tensors must be a sequence", (int)strcspn(usage, "("), usage);
  t->seq = PySequence_Fast(args[1], message);
  if (!t->seq) return 0;
  t->n = PySequence_Fast_GET_SIZE(t->seq);
  t->handles = PyMem_Malloc(sizeof(bp_tensor) * (size_t)(t->n > 0 ? t->n : 1));
  if (!t->handles) PyErr_NoMemory();
  for (Py_ssize_t i = 0; t->handles && i < t->n; ++i) {
    if (!get_tensor(PySequence_Fast_GET_ITEM(t->seq, i), &t->handles[i])) {
      PyMem_Free(t->handles);
      t->handles = NULL;
    }
  }
  if (!t->handles) Py_CLEAR(t->seq);
  return t->handles != NULL;
}

void tensor_seq_free(TensorSeq *t) {
  PyMem_Free(t->handles);
  Py_DECREF(t->seq);
}

/* join(stack, [tensors], axis): bp_stack or bp_concatenate of the sequence's
 * handles. */
static PyObject *m_join(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  long stack, axis;
  TensorSeq t;
  if (!int_tensors_int("join(stack, tensors, axis)", args, nargs, &stack, &t, &axis)) return NULL;
  bp_tensor out;
  bp_status st = stack ? p_bp_stack(t.handles, (int32_t)t.n, (int32_t)axis, &out)
                       : p_bp_concatenate(t.handles, (int32_t)t.n, (int32_t)axis, &out);
  tensor_seq_free(&t);
  CHECK(st);
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

/* softmax(x, axis) and log_softmax(x, axis): the SOFTMAX family. */
static PyObject *softmax_family(PyObject *args, const char *format,
                                bp_status (*fn)(bp_tensor, int32_t, bp_tensor *)) {
  bp_tensor a, out;
  PyObject *t;
  int axis;
  if (!PyArg_ParseTuple(args, format, &t, &axis) || !get_tensor(t, &a)) return NULL;
  CHECK(fn(a, axis, &out));
  return wrap(out);
}

static PyObject *m_softmax(PyObject *mod, PyObject *args) {
  (void)mod;
  return softmax_family(args, "Oi:softmax", p_bp_softmax);
}

static PyObject *m_log_softmax(PyObject *mod, PyObject *args) {
  (void)mod;
  return softmax_family(args, "Oi:log_softmax", p_bp_log_softmax);
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
  CHECK_WITHOUT_GIL(p_bp_allclose(a, b, rtol, atol, equal_nan, &result));
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


PyMethodDef ops_methods[] = {
    VARARGS(empty),
    VARARGS(zeros),
    VARARGS(ones),
    VARARGS(full),
    VARARGS(full_kind),
    VARARGS(arange),
    VARARGS(random_uniform),
    VARARGS(random_normal),
    VARARGS(random_integers),
    VARARGS(from_buffer),
    VARARGS(to_buffer),
    ONE_ARG(host_address),
    VARARGS(reshape),
    VARARGS(permute),
    ONE_ARG(transpose),
    ONE_ARG(contiguous),
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
    FAST(reduce_axes),
    FAST(where_scalar),
    FAST(norm),
    FAST(scan),
    FAST(gather_nd),
    FAST(index),
    FAST(index_put),
    FAST(index_put_into),
    FAST(scatter_nd),
    FAST(scatter_add_nd),
    ONE_ARG(nonzero),
    FAST(topk),
    FAST(sort),
    FAST(argsort),
    FAST(join),
    VARARGS(eye),
    VARARGS(linspace),
    VARARGS(clip),
    VARARGS(moments),
    VARARGS(softmax),
    VARARGS(log_softmax),
    VARARGS(allclose),
    FAST(expand_dims),
    FAST(matmul),
    FAST(cast),
    FAST(assign),
    {"from_dlpack", (PyCFunction)(void (*)(void))dlpack_import, METH_FASTCALL, NULL},
    FAST(_bench_core),
    {NULL, NULL, 0, NULL}};
