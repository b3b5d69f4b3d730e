/*
 * attention.c — bp_attention for the Python layer
 * (nn.functional.scaled_dot_product_attention, nn.MultiheadAttention).
 */
#include "extension.h"

/* attention(q, k, v, mask, causal, scale, dropout, seed): mask None or a
 * tensor; scale 0 for 1 / sqrt(D). */
static PyObject *m_attention(PyObject *mod, PyObject *args) {
  (void)mod;
  PyObject *tq, *tk, *tv, *tmask;
  int causal;
  double scale, dropout;
  unsigned long long seed;
  bp_tensor q, k, v, out;
  bp_attention_options options;
  if (!PyArg_ParseTuple(args, "OOOOpddK:attention", &tq, &tk, &tv, &tmask, &causal, &scale, &dropout,
                        &seed) ||
      !get_tensor(tq, &q) || !get_tensor(tk, &k) || !get_tensor(tv, &v))
    return NULL;
  options.struct_size = sizeof options;
  options.causal = causal;
  options.mask = BP_NO_TENSOR;
  if (tmask != Py_None && !get_tensor(tmask, &options.mask)) return NULL;
  options.scale = scale;
  options.dropout = dropout;
  options.seed = (uint64_t)seed;
  CHECK(p_bp_attention(q, k, v, &options, &out));
  return wrap(out);
}

PyMethodDef attention_methods[] = {
    VARARGS(attention),
    {NULL, NULL, 0, NULL}};
