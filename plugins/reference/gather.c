/*
 * gather.c — GATHER_ND, SCATTER_ND and SCATTER_ADD_ND: rows of a tensor
 * named by an int64 index of shape [N, k]. Row n is the sub-tensor at
 * (index[n, 0], ..., index[n, k-1]) over the first k axes; its elements are
 * walked in C order of the remaining axes.
 *
 * The core only sends indices inside their axes, but a plugin is also
 * called by other programs (bp check, fuzzers): every index is checked
 * before anything is written, so a bad one fails with BP_ERR_INDEX and
 * leaves the output as it was.
 */
#include <stdlib.h>

#include "reference.h"

/* BP_OK when every index[n, j] lies in [0, indexed->shape[j]). */
static bp_status check_index(const char *op, const bp_plugin_tensor *index,
                             const bp_plugin_tensor *indexed) {
  ref_walk w;
  for (ref_walk_start(&w, 2, index->shape); !w.done; ref_walk_next(&w)) {
    const int64_t at = ref_get(index, w.index).i64;
    const int64_t extent = indexed->shape[w.index[1]];
    if (at < 0 || at >= extent)
      return ref_fail(BP_ERR_INDEX, "%s: index[%lld, %lld] = %lld is outside axis %lld of extent %lld",
                      op, (long long)w.index[0], (long long)w.index[1], (long long)at,
                      (long long)w.index[1], (long long)extent);
  }
  return BP_OK;
}

/* The index of the element of the indexed tensor (rank k + m) that the
 * element of the rows tensor (rank 1 + m) at rows_at pairs with. */
static void indexed_index(const bp_plugin_tensor *index, const int64_t *rows_at, int32_t m,
                          int64_t *indexed_at) {
  const int32_t k = (int32_t)index->shape[1];
  int64_t at[2];
  int32_t d;
  at[0] = rows_at[0];
  for (d = 0; d < k; ++d) {
    at[1] = d;
    indexed_at[d] = ref_get(index, at).i64;
  }
  for (d = 0; d < m; ++d) indexed_at[k + d] = rows_at[1 + d];
}

/* Visits every element of every row and copies it: from the indexed tensor
 * (rank k + m) into the rows tensor (rank 1 + m) for a gather, the other way
 * for a scatter. */
static void walk_rows(const bp_plugin_tensor *index, const bp_plugin_tensor *indexed,
                      const bp_plugin_tensor *rows, int gather) {
  ref_walk w;
  for (ref_walk_start(&w, rows->rank, rows->shape); !w.done; ref_walk_next(&w)) {
    int64_t indexed_at[BP_MAX_RANK];
    indexed_index(index, w.index, rows->rank - 1, indexed_at);
    if (gather)
      ref_set(rows, w.index, ref_get(indexed, indexed_at));
    else
      ref_set(indexed, indexed_at, ref_get(rows, w.index));
  }
}

bp_status ref_run_gather(const bp_plugin_tensor *data, const bp_plugin_tensor *index,
                         const bp_plugin_tensor *output) {
  bp_status status = check_index("gather_nd", index, data);
  if (status != BP_OK) return status;
  walk_rows(index, data, output, 1);
  return BP_OK;
}

/* The C-order position of `at` in `t`'s shape. */
static int64_t c_position(const bp_plugin_tensor *t, const int64_t *at) {
  int64_t position = 0;
  int32_t d;
  for (d = 0; d < t->rank; ++d) position = position * t->shape[d] + at[d];
  return position;
}

/* SCATTER_ADD_ND on integers: added in place, wrapping (so in any order). */
static void add_rows_integer(const bp_plugin_tensor *index, const bp_plugin_tensor *values,
                             const bp_plugin_tensor *output) {
  ref_walk w;
  for (ref_walk_start(&w, values->rank, values->shape); !w.done; ref_walk_next(&w)) {
    int64_t at[BP_MAX_RANK];
    indexed_index(index, w.index, values->rank - 1, at);
    ref_set(output, at,
            ref_binary(BP_OP_ADD, output->dtype, ref_get(output, at), ref_get(values, w.index)));
  }
}

/* SCATTER_ADD_ND on floats, the way SUM adds: each named element's terms,
 * its old value first, summed compensated in float64 and rounded once, so
 * repeated rows give (nearly) the exact sum whatever their order. One sum
 * per output element, by C-order position; only named elements are
 * written back. */
static bp_status add_rows_float(const bp_plugin_tensor *index, const bp_plugin_tensor *values,
                                const bp_plugin_tensor *output) {
  const int64_t n = ref_numel(output);
  ref_sum *sums = (ref_sum *)malloc((size_t)n * sizeof *sums);
  unsigned char *named = (unsigned char *)calloc((size_t)n, 1);
  ref_walk w;
  if (!sums || !named) {
    free(sums);
    free(named);
    return ref_fail(BP_ERR_OUT_OF_MEMORY, "scatter_add_nd: no host memory for %lld sums",
                    (long long)n);
  }
  for (ref_walk_start(&w, values->rank, values->shape); !w.done; ref_walk_next(&w)) {
    int64_t at[BP_MAX_RANK], p;
    indexed_index(index, w.index, values->rank - 1, at);
    p = c_position(output, at);
    if (!named[p]) ref_sum_start_with(&sums[p], ref_to_f64(ref_get(output, at), output->dtype));
    named[p] = 1;
    ref_sum_add(&sums[p], ref_to_f64(ref_get(values, w.index), values->dtype));
  }
  for (ref_walk_start(&w, output->rank, output->shape); !w.done; ref_walk_next(&w))
    if (named[w.position])
      ref_set(output, w.index, ref_from_f64(ref_sum_result(&sums[w.position]), output->dtype));
  free(sums);
  free(named);
  return BP_OK;
}

/* SCATTER_ND writes rows in order n = 0, 1, ...: of repeated index rows the
 * last one wins here, one of the answers plugin.h allows. */
bp_status ref_run_scatter(int32_t op, const bp_plugin_tensor *index, const bp_plugin_tensor *values,
                          const bp_plugin_tensor *output) {
  bp_status status = check_index(bp_vocab_op_name(op), index, output);
  if (status != BP_OK) return status;
  if (op == BP_OP_SCATTER_ND) {
    walk_rows(index, output, values, 0);
    return BP_OK;
  }
  if (ref_numel(values) == 0) return BP_OK; /* nothing to add (and no sums to allocate) */
  if (!ref_dtype_is_float(output->dtype)) {
    add_rows_integer(index, values, output);
    return BP_OK;
  }
  return add_rows_float(index, values, output);
}
