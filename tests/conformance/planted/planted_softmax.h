/*
 * planted_softmax.h — planted.c's bugs of the SOFTMAX family (1.6), each a
 * softmax as people first write it:
 *   PLANT_SOFTMAX_UNSTABLE: exp(x) / sum(exp(x)), without the row's maximum
 *     subtracted, in the dtype's compute type: exp overflows to +inf for
 *     inputs past 88.7 (float32) and the row turns to NaN or 0.
 *   PLANT_LOG_SOFTMAX_OF_SOFTMAX: log_softmax as log(softmax(x)): -inf
 *     wherever softmax rounds to 0, where (x - m) - log(s) is finite.
 * Both let the reference check and run the call first, so every call the
 * kit means to be refused still is. Included by planted.c, after its
 * element() and g_real.
 */
#if defined(PLANT_SOFTMAX_UNSTABLE) || defined(PLANT_LOG_SOFTMAX_OF_SOFTMAX)
#include <stdlib.h>

/* A float element as a double, and back (rounded once into the dtype). */
static double planted_load(const unsigned char *p, int32_t dtype) {
  uint16_t h;
  switch (dtype) {
    case BP_FLOAT16: memcpy(&h, p, 2); return bp_f32_from_f16(h);
    case BP_BFLOAT16: memcpy(&h, p, 2); return bp_f32_from_bf16(h);
    default: return bp_test_load_float(p, dtype);
  }
}
static void planted_store(unsigned char *p, int32_t dtype, double v) {
  const float f = (float)v;
  uint16_t h;
  switch (dtype) {
    case BP_FLOAT16: h = bp_f16_from_f32(f); memcpy(p, &h, 2); break;
    case BP_BFLOAT16: h = bp_bf16_from_f32(f); memcpy(p, &h, 2); break;
    case BP_FLOAT32: memcpy(p, &f, 4); break;
    default: memcpy(p, &v, 8); break;
  }
}

/* A call whose views the planted code may read: one float input of the
 * output's dtype, rank and shape, rank >= 1. */
static int planted_softmax_applies(int32_t op, const bp_plugin_tensor *in, int32_t n_in, const bp_plugin_tensor *out) {
  int32_t d;
#ifdef PLANT_SOFTMAX_UNSTABLE
  if (op != BP_OP_SOFTMAX) return 0;
#else
  if (op != BP_OP_LOG_SOFTMAX) return 0;
#endif
  if (n_in != 1 || !in || !out || in[0].dtype != out->dtype || in[0].rank != out->rank || out->rank < 1 ||
      out->rank > BP_MAX_RANK || bp_vocab_dtype_kind(out->dtype) != BP_DTYPE_KIND_FLOAT)
    return 0;
  for (d = 0; d < out->rank; ++d)
    if (in[0].shape[d] != out->shape[d] || out->shape[d] <= 0) return 0;
  return 1;
}

#ifdef PLANT_SOFTMAX_UNSTABLE
/* float32's exp for every dtype but float64, as a float kernel would. */
static double planted_exp(double x, int32_t dtype) { return dtype == BP_FLOAT64 ? exp(x) : (double)expf((float)x); }

static bp_status planted_softmax(int32_t device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *in,
                                 const bp_plugin_tensor *out) {
  const int32_t last = out->rank - 1, dtype = out->dtype;
  const int64_t n = out->shape[last];
  int64_t idx[BP_MAX_RANK] = {0}, numel = 1, i = 0, row, j;
  int32_t d;
  double *x;
  bp_status s;
  for (d = 0; d < out->rank; ++d) numel *= out->shape[d];
  /* The input first: the output may be its very view. */
  x = malloc((size_t)numel * sizeof *x);
  if (!x) return BP_ERR_OUT_OF_MEMORY;
  do {
    x[i++] = planted_load(element(&in[0], idx), dtype);
  } while (bp_test_next_index(idx, out->shape, out->rank));
  s = g_real->execute(device, op, attrs, in, 1, out);
  if (s == BP_OK) {
    g_real->synchronize(device);
    for (row = 0; row < numel / n; ++row) {
      const double *xr = x + row * n;
      double sum = 0;
      for (j = 0; j < n; ++j) sum += planted_exp(xr[j], dtype);
      for (j = 0; j < n; ++j) {
        idx[last] = j;
        planted_store(element(out, idx), dtype, planted_exp(xr[j], dtype) / sum);
      }
      bp_test_next_index(idx, out->shape, out->rank); /* from the row's last element to the next row */
    }
  }
  free(x);
  return s;
}
#else
static bp_status planted_softmax(int32_t device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *in,
                                 const bp_plugin_tensor *out) {
  int64_t idx[BP_MAX_RANK] = {0};
  /* softmax's rows, checked and run by the reference, then their logs. */
  const bp_status s = g_real->execute(device, BP_OP_SOFTMAX, attrs, in, 1, out);
  (void)op;
  if (s != BP_OK) return s;
  g_real->synchronize(device);
  do {
    unsigned char *y = element(out, idx);
    planted_store(y, out->dtype, log(planted_load(y, out->dtype)));
  } while (bp_test_next_index(idx, out->shape, out->rank));
  return BP_OK;
}
#endif
#endif
