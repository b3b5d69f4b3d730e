/*
 * spatial.c — the channels-first functions of backplane.h (since 1.6):
 * bp_max_pool, bp_avg_pool, adaptive and global pooling, bp_dropout, bp_pad
 * and bp_interpolate. Arguments arrive as the Python layer (nn.functional)
 * normalised them: tuples of one int per spatial axis, None where the C
 * function takes NULL.
 */
#include "extension.h"

#include <string.h>

/* A tuple of exactly n ints into v[0..n-1]; 0 with an error otherwise. */
static int ints_arg(PyObject *seq, const char *what, int32_t n, int64_t *v) {
  int64_t shape[MAX_SHAPE];
  const int got = get_shape_arg(seq, shape);
  if (got < 0) return 0;
  if (got != n) {
    PyErr_Format(PyExc_ValueError, "%s: expected %d values, got %d", what, (int)n, got);
    return 0;
  }
  for (int32_t i = 0; i < n; ++i) v[i] = shape[i];
  return 1;
}

/* (x, spatial_rank, kernel, stride, pad_begin, pad_end, dilation, ceil_mode,
 * count_include_pad) into *options, of the `want` arguments fn takes. */
static int pool_args(const char *fn, PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want, bp_tensor *x,
                     bp_pool_options *o) {
  long rank;
  if (nargs != want) {
    PyErr_Format(PyExc_TypeError, "%s takes %d arguments", fn, (int)want);
    return 0;
  }
  memset(o, 0, sizeof *o);
  o->struct_size = sizeof *o;
  if (!get_tensor(args[0], x) || !int_arg(args[1], &rank)) return 0;
  if (rank < 1 || rank > 3) {
    PyErr_Format(PyExc_ValueError, "pooling has 1 to 3 spatial axes, not %ld", rank);
    return 0;
  }
  o->spatial_rank = (int32_t)rank;
  if (!ints_arg(args[2], "kernel_size", o->spatial_rank, o->kernel) ||
      !ints_arg(args[3], "stride", o->spatial_rank, o->stride) ||
      !ints_arg(args[4], "padding", o->spatial_rank, o->pad_begin) ||
      !ints_arg(args[5], "padding", o->spatial_rank, o->pad_end) ||
      !ints_arg(args[6], "dilation", o->spatial_rank, o->dilation))
    return 0;
  const int ceil_mode = PyObject_IsTrue(args[7]), include = PyObject_IsTrue(args[8]);
  if (ceil_mode < 0 || include < 0) return 0;
  o->ceil_mode = ceil_mode;
  o->count_include_pad = include;
  return 1;
}

/* max_pool(x, rank, kernel, stride, pad_begin, pad_end, dilation, ceil_mode,
 * count_include_pad, return_indices) -> y or (y, indices) */
static PyObject *m_max_pool(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor x, h[2]; /* y, indices */
  bp_pool_options o;
  if (!pool_args("max_pool", args, nargs, 10, &x, &o)) return NULL;
  const int with_indices = PyObject_IsTrue(args[9]);
  if (with_indices < 0) return NULL;
  CHECK(p_bp_max_pool(x, &o, &h[0], with_indices ? &h[1] : NULL));
  return with_indices ? wrap_tuple(h, 2) : wrap(h[0]);
}

/* avg_pool(x, rank, kernel, stride, pad_begin, pad_end, dilation, ceil_mode,
 * count_include_pad) -> y */
static PyObject *m_avg_pool(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor x, out;
  bp_pool_options o;
  if (!pool_args("avg_pool", args, nargs, 9, &x, &o)) return NULL;
  CHECK(p_bp_avg_pool(x, &o, &out));
  return wrap(out);
}

/* adaptive_pool(max, x, output_size, return_indices) -> y or (y, indices) */
static PyObject *m_adaptive_pool(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor x, h[2]; /* y, indices */
  int64_t size[MAX_SHAPE];
  if (nargs != 4) return PyErr_Format(PyExc_TypeError, "adaptive_pool(max, x, output_size, return_indices)");
  const int is_max = PyObject_IsTrue(args[0]), with_indices = PyObject_IsTrue(args[3]);
  if (is_max < 0 || with_indices < 0 || !get_tensor(args[1], &x)) return NULL;
  const int rank = get_shape_arg(args[2], size);
  if (rank < 0) return NULL;
  if (!is_max) {
    CHECK(p_bp_adaptive_avg_pool(x, rank, size, &h[0]));
    return wrap(h[0]);
  }
  CHECK(p_bp_adaptive_max_pool(x, rank, size, &h[0], with_indices ? &h[1] : NULL));
  return with_indices ? wrap_tuple(h, 2) : wrap(h[0]);
}

