/*
 * backplane/sdk/coalesce.h — the iteration space of several strided views
 * that share one shape (an elementwise operator's output and inputs, the
 * kept or reduced axes of a reduction), made as small as the strides allow
 * (since 1.5). C99, C++ and CUDA host code; nothing to link.
 *
 * Axes of extent 1 are dropped (their stride never matters) and an axis is
 * merged into the previous one when, for every operand, the previous
 * stride is this one's times its extent: the two then walk like one axis.
 * Merging an outer axis into the next inner one keeps the C order of the
 * elements, so a position in the coalesced space is still an element's
 * C-order position (creation operators, ARGMAX and scans rely on it). A
 * dense view becomes one axis; a single element, rank 0.
 */
#ifndef BACKPLANE_SDK_COALESCE_H
#define BACKPLANE_SDK_COALESCE_H

#include <stdint.h>

/* The most operands bp_sdk_coalesce walks at once. */
#define BP_SDK_COALESCE_MAX_OPERANDS 16

/* Appends an axis of `extent`, walked by operand k with stride
 * axis_strides[k] (k < n), to a space of *rank axes: shape[d] its extents,
 * strides[k][d] operand k's strides, all owned by the caller with room for
 * one more axis. Extent 1 adds nothing; a mergeable axis grows the last
 * one; otherwise *rank grows by one. */
static inline void bp_sdk_push_axis(int32_t *rank, int64_t *shape, int64_t *const *strides, int32_t n,
                                    int64_t extent, const int64_t *axis_strides) {
  int32_t k, merge = *rank > 0;
  if (extent == 1) return;
  for (k = 0; k < n && merge; ++k) merge = strides[k][*rank - 1] == axis_strides[k] * extent;
  if (merge) {
    shape[*rank - 1] *= extent;
    for (k = 0; k < n; ++k) strides[k][*rank - 1] = axis_strides[k];
    return;
  }
  shape[*rank] = extent;
  for (k = 0; k < n; ++k) strides[k][*rank] = axis_strides[k];
  ++*rank;
}

/* The coalesced space of `rank` axes of `shape` walked by n operands:
 * in_strides[k] is operand k's strides, or NULL for an operand that stays
 * in place (a scalar: stride 0 on every axis). Writes out_shape and
 * out_strides[k] (each with room for `rank` entries, caller-owned) and
 * returns the coalesced rank, 0 when every extent is 1; -1 (nothing
 * written) when n is not in [0, BP_SDK_COALESCE_MAX_OPERANDS]. With no
 * operand (n = 0) every axis merges: the space is one line. */
static inline int32_t bp_sdk_coalesce(int32_t rank, const int64_t *shape, int32_t n,
                                      const int64_t *const *in_strides, int64_t *out_shape,
                                      int64_t *const *out_strides) {
  int32_t d, k, out_rank = 0;
  int64_t axis_strides[BP_SDK_COALESCE_MAX_OPERANDS];
  if (n < 0 || n > BP_SDK_COALESCE_MAX_OPERANDS) return -1;
  for (d = 0; d < rank; ++d) {
    for (k = 0; k < n; ++k) axis_strides[k] = in_strides[k] ? in_strides[k][d] : 0;
    bp_sdk_push_axis(&out_rank, out_shape, out_strides, n, shape[d], axis_strides);
  }
  return out_rank;
}

/* 1 when a view of `rank` axes of `shape` with `strides` (in elements) is
 * dense in C order: its elements are consecutive from its first one, as a
 * library that takes a plain array (a GEMM, cuDNN, oneDNN) reads them.
 * Axes of extent 1 are skipped (their stride never matters); the others
 * are judged by their strides alone, an empty view's too. Since 1.6. */
static inline int32_t bp_sdk_is_dense(int32_t rank, const int64_t *shape, const int64_t *strides) {
  int64_t stride = 1;
  int32_t d;
  for (d = rank - 1; d >= 0; --d) {
    if (shape[d] > 1 && strides[d] != stride) return 0;
    stride *= shape[d];
  }
  return 1;
}

#endif /* BACKPLANE_SDK_COALESCE_H */
