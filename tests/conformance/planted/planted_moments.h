/*
 * planted_moments.h — planted.c's bugs in the statistics of VAR, LAYER_NORM
 * and RMS_NORM (since 1.6), applied after the reference's own execute has
 * accepted the call and written its outputs (planted.c includes this after
 * element()):
 *   PLANT_HALF_MOMENTS_IN_HALF: float16 and bfloat16 means and sums of
 *     squared deviations accumulated in the dtype itself, rounded after
 *     every term, instead of in float32 or wider (plugin.h);
 *   PLANT_LAYER_NORM_UNBIASED: LAYER_NORM with the unbiased variance
 *     (divided by n - 1) where plugin.h says the biased one (n).
 */
#ifndef PLANTED_MOMENTS_H
#define PLANTED_MOMENTS_H

#if defined(PLANT_HALF_MOMENTS_IN_HALF) || defined(PLANT_LAYER_NORM_UNBIASED)
#define PLANT_MOMENTS 1

static int plant_is_half(int32_t dtype) { return dtype == BP_FLOAT16 || dtype == BP_BFLOAT16; }

static double plant_load(const bp_plugin_tensor *t, const int64_t *idx) {
  const unsigned char *p = element(t, idx);
  uint16_t h;
  if (!plant_is_half(t->dtype)) return bp_test_load_float(p, t->dtype);
  memcpy(&h, p, 2);
  return t->dtype == BP_FLOAT16 ? bp_f32_from_f16(h) : bp_f32_from_bf16(h);
}

static void plant_store(const bp_plugin_tensor *t, const int64_t *idx, double v) {
  unsigned char *p = element(t, idx);
  if (t->dtype == BP_FLOAT16 || t->dtype == BP_BFLOAT16) {
    const uint16_t h = t->dtype == BP_FLOAT16 ? bp_f16_from_f64(v) : bp_bf16_from_f64(v);
    memcpy(p, &h, 2);
  } else if (t->dtype == BP_FLOAT32) {
    const float f = (float)v;
    memcpy(p, &f, 4);
  } else {
    memcpy(p, &v, 8);
  }
}

/* a + b as the accumulator of the bug holds it: rounded into the dtype
 * after the addition (PLANT_HALF_MOMENTS_IN_HALF), else in double. */
static double plant_add(int32_t dtype, double a, double b) {
#ifdef PLANT_HALF_MOMENTS_IN_HALF
  if (dtype == BP_FLOAT16) return bp_f32_from_f16(bp_f16_from_f64(a + b));
  if (dtype == BP_BFLOAT16) return bp_f32_from_bf16(bp_bf16_from_f64(a + b));
#endif
  (void)dtype;
  return a + b;
}

#ifdef PLANT_HALF_MOMENTS_IN_HALF
/* VAR over the reduced axes of out (extent 1), each output from its set. */
static void plant_var(const bp_op_attrs *attrs, const bp_plugin_tensor *in, const bp_plugin_tensor *out) {
  int64_t oidx[BP_MAX_RANK] = {0}, inner[BP_MAX_RANK], idx[BP_MAX_RANK], out_numel = 1;
  int32_t d;
  for (d = 0; d < out->rank; ++d) {
    out_numel *= out->shape[d];
    inner[d] = out->shape[d] == 1 ? in->shape[d] : 1;
  }
  if (out_numel == 0) return;
  do {
    int64_t j[BP_MAX_RANK] = {0}, n = 0, count = 1;
    double sum = 0, m2 = 0, mean, divisor;
    for (d = 0; d < in->rank; ++d) count *= inner[d];
    if (count > 0)
      do {
        for (d = 0; d < in->rank; ++d) idx[d] = oidx[d] + j[d];
        sum = plant_add(in->dtype, sum, plant_load(in, idx));
        ++n;
      } while (bp_test_next_index(j, inner, in->rank));
    mean = n > 0 ? sum / (double)n : 0.0;
    memset(j, 0, sizeof j);
    if (count > 0)
      do {
        double dev;
        for (d = 0; d < in->rank; ++d) idx[d] = oidx[d] + j[d];
        dev = plant_load(in, idx) - mean;
        m2 = plant_add(in->dtype, m2, dev * dev);
      } while (bp_test_next_index(j, inner, in->rank));
    divisor = (double)n - attrs->scalar;
    plant_store(out, oidx, m2 / (divisor > 0 ? divisor : 0.0));
  } while (bp_test_next_index(oidx, out->shape, out->rank));
}
#endif

/* LAYER_NORM and RMS_NORM, every row again with the bug's statistics. */
static void plant_normalize(int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *in,
                            const bp_plugin_tensor *out) {
  const bp_plugin_tensor *x = &in[0];
  const int32_t last = x->rank - 1;
  const int64_t n = x->shape[last];
  int64_t rows[BP_MAX_RANK], idx[BP_MAX_RANK] = {0}, numel = 1;
  int32_t d;
  for (d = 0; d < x->rank; ++d) {
    rows[d] = d == last ? 1 : x->shape[d];
    numel *= rows[d];
  }
  if (numel == 0 || n == 0) return;
  do {
    double sum = 0, m2 = 0, mean = 0, divisor = (double)n, rstd;
    int64_t j;
#ifdef PLANT_LAYER_NORM_UNBIASED
    if (op == BP_OP_LAYER_NORM) divisor = (double)n - 1;
#endif
    if (op == BP_OP_LAYER_NORM) {
      for (j = 0; j < n; ++j) {
        idx[last] = j;
        sum = plant_add(x->dtype, sum, plant_load(x, idx));
      }
      mean = sum / (double)n;
    }
    for (j = 0; j < n; ++j) {
      double dev;
      idx[last] = j;
      dev = plant_load(x, idx) - mean;
      m2 = plant_add(x->dtype, m2, dev * dev);
    }
    rstd = 1.0 / sqrt(m2 / divisor + attrs->scalar);
    for (j = 0; j < n; ++j) {
      const int64_t k[1] = {j};
      double v;
      idx[last] = j;
      v = (plant_load(x, idx) - mean) * rstd;
      if (!bp_sdk_absent(&in[1])) v *= plant_load(&in[1], k);
      if (!bp_sdk_absent(&in[2])) v += plant_load(&in[2], k);
      plant_store(&out[0], idx, v);
    }
    idx[last] = 0;
    if (!bp_sdk_absent(&out[1])) plant_store(&out[1], idx, mean);
    if (!bp_sdk_absent(&out[2])) plant_store(&out[2], idx, rstd);
  } while (bp_test_next_index(idx, rows, x->rank));
}

/* The bug, where it applies (halves only, for PLANT_HALF_MOMENTS_IN_HALF). */
static void plant_moments(int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *in, int32_t n_in,
                          const bp_plugin_tensor *out) {
  if (n_in < 1) return;
#ifdef PLANT_HALF_MOMENTS_IN_HALF
  if (!plant_is_half(in[0].dtype)) return;
  if (op == BP_OP_VAR) plant_var(attrs, &in[0], out);
  if (op == BP_OP_LAYER_NORM || op == BP_OP_RMS_NORM) plant_normalize(op, attrs, in, out);
#else
  if (op == BP_OP_LAYER_NORM) plant_normalize(op, attrs, in, out);
#endif
}

#endif
#endif /* PLANTED_MOMENTS_H */
