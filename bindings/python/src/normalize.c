/*
 * normalize.c — the normalisations of backplane.h (since 1.6): bp_var_axes,
 * bp_layer_norm, bp_rms_norm, bp_group_norm and bp_batch_norm. An optional
 * tensor argument is None for none.
 */
#include "extension.h"

/* A tensor, or None as the 0 handle: 1, or 0 with a TypeError. */
static int optional_tensor(PyObject *o, bp_tensor *out) {
  if (o == Py_None) {
    *out = 0;
    return 1;
  }
  return get_tensor(o, out);
}

static int optional_converter(PyObject *o, void *out) { return optional_tensor(o, (bp_tensor *)out); }

/* var_axes(a, axes, keepdims, correction) */
static PyObject *m_var_axes(PyObject *mod, PyObject *args) {
  (void)mod;
  bp_tensor a, out;
  PyObject *axes_obj;
  int keepdims;
  double correction;
  if (!PyArg_ParseTuple(args, "O&Opd:var_axes", tensor_converter, &a, &axes_obj, &keepdims, &correction))
    return NULL;
  int64_t wide[MAX_SHAPE];
  const int n = get_shape_arg(axes_obj, wide);
  if (n < 0) return NULL;
  int32_t axes[MAX_SHAPE];
  for (int i = 0; i < n; ++i) axes[i] = (int32_t)wide[i];
  CHECK(p_bp_var_axes(a, axes, n, keepdims, correction, &out));
  return wrap(out);
}

/* layer_norm(x, weight, bias, axes, eps, stats): y, or (y, mean, rstd) with
 * stats; rms_norm(...) the same with (y, rstd). The two take one argument
 * list and differ in the statistics they give. */
static PyObject *norm_over_axes(PyObject *args, int rms) {
  bp_tensor x, w, b, h[3];
  int axes, stats;
  double eps;
  if (!PyArg_ParseTuple(args, rms ? "O&O&O&idp:rms_norm" : "O&O&O&idp:layer_norm", tensor_converter, &x,
                        optional_converter, &w, optional_converter, &b, &axes, &eps, &stats))
    return NULL;
  if (rms)
    CHECK(p_bp_rms_norm(x, w, b, axes, eps, &h[0], stats ? &h[1] : NULL));
  else
    CHECK(p_bp_layer_norm(x, w, b, axes, eps, &h[0], stats ? &h[1] : NULL, stats ? &h[2] : NULL));
  return stats ? wrap_tuple(h, rms ? 2 : 3) : wrap(h[0]);
}

static PyObject *m_layer_norm(PyObject *mod, PyObject *args) {
  (void)mod;
  return norm_over_axes(args, 0);
}

static PyObject *m_rms_norm(PyObject *mod, PyObject *args) {
  (void)mod;
  return norm_over_axes(args, 1);
}

/* group_norm(x, groups, weight, bias, eps) */
static PyObject *m_group_norm(PyObject *mod, PyObject *args) {
  (void)mod;
  bp_tensor x, w, b, out;
  long long groups;
  double eps;
  if (!PyArg_ParseTuple(args, "O&LO&O&d:group_norm", tensor_converter, &x, &groups, optional_converter, &w,
                        optional_converter, &b, &eps))
    return NULL;
  CHECK(p_bp_group_norm(x, (int64_t)groups, w, b, eps, &out));
  return wrap(out);
}

/* batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps) */
static PyObject *m_batch_norm(PyObject *mod, PyObject *args) {
  (void)mod;
  bp_tensor x, rm, rv, w, b, out;
  int training;
  double momentum, eps;
  if (!PyArg_ParseTuple(args, "O&O&O&O&O&pdd:batch_norm", tensor_converter, &x, optional_converter, &rm,
                        optional_converter, &rv, optional_converter, &w, optional_converter, &b, &training,
                        &momentum, &eps))
    return NULL;
  CHECK(p_bp_batch_norm(x, rm, rv, w, b, training, momentum, eps, &out));
  return wrap(out);
}

PyMethodDef normalize_methods[] = {
    VARARGS(var_axes),
    VARARGS(layer_norm),
    VARARGS(rms_norm),
    VARARGS(group_norm),
    VARARGS(batch_norm),
    {NULL, NULL, 0, NULL},
};
