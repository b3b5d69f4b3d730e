// softmax_source.hpp — the Softmax program family (SOFTMAX, LOG_SOFTMAX):
// the layout its kernels take (whose OpenCL C twin is softmax.cl's
// bp_softmax_layout) and its source.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <string>

#include "backplane/types.h"

namespace bp_ocl {

// The rows along the last axis: the `row` axes (every axis but the last)
// index them; each row is walked `len` elements, in_step and out_step apart.
struct ClSoftmaxLayout {
  cl_long row_shape[BP_MAX_RANK - 1];
  cl_long row_in[BP_MAX_RANK - 1];
  cl_long row_out[BP_MAX_RANK - 1];
  cl_long row_rank, in_offset, out_offset, n_rows, len, in_step, out_step;
};
static_assert(sizeof(ClSoftmaxLayout) == 28 * sizeof(cl_long), "ClSoftmaxLayout has padding");

// Largest work-group of the kernels (their __local arrays' length).
constexpr size_t kSoftmaxGroupMax = 128;

// The kernels "softmax" and "log_softmax" (kernel_stem's names), to follow
// kernel_source's prelude of the program's dtype.
std::string softmax_source();

}  // namespace bp_ocl
