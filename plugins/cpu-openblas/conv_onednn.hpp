// The CONV family through oneDNN's convolution primitives (optional at build
// time: BP_CPU_HAVE_ONEDNN), on dense C-order operands. The batch (or, where
// the weights outweigh x, the output channels) is split over the backend's
// pool, each slice run by oneDNN on its thread alone (no
// OpenMP team whose spinning workers would take the cores from OpenBLAS's
// threads, as gemm_onednn.hpp found); primitives, and the reorders between
// the plain layouts the core sees and the blocked ones oneDNN computes in,
// are cached by problem.
#pragma once

#include <cstdint>
#include <string>

#include "backplane/sdk/conv.h"
#include "thread_pool.hpp"

namespace cpu_backend {

// The element types oneDNN runs a convolution in here: float32 operands, or
// bfloat16 operands (float32 accumulation; CONV_WEIGHT_GRAD then writes a
// float32 dw) where the CPU has a native bfloat16 kernel.
enum class ConvData { f32, bf16 };

// Runs `op` (CONV: a = x, b = w, bias, out = y; CONV_TRANSPOSE: a = dy,
// b = w, bias, out = dx; CONV_WEIGHT_GRAD: a = x, b = dy, out = dw) on
// dense operands of `data` (bias always float32, or null; CONV fuses it,
// CONV_TRANSPOSE adds it to a float32 dx, so a bfloat16 one with a bias is
// not asked for). False when oneDNN refuses the problem (out is then
// unspecified).
bool onednn_conv(ThreadPool &pool, int32_t op, const bp_sdk_conv &g, ConvData data, const void *a, const void *b,
                 const float *bias, void *out);

// The implementation oneDNN picks for a 3x3, 64-channel float32 (or
// bfloat16) convolution ("jit:avx2"), or why it has none.
const std::string &onednn_conv_kernel(ConvData data);
// Whether bfloat16 convolutions have a native kernel on this CPU (AVX-512
// BF16 or AMX); otherwise the backend widens them to float32.
bool onednn_conv_bf16_native();
// Whether that kernel is AMX's (tile multiplies).
bool onednn_conv_bf16_amx();

}  // namespace cpu_backend
