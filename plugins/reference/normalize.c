/*
 * normalize.c — LAYER_NORM and RMS_NORM along the last axis (plugin.h).
 *
 * Each row's statistics in float64 with compensated sums (accumulate.c):
 * the mean first, then the squared deviations from it (LAYER_NORM), or the
 * squares (RMS_NORM). y is computed in float64 too and rounded once into
 * x's dtype; mean and rstd once into theirs. Absent weight and bias are 1
 * and 0; absent mean and rstd are not written.
 */
#include <math.h>

#include "reference.h"

static double element(const bp_plugin_tensor *t, int64_t *index, int32_t axis, int64_t j) {
  index[axis] = j;
  return ref_to_f64(ref_get(t, index), t->dtype);
}

static double affine(const bp_plugin_tensor *t, int64_t j, double absent) {
  int64_t index[1];
  if (bp_sdk_absent(t)) return absent;
  index[0] = j;
  return ref_to_f64(ref_get(t, index), t->dtype);
}

static void store_statistic(const bp_plugin_tensor *t, const int64_t *row, double value) {
  if (!bp_sdk_absent(t)) ref_set(t, row, ref_from_f64(value, t->dtype));
}

void ref_run_normalize(int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                       const bp_plugin_tensor *output) {
  const bp_plugin_tensor *x = &inputs[0], *weight = &inputs[1], *bias = &inputs[2];
  const bp_plugin_tensor *y = &output[0], *mean_out = &output[1], *rstd_out = &output[2];
  const int32_t last = x->rank - 1;
  const int64_t n = x->shape[last];
  int64_t rows[BP_MAX_RANK], index[BP_MAX_RANK];
  ref_walk w;
  int32_t d;

  /* One index per row: x's shape with the last extent 1. */
  for (d = 0; d < x->rank; ++d) rows[d] = d == last ? 1 : x->shape[d];
  for (ref_walk_start(&w, x->rank, rows); !w.done; ref_walk_next(&w)) {
    ref_sum sum;
    double mean = 0.0, rstd;
    int64_t j;
    for (d = 0; d < x->rank; ++d) index[d] = w.index[d];
    ref_sum_start(&sum);
    if (op == BP_OP_LAYER_NORM) {
      for (j = 0; j < n; ++j) ref_sum_add(&sum, element(x, index, last, j));
      mean = n > 0 ? ref_sum_result(&sum) / (double)n : NAN;
      ref_sum_start(&sum);
      for (j = 0; j < n; ++j) {
        const double deviation = element(x, index, last, j) - mean;
        ref_sum_add(&sum, deviation * deviation);
      }
    } else {
      for (j = 0; j < n; ++j) {
        const double v = element(x, index, last, j);
        ref_sum_add(&sum, v * v);
      }
    }
    rstd = 1.0 / sqrt((n > 0 ? ref_sum_result(&sum) / (double)n : NAN) + attrs->scalar);
    for (j = 0; j < n; ++j) {
      const double v = element(x, index, last, j);
      const double value = (v - mean) * rstd * affine(weight, j, 1.0) + affine(bias, j, 0.0);
      ref_set(y, index, ref_from_f64(value, y->dtype));
    }
    index[last] = 0;
    if (op == BP_OP_LAYER_NORM) store_statistic(mean_out, index, mean);
    store_statistic(rstd_out, index, rstd);
  }
}
