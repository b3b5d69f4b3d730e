// The CONV family (CONV, CONV_TRANSPOSE, CONV_WEIGHT_GRAD; plugin.h): float32
// through oneDNN where it is built in and takes the problem, else im2col
// and OpenBLAS GEMM; float64 by im2col and dgemm; float16 and bfloat16
// widened to float32 (exactly) and rounded once at the end, bfloat16
// natively through oneDNN where the CPU has a bfloat16 kernel (pointwise
// ones over small images as one bfloat16 GEMM of the batch,
// conv_pointwise_bf16.hpp). Strided views are gathered into dense ones
// first; oneDNN's blocked layouts and scratchpads come from the memory
// pool's cache (ScratchBlock).
#pragma once

#include <cstdint>
#include <string>

#include "backplane/plugin.h"
#include "thread_pool.hpp"

namespace cpu_backend {

// attrs: the caller's (attrs->params is the window).
void conv_kernel(ThreadPool &pool, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                 const bp_plugin_tensor *output);

// How a convolution of `dtype` runs here (the device properties
// conv_float32_path, conv_bfloat16_path, ...).
std::string conv_path(int32_t dtype);

}  // namespace cpu_backend
