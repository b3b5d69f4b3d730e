// Dense temporaries: a C-order contiguous copy of a view in scratch memory,
// for operands cuBLAS cannot take as they are and outputs that overlap an
// input, and the strided copy between two views that fills or empties one.
#pragma once

#include "kernel_args.hpp"
#include "scratch.hpp"
#include "view.hpp"

namespace bp_cuda {

// A view of its own strides; not copyable, since view.strides points into it.
struct DenseView {
  DenseView() = default;
  DenseView(const DenseView &) = delete;
  DenseView &operator=(const DenseView &) = delete;
  int64_t strides[BP_MAX_RANK] = {};
  View view{};
};

// Makes `dense` a C-order contiguous view shaped like `like` (same dtype)
// in scratch memory; like.numel > 0.
void make_dense(Scratch &scratch, const View &like, DenseView &dense);

// Enqueues dst = src element by element (same shape; dtypes as COPY).
void copy_view(const Launch &launch, const View &src, const View &dst);

}  // namespace bp_cuda
