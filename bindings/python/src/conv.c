/*
 * conv.c — the convolutions of backplane._C (since 1.6): bp_conv and
 * bp_conv_transpose with their options struct filled from per-axis
 * sequences; nn.functional (backplane/nn/functional.py) turns torch's
 * arguments into those.
 */
#include "extension.h"

/* A sequence of at most BP_CONV_MAX_RANK ints into v[0..]; 1, or 0 with a
 * TypeError naming `what`. */
static int axes_arg(PyObject *seq, const char *what, int64_t *v) {
  int64_t values[MAX_SHAPE];
  const int n = get_shape_arg(seq, values);
  if (n < 0) return 0;
  if (n > BP_CONV_MAX_RANK) {
    PyErr_Format(PyExc_ValueError, "conv: %s has %d entries, at most %d spatial axes", what, n, BP_CONV_MAX_RANK);
    return 0;
  }
  for (int i = 0; i < n; ++i) v[i] = values[i];
  return 1;
}

/* conv(x, weight, bias or None, stride, padding_begin, padding_end, dilation,
 * output_padding, groups, transposed) */
static PyObject *m_conv(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
  (void)mod;
  REQUIRE_LOADED();
  if (nargs != 10)
    return PyErr_Format(PyExc_TypeError, "conv(x, weight, bias, stride, padding_begin, padding_end, dilation, "
                                         "output_padding, groups, transposed)");
  bp_tensor x, w, b = 0, out = 0;
  if (!get_tensor(args[0], &x) || !get_tensor(args[1], &w)) return NULL;
  if (args[2] != Py_None && !get_tensor(args[2], &b)) return NULL;
  bp_conv_options o = BP_CONV_OPTIONS_INIT;
  long groups;
  if (!axes_arg(args[3], "stride", o.stride) || !axes_arg(args[4], "padding", o.padding_begin) ||
      !axes_arg(args[5], "padding", o.padding_end) || !axes_arg(args[6], "dilation", o.dilation) ||
      !axes_arg(args[7], "output_padding", o.output_padding) || !int_arg(args[8], &groups))
    return NULL;
  o.groups = (int32_t)groups;
  const int transposed = PyObject_IsTrue(args[9]);
  if (transposed < 0) return NULL;
  if (transposed)
    CHECK_WITHOUT_GIL(p_bp_conv_transpose(x, w, b, &o, &out));
  else
    CHECK_WITHOUT_GIL(p_bp_conv(x, w, b, &o, &out));
  return wrap(out);
}

PyMethodDef conv_methods[] = {FAST(conv), {NULL, NULL, 0, NULL}};
