/*
 * scan.c — CUMSUM: running sums along the last axis of the views.
 *
 * Each row is summed on its own, front to back. Float prefixes use the
 * compensated sum of accumulate.c, so every output element is the
 * (essentially) exact prefix sum rounded once to the dtype: the answer a
 * faster backend's order of additions is judged against. Integer and bool
 * rows add in uint64_t and wrap into int64.
 */
#include "reference.h"

void ref_run_scan(const bp_plugin_tensor *input, const bp_plugin_tensor *output) {
  const int32_t last = output->rank - 1; /* rank >= 1: bp_sdk_check_execute */
  const int32_t is_float = ref_dtype_is_float(input->dtype);
  ref_walk rows;
  for (ref_walk_start(&rows, last, output->shape); !rows.done; ref_walk_next(&rows)) {
    int64_t index[BP_MAX_RANK];
    int64_t j;
    ref_sum sum;
    uint64_t bits = 0;
    int32_t d;
    for (d = 0; d < last; ++d) index[d] = rows.index[d];
    ref_sum_start(&sum);
    for (j = 0; j < output->shape[last]; ++j) {
      ref_value x;
      index[last] = j;
      x = ref_get(input, index);
      if (is_float) {
        ref_sum_add(&sum, ref_to_f64(x, input->dtype));
        ref_set(output, index, ref_from_f64(ref_sum_result(&sum), output->dtype));
      } else {
        bits += (uint64_t)ref_to_i64(x, input->dtype);
        ref_set(output, index, ref_from_i64(ref_wrap_i64(bits), output->dtype));
      }
    }
  }
}
