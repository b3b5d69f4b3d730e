// bfloat16 GEMM through oneDNN (optional at build time: BP_CPU_HAVE_ONEDNN),
// measured at twice cblas_sgemm's speed on CPUs with AVX-512 BF16. Its
// kernels (VDPBF16PS) treat subnormal inputs and results as zero, so it
// only takes products where none can arise (bf16_gemm_exact_enough); the
// float32 panels and sgemm take the rest.
#pragma once

#include <cstdint>

#include "thread_pool.hpp"

namespace cpu_backend {

// Whether oneDNN is built in and has a native bfloat16 kernel on this CPU,
// and that kernel's name ("brg:avx512_core_bf16"), or why not.
bool onednn_bf16_available();
const char *onednn_bf16_kernel();

// No operand element subnormal, and every nonzero product and partial sum
// of a (rows x cols at strides rs, cs) times b at least float32's smallest
// normal, so that flushing to zero never changes a result. Scanned on the
// pool's threads.
bool bf16_gemm_exact_enough(ThreadPool &pool, const uint16_t *a, int64_t a_rows, int64_t a_cols, int64_t a_rs,
                            int64_t a_cs, const uint16_t *b, int64_t b_rows, int64_t b_cols, int64_t b_rs,
                            int64_t b_cs);

// c (float32, m x n, row-major, dense) = a (m x k) b (k x n), bfloat16
// operands at the given element strides, split over the pool's threads,
// each running oneDNN single-threaded on its block (no OpenMP team).
// False when oneDNN refuses the problem (c then partly written).
bool onednn_bf16_gemm(ThreadPool &pool, const uint16_t *a, int64_t a_rs, int64_t a_cs, const uint16_t *b,
                      int64_t b_rs, int64_t b_cs, float *c, int64_t m, int64_t n, int64_t k);

}  // namespace cpu_backend
