/*
 * bfloat16.c — see bfloat16.h. Widening needs no C: a bfloat16 is the upper
 * half of a float32, which NumPy shifts into place exactly.
 */
#include "bfloat16.h"

#include <string.h>

PyObject *bf16_from_f64(PyObject *mod, PyObject *args) {
  (void)mod;
  PyObject *src_obj, *dst_obj;
  if (!PyArg_ParseTuple(args, "OO:bf16_from_f64", &src_obj, &dst_obj)) return NULL;
  Py_buffer src, dst;
  if (PyObject_GetBuffer(src_obj, &src, PyBUF_C_CONTIGUOUS) < 0) return NULL;
  if (PyObject_GetBuffer(dst_obj, &dst, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
    PyBuffer_Release(&src);
    return NULL;
  }
  const Py_ssize_t n = src.len / (Py_ssize_t)sizeof(double);
  if (src.len % (Py_ssize_t)sizeof(double) != 0 || dst.len != n * (Py_ssize_t)sizeof(uint16_t)) {
    PyErr_Format(PyExc_ValueError,
                 "bf16_from_f64: %zd bytes of float64 need %zd bytes of bfloat16, got %zd",
                 src.len, n * (Py_ssize_t)sizeof(uint16_t), dst.len);
    PyBuffer_Release(&src);
    PyBuffer_Release(&dst);
    return NULL;
  }
  const char *in = (const char *)src.buf;
  uint16_t *out = (uint16_t *)dst.buf;
  Py_BEGIN_ALLOW_THREADS
  for (Py_ssize_t i = 0; i < n; ++i) {
    double v; /* the buffer need not be aligned for double */
    memcpy(&v, in + i * (Py_ssize_t)sizeof v, sizeof v);
    out[i] = bp_bf16_from_f64(v);
  }
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&src);
  PyBuffer_Release(&dst);
  Py_RETURN_NONE;
}
