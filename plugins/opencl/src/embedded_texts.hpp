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
// backplane/kernels/topk.cl: TOPK's keys and stable merge sort
// (topk_source() in topk.hpp).
extern const char *const kTopkClText;
// backplane/kernels/pool.cl: the pooling windows and their gradients
// (pool_source() in kernel_source.hpp).
extern const char *const kPoolClText;
// backplane/half.h: the float16 and bfloat16 conversions
// (half_conversions_source() in dtype.hpp).
extern const char *const kHalfHText;

// This plugin's kernels, a file per family in plugins/opencl/kernels/
// (README.md there: their sections and how kernel_source.cpp instantiates
// them): common.cl starts every program; the rest hold the templates.
extern const char *const kCommonCl;
extern const char *const kMapCl;         // Elementwise and Copy
extern const char *const kCreationCl;    // Create
extern const char *const kReductionCl;   // Reduce
extern const char *const kMatmulCl;      // Matmul (integers)
extern const char *const kScanCl;        // Scan
extern const char *const kIndexingCl;    // Index
extern const char *const kCollectiveCl;  // Collective
extern const char *const kSoftmaxCl;     // Softmax
extern const char *const kNormalizeCl;   // Normalize
extern const char *const kConvCl;        // Conv

}  // namespace bp_ocl
