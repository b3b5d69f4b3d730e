/*
 * softmax.c — SOFTMAX and LOG_SOFTMAX: each row along the last axis of the
 * views normalised on its own (plugin.h).
 *
 * Every dtype computes in float64 (float16, bfloat16 and float32 widen to
 * it exactly) with the compensated sum of accumulate.c, and each output
 * element is rounded once into its dtype: the answer the faster backends'
 * float32 arithmetic and order of additions are judged against. The special
 * rows are decided before any arithmetic, so that the oracle says what
 * plugin.h says in so many words rather than by IEEE accident: a NaN, a
 * +inf or a row of -inf only gives NaN everywhere.
 */
#include <math.h>

#include "reference.h"

/* The row's maximum, or NaN when plugin.h gives the row NaN everywhere. */
static double row_maximum(const bp_plugin_tensor *input, int64_t *index, int32_t last) {
  double m = -INFINITY;
  int64_t j;
  for (j = 0; j < input->shape[last]; ++j) {
    double x;
    index[last] = j;
    x = ref_to_f64(ref_get(input, index), input->dtype);
    if (isnan(x) || x == INFINITY) return NAN;
    if (x > m) m = x;
  }
  return m == -INFINITY ? NAN : m;
}

void ref_run_softmax(int32_t op, const bp_plugin_tensor *input, const bp_plugin_tensor *output) {
  const int32_t last = output->rank - 1; /* rank >= 1: bp_sdk_check_execute */
  const int32_t dtype = output->dtype;
  ref_walk rows;
  if (output->shape[last] == 0) return;
  for (ref_walk_start(&rows, last, output->shape); !rows.done; ref_walk_next(&rows)) {
    int64_t index[BP_MAX_RANK];
    int64_t j;
    int32_t d;
    double m, s;
    ref_sum sum;
    for (d = 0; d < last; ++d) index[d] = rows.index[d];
    m = row_maximum(input, index, last);
    if (isnan(m)) {
      for (j = 0; j < output->shape[last]; ++j) {
        index[last] = j;
        ref_set(output, index, ref_from_f64(NAN, dtype));
      }
      continue;
    }
    ref_sum_start(&sum);
    for (j = 0; j < output->shape[last]; ++j) {
      index[last] = j;
      ref_sum_add(&sum, exp(ref_to_f64(ref_get(input, index), input->dtype) - m));
    }
    s = ref_sum_result(&sum);
    for (j = 0; j < output->shape[last]; ++j) {
      double t;
      index[last] = j;
      t = ref_to_f64(ref_get(input, index), input->dtype) - m;
      ref_set(output, index, ref_from_f64(op == BP_OP_LOG_SOFTMAX ? t - log(s) : exp(t) / s, dtype));
    }
  }
}
