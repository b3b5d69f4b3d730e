/*
 * backplane/kernels/indexing.hpp — how GATHER_ND and SCATTER_ND find the
 * slice an index row names (semantics in backplane/plugin.h), shared by
 * every backend. Header-only C++17, host and nvcc device code.
 */
#ifndef BACKPLANE_KERNELS_INDEXING_HPP
#define BACKPLANE_KERNELS_INDEXING_HPP

#include <stdint.h>

#include "backplane/kernels/elementwise.hpp"

namespace bp_kernels {

/* One index row: k int64 values at row[0], row[column_stride], ...; value j
 * picks a position on axis j of the indexed tensor (extent[j], strides[j]).
 * Sets *offset to the element offset of the slice they name and returns -1,
 * or returns the first column whose value lies outside [0, extent) (and
 * *offset is then meaningless), so that no caller ever addresses memory
 * outside its view. */
BP_HD inline int32_t slice_offset(const int64_t *row, int64_t column_stride, int32_t k, const int64_t *extent,
                                  const int64_t *strides, int64_t *offset) {
  int64_t at = 0;
  for (int32_t j = 0; j < k; ++j) {
    const int64_t i = row[j * column_stride];
    if (i < 0 || i >= extent[j]) return j;
    at += i * strides[j];
  }
  *offset = at;
  return -1;
}

}  // namespace bp_kernels

#endif /* BACKPLANE_KERNELS_INDEXING_HPP */