/* global_pool(max, x, spatial_rank) -> [N, C, 1...] */
static PyObject *m_global_pool(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor x, out;
  long rank;
  if (nargs != 3) return PyErr_Format(PyExc_TypeError, "global_pool(max, x, spatial_rank)");
  const int is_max = PyObject_IsTrue(args[0]);
  if (is_max < 0 || !get_tensor(args[1], &x) || !int_arg(args[2], &rank)) return NULL;
  CHECK(is_max ? p_bp_global_max_pool(x, (int32_t)rank, &out) : p_bp_global_avg_pool(x, (int32_t)rank, &out));
  return wrap(out);
}

/* dropout(x, p, seed) */
static PyObject *m_dropout(PyObject *mod, PyObject *args) {
  (void)mod;
  bp_tensor x, out;
  PyObject *t;
  double p;
  unsigned long long seed;
  if (!PyArg_ParseTuple(args, "OdK:dropout", &t, &p, &seed) || !get_tensor(t, &x)) return NULL;
  CHECK(p_bp_dropout(x, p, (uint64_t)seed, &out));
  return wrap(out);
}

/* pad(x, before, after, mode, value): before and after of x's rank. */
static PyObject *m_pad(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor x, out;
  int64_t before[MAX_SHAPE], after[MAX_SHAPE];
  long mode;
  if (nargs != 5) return PyErr_Format(PyExc_TypeError, "pad(x, before, after, mode, value)");
  if (!get_tensor(args[0], &x) || !int_arg(args[3], &mode)) return NULL;
  const int nb = get_shape_arg(args[1], before), na = nb < 0 ? -1 : get_shape_arg(args[2], after);
  if (nb < 0 || na < 0) return NULL;
  int32_t rank;
  CHECK(p_bp_tensor_rank(x, &rank));
  if (nb != rank || na != rank)
    return PyErr_Format(PyExc_ValueError, "pad: %d and %d amounts for a tensor of %d axes", nb, na, (int)rank);
  const double value = PyFloat_AsDouble(args[4]);
  if (value == -1.0 && PyErr_Occurred()) return NULL;
  CHECK(p_bp_pad(x, before, after, (int32_t)mode, value, &out));
  return wrap(out);
}

/* interpolate(x, spatial_rank, size or None, scale or None, mode, align_corners) */
static PyObject *m_interpolate(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  bp_tensor x, out;
  int64_t size[3];
  double scale[3];
  long rank, mode;
  if (nargs != 6) return PyErr_Format(PyExc_TypeError, "interpolate(x, rank, size, scale, mode, align_corners)");
  if (!get_tensor(args[0], &x) || !int_arg(args[1], &rank) || !int_arg(args[4], &mode)) return NULL;
  if (rank < 1 || rank > 3) return PyErr_Format(PyExc_ValueError, "interpolate: 1 to 3 spatial axes, not %ld", rank);
  if (args[2] != Py_None && !ints_arg(args[2], "size", (int32_t)rank, size)) return NULL;
  if (args[3] != Py_None) {
    PyObject *fast = PySequence_Fast(args[3], "scale_factor must be a sequence of numbers");
    if (!fast) return NULL;
    if (PySequence_Fast_GET_SIZE(fast) != rank) {
      Py_DECREF(fast);
      return PyErr_Format(PyExc_ValueError, "scale_factor: expected %ld values", rank);
    }
    for (long i = 0; i < rank; ++i) {
      scale[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, i));
      if (scale[i] == -1.0 && PyErr_Occurred()) {
        Py_DECREF(fast);
        return NULL;
      }
    }
    Py_DECREF(fast);
  }
  const int align = PyObject_IsTrue(args[5]);
  if (align < 0) return NULL;
  CHECK(p_bp_interpolate(x, (int32_t)rank, args[2] == Py_None ? NULL : size, args[3] == Py_None ? NULL : scale,
                         (int32_t)mode, align, &out));
  return wrap(out);
}

PyMethodDef spatial_methods[] = {
    FAST(max_pool),
    FAST(avg_pool),
    FAST(adaptive_pool),
    FAST(global_pool),
    VARARGS(dropout),
    FAST(pad),
    FAST(interpolate),
    {NULL, NULL, 0, NULL}};
