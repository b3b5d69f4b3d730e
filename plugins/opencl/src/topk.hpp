// topk.hpp — TOPK on OpenCL (topk.cpp): the layout its kernels take and the
// OpenCL C of its program (backplane/kernels/topk.cl, embedded at build time).
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <string>

#include "backplane/types.h"

namespace bp_ocl {

// The row axes (every axis but the last, extent 1 dropped) with the strides
// of the input, values and indices (operands 0, 1, 2), each view's offset
// and stride along the last axis, the row count, the row length n and k.
// bp_topk_layout in topk.cl mirrors it field for field.
struct ClTopkLayout {
  cl_long row_shape[BP_MAX_RANK - 1];
  cl_long row_stride[3][BP_MAX_RANK - 1];
  cl_long offset[3];
  cl_long step[3];
  cl_long row_rank, n_rows, n, k;
};
static_assert(sizeof(ClTopkLayout) == 38 * sizeof(cl_long), "ClTopkLayout has padding");

// The program's text after the prelude (kernel_source.cpp): the key of a
// stored element of `dtype` (TOPK_KEY) and topk.cl's kernels.
std::string topk_source(int32_t dtype);

}  // namespace bp_ocl
