// Iteration over the elements of N strided views that share one shape (the
// output and the inputs of an elementwise operator, or the kept axes of a
// reduction): the shape is simplified once, then walked in runs along the
// innermost axis so that the per-element loop is a plain loop over
// pointers with fixed strides, which the kernels specialise for the
// contiguous and broadcast cases.
#pragma once

#include <algorithm>
#include <cstdint>

#include "backplane/sdk/coalesce.h"
#include "backplane/types.h"

namespace cpu_backend {

template <int N>
struct Layout {
  int rank = 1;
  int64_t shape[BP_MAX_RANK] = {1};
  int64_t strides[N][BP_MAX_RANK] = {};  // in elements, per operand

  int64_t inner_stride(int operand) const { return strides[operand][rank - 1]; }
  // Zero first: only the product of a non-empty validated view is sure to fit.
  int64_t numel() const {
    for (int d = 0; d < rank; ++d)
      if (shape[d] == 0) return 0;
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= shape[d];
    return n;
  }
};

// The operands' space coalesced (bp_sdk_coalesce: extent-1 axes dropped,
// neighbours contiguous in every operand merged, C-order positions kept, so
// creation ops may use positions from the walk); a single element becomes
// one axis of extent 1.
template <int N>
Layout<N> make_layout(int rank, const int64_t *shape, const int64_t *const (&strides)[N]) {
  static_assert(N <= BP_SDK_COALESCE_MAX_OPERANDS, "operands bp_sdk_coalesce walks");
  Layout<N> layout;
  int64_t *out_strides[N];
  for (int k = 0; k < N; ++k) out_strides[k] = layout.strides[k];
  layout.rank = bp_sdk_coalesce(rank, shape, N, strides, layout.shape, out_strides);
  if (layout.rank == 0) layout.rank = 1;  // shape {1}, strides 0: the defaults
  return layout;
}

// Calls fn(offsets, n, pos) for each run of consecutive C-order elements in
// [begin, end) that lie on one innermost line: offsets[k] is the element
// offset of the run's first element in operand k (the next ones follow at
// inner_stride(k)), n the run's length and pos the C-order position of its
// first element.
template <int N, class Fn>
void walk(const Layout<N> &layout, int64_t begin, int64_t end, Fn &&fn) {
  if (begin >= end) return;  // also keeps an empty shape out of the divisions
  const int last = layout.rank - 1;
  int64_t index[BP_MAX_RANK];
  int64_t offsets[N] = {};
  int64_t rest = begin;
  for (int d = last; d >= 0; --d) {
    index[d] = rest % layout.shape[d];
    rest /= layout.shape[d];
    for (int k = 0; k < N; ++k) offsets[k] += index[d] * layout.strides[k][d];
  }
  for (int64_t pos = begin; pos < end;) {
    const int64_t n = std::min(layout.shape[last] - index[last], end - pos);
    fn(static_cast<const int64_t *>(offsets), n, pos);
    pos += n;
    if (pos >= end) break;
    // The run reached the end of its line: back to the line's start, then
    // carry into the outer axes like an odometer.
    for (int k = 0; k < N; ++k) offsets[k] -= index[last] * layout.strides[k][last];
    index[last] = 0;
    for (int d = last - 1;; --d) {
      ++index[d];
      for (int k = 0; k < N; ++k) offsets[k] += layout.strides[k][d];
      if (index[d] < layout.shape[d]) break;
      for (int k = 0; k < N; ++k) offsets[k] -= index[d] * layout.strides[k][d];
      index[d] = 0;
    }
  }
}

}  // namespace cpu_backend
