// embedded_texts.hpp — OpenCL C that the programs compile, embedded at
// build time as it was in the source tree this plugin was built from
// (bp_opencl_embed in CMakeLists.txt generates each definition from
// embedded_text.cpp.in), so that the kernels compile these files and not
// copies of them.
#pragma once

namespace bp_ocl {

// Shared with the other backends:
// backplane/kernels/elementwise.cl then elementwise_ops.h: every
// elementwise operator's math (elementwise_ops() in kernel_source.hpp).
extern const char *const kElementwiseClText;
// backplane/kernels/random.h: the random stream of plugin.h.
extern const char *const kRandomHText;
// backplane/half.h: the float16 and bfloat16 conversions
// (half_conversions_source() in dtype.hpp).
extern const char *const kHalfHText;

}  // namespace bp_ocl
