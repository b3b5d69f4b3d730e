/*
 * attention.c — ATTENTION: out = softmax(scale * q k^T + mask) v, one query
 * row at a time, by the definition in plugin.h.
 *
 * All views have the output's rank and batch extents (broadcast axes have
 * stride 0), so one walk over the output's batch axes and query rows
 * reaches every row; the indices into q, k, v and the mask are the walk's
 * with the last two axes replaced. Everything is computed in float64 (every
 * input dtype widens to it exactly), the dot products and sums with the
 * compensated sums of accumulate.c, and rounded once into the output. The
 * NaN cases of plugin.h need no code of their own: a row of -inf scores has
 * the maximum -inf, and exp(-inf - -inf) is NaN, as is any sum that meets
 * a NaN.
 */
#include <math.h>
#include <stdlib.h>

#include "reference.h"

bp_status ref_run_attention(const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                            const bp_plugin_tensor *output) {
  const bp_plugin_tensor *q = &inputs[0], *k = &inputs[1], *v = &inputs[2], *mask = &inputs[3];
  const int masked = mask->dtype != BP_DTYPE_INVALID;
  const int causal = (attrs->option & BP_OPTION_CAUSAL) != 0;
  const int32_t rank = output->rank, row_axis = rank - 2, column_axis = rank - 1;
  const int64_t keys = k->shape[row_axis], depth = q->shape[column_axis];
  const int64_t columns = output->shape[column_axis];
  const int32_t dtype = output->dtype;
  int64_t index[BP_MAX_RANK];
  double *weights;
  ref_walk w;

  weights = (double *)malloc((size_t)(keys > 0 ? keys : 1) * sizeof(double));
  if (weights == NULL)
    return ref_fail(BP_ERR_OUT_OF_MEMORY, "attention: no host memory for %lld scores", (long long)keys);

  /* The walk covers the batch axes and the query axis: w.index[row_axis] is i. */
  for (ref_walk_start(&w, rank - 1, output->shape); !w.done; ref_walk_next(&w)) {
    const int64_t i = w.index[row_axis];
    double maximum = -INFINITY;
    ref_sum total;
    int64_t j, d, c;
    int32_t a;

    for (a = 0; a < row_axis; ++a) index[a] = w.index[a];
    for (j = 0; j < keys; ++j) {
      ref_sum dot;
      double score;
      ref_sum_start(&dot);
      for (d = 0; d < depth; ++d) {
        double x, y;
        index[row_axis] = i; /* q[..., i, d] */
        index[column_axis] = d;
        x = ref_to_f64(ref_get(q, index), dtype);
        index[row_axis] = j; /* k[..., j, d] */
        y = ref_to_f64(ref_get(k, index), dtype);
        ref_sum_add(&dot, x * y);
      }
      score = attrs->scalar * ref_sum_result(&dot);
      if (masked) {
        index[row_axis] = i; /* mask[..., i, j] */
        index[column_axis] = j;
        score += ref_to_f64(ref_get(mask, index), dtype);
      }
      if (causal && j > i) score = -INFINITY;
      weights[j] = score;
      if (score > maximum) maximum = score;
    }
    ref_sum_start(&total);
    for (j = 0; j < keys; ++j) {
      weights[j] = exp(weights[j] - maximum);
      ref_sum_add(&total, weights[j]);
    }
    for (j = 0; j < keys; ++j) weights[j] /= ref_sum_result(&total);
    for (c = 0; c < columns; ++c) {
      ref_sum value;
      ref_sum_start(&value);
      index[column_axis] = c;
      for (j = 0; j < keys; ++j) {
        index[row_axis] = j; /* v[..., j, c] */
        ref_sum_add(&value, weights[j] * ref_to_f64(ref_get(v, index), dtype));
      }
      index[row_axis] = i;
      ref_set(output, index, ref_from_f64(ref_sum_result(&value), dtype));
    }
  }
  free(weights);
  return BP_OK;
}
