/*
 * gather.c — GATHER_ND and SCATTER_ND: rows of a tensor named by an int64
 * index of shape [N, k]. Row n is the sub-tensor at (index[n, 0], ...,
 * index[n, k-1]) over the first k axes; its elements are walked in C order
 * of the remaining axes.
 *
 * The core only sends indices inside their axes, but a plugin is also
 * called by other programs (bp check, fuzzers): every index is checked
 * before anything is written, so a bad one fails with BP_ERR_INDEX and
 * leaves the output as it was.
 */
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

/* Visits every element of every row and copies it: from the indexed tensor
 * (rank k + m) into the rows tensor (rank 1 + m) for a gather, the other way
 * for a scatter. */
static void walk_rows(const bp_plugin_tensor *index, const bp_plugin_tensor *indexed,
                      const bp_plugin_tensor *rows, int gather) {
  const int32_t k = (int32_t)index->shape[1];
  const int32_t m = rows->rank - 1;
  ref_walk w;
  for (ref_walk_start(&w, rows->rank, rows->shape); !w.done; ref_walk_next(&w)) {
    int64_t indexed_at[BP_MAX_RANK], at[2];
    int32_t d;
    at[0] = w.index[0];
    for (d = 0; d < k; ++d) {
      at[1] = d;
      indexed_at[d] = ref_get(index, at).i64;
    }
    for (d = 0; d < m; ++d) indexed_at[k + d] = w.index[1 + d];
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

/* Rows are written in order n = 0, 1, ...: of repeated index rows the last
 * one wins here, one of the answers plugin.h allows. */
bp_status ref_run_scatter(const bp_plugin_tensor *index, const bp_plugin_tensor *values,
                          const bp_plugin_tensor *output) {
  bp_status status = check_index("scatter_nd", index, output);
  if (status != BP_OK) return status;
  walk_rows(index, output, values, 0);
  return BP_OK;
}
