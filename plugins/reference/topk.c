/*
 * topk.c — TOPK: each row along the last axis put in order, the first k
 * written (values and int64 positions).
 *
 * Every row is sorted whole by a plain top-down merge sort of its
 * positions, which is stable by construction (on a tie the left run's
 * element is taken first), so equal elements keep their positions' order.
 * The order itself is the one function `precedes` below, written from
 * plugin.h's words: numbers by value (floats as float64, exact for every
 * float dtype; integers and bool as int64), -0 equal to +0, every NaN after
 * every number and equal to every other NaN; descending reverses it between
 * unequal elements only.
 */
#include <math.h>
#include <stdlib.h>

#include "reference.h"

typedef struct topk_row {
  const bp_plugin_tensor *input;
  int64_t index[BP_MAX_RANK]; /* the row's index; its last entry is set per element */
  int32_t last;
  int largest;
} topk_row;

static ref_value element(topk_row *row, int64_t position) {
  row->index[row->last] = position;
  return ref_get(row->input, row->index);
}

/* -1, 0 or 1: a before, tied with, or after b in ascending order. */
static int ascending(ref_value a, ref_value b, int32_t dtype) {
  if (ref_dtype_is_float(dtype)) {
    const double x = ref_to_f64(a, dtype), y = ref_to_f64(b, dtype);
    const int x_nan = isnan(x) != 0, y_nan = isnan(y) != 0;
    if (x_nan || y_nan) return x_nan - y_nan; /* NaN after every number, tied with NaN */
    return x < y ? -1 : x > y ? 1 : 0;        /* -0 == +0: a tie */
  } else {
    const int64_t x = ref_to_i64(a, dtype), y = ref_to_i64(b, dtype);
    return x < y ? -1 : x > y ? 1 : 0;
  }
}

/* Whether the element at position q must come before the one at p, p < q
 * (q is from the right run): only when it is strictly earlier in the order. */
static int right_first(topk_row *row, int64_t p, int64_t q) {
  const int order = ascending(element(row, q), element(row, p), row->input->dtype);
  return row->largest ? order > 0 : order < 0;
}

/* Sorts positions[0..n) using scratch[0..n). */
static void merge_sort(topk_row *row, int64_t *positions, int64_t *scratch, int64_t n) {
  int64_t half, i, j, k;
  if (n < 2) return;
  half = n / 2;
  merge_sort(row, positions, scratch, half);
  merge_sort(row, positions + half, scratch, n - half);
  for (i = 0, j = half, k = 0; k < n; ++k) {
    const int take_right = i == half || (j < n && right_first(row, positions[i], positions[j]));
    scratch[k] = take_right ? positions[j++] : positions[i++];
  }
  for (k = 0; k < n; ++k) positions[k] = scratch[k];
}

bp_status ref_run_topk(const bp_op_attrs *attrs, const bp_plugin_tensor *input, const bp_plugin_tensor *outputs) {
  const bp_plugin_tensor *values = &outputs[0], *indices = &outputs[1];
  const int32_t last = input->rank - 1; /* rank >= 1: bp_sdk_check_execute */
  const int64_t n = input->shape[last], k = values->shape[last];
  int64_t *positions, *scratch;
  topk_row row;
  ref_walk rows;
  if (k == 0 || ref_numel(values) == 0) return BP_OK;
  positions = (int64_t *)malloc((size_t)n * sizeof *positions);
  scratch = (int64_t *)malloc((size_t)n * sizeof *scratch);
  if (positions == NULL || scratch == NULL) {
    free(positions);
    free(scratch);
    return ref_fail(BP_ERR_OUT_OF_MEMORY, "%s: no host memory for a row of %lld positions",
                    bp_vocab_op_name(BP_OP_TOPK), (long long)n);
  }
  row.input = input;
  row.last = last;
  row.largest = (attrs->option & BP_OPTION_LARGEST) != 0;
  for (ref_walk_start(&rows, last, input->shape); !rows.done; ref_walk_next(&rows)) {
    int64_t out_index[BP_MAX_RANK], j;
    int32_t d;
    for (d = 0; d < last; ++d) row.index[d] = out_index[d] = rows.index[d];
    for (j = 0; j < n; ++j) positions[j] = j;
    merge_sort(&row, positions, scratch, n);
    for (j = 0; j < k; ++j) {
      ref_value position;
      out_index[last] = j;
      position.i64 = positions[j];
      ref_set(values, out_index, element(&row, positions[j]));
      ref_set(indices, out_index, position);
    }
  }
  free(positions);
  free(scratch);
  return BP_OK;
}
