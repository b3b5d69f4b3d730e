// bfloat16 pointwise convolutions over small images (every kernel extent
// 1, no padding, one group, at most 64 output positions per image: the 1x1
// shortcut into ResNet's last stage, at any stride) as one bfloat16 GEMM of
// the whole batch through oneDNN's matmul (gemm_onednn.hpp), float32
// accumulation, rounded once, where oneDNN's convolutions run on AMX: its
// bfloat16 convolution kernels ran these at 0.7-1.5x of float32 there, the
// weight gradient slowest (small products per image there, one large one
// here). On AVX-512 BF16 without AMX (AMD Zen 5) its convolution kernels
// ran them 1.7-2.1x faster than this GEMM. Optional at build time with
// oneDNN (BP_CPU_HAVE_ONEDNN).
#pragma once

#include <cstdint>

#include "backplane/sdk/conv.h"
#include "thread_pool.hpp"

namespace cpu_backend {

// Whether this CPU runs the GEMM (AMX, and a native bfloat16 GEMM).
bool pointwise_conv_wins();
// Whether g is a problem these functions take.
bool pointwise_conv_fits(const bp_sdk_conv &g);

// On dense operands of g's parts (bfloat16 bits; bias float32 or null):
// CONV (a = x, b = w, out = y, bfloat16), CONV_TRANSPOSE (a = dy, b = w,
// out = dx, bfloat16; bias must be null) or CONV_WEIGHT_GRAD (a = x, b =
// dy, out = dw, float32). False when the GEMM's kernel could flush a
// subnormal to zero (bf16_gemm_exact_enough) or oneDNN refuses: the caller
// then runs its convolution, which writes all of out (only dw may have
// been partly written).
bool pointwise_conv_bf16(ThreadPool &pool, int32_t op, const bp_sdk_conv &g, const uint16_t *a, const uint16_t *b,
                         const float *bias, void *out);

}  // namespace cpu_backend
