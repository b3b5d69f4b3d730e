// EXP and ERF over dense float32 runs in vector registers. The C library's
// expf and erff cost a call per element: in a GPT training step (GELU's erf
// forward, exp in its gradient) they took a tenth of the time. Each
// instruction set has its own table (unary_vector.cpp); unary_vector() is
// the best one this CPU runs, picked once at load.
#pragma once

#include <cstdint>

#include "half_convert.hpp"

namespace cpu_backend {

// out[0..n) = f(in[0..n)); out may be in itself.
using UnaryRunFn = void (*)(const float *in, float *out, int64_t n);

struct UnaryVector {
  UnaryRunFn exp, erf;
  const char *path;  // the device property unary_path: "avx512f", "avx2+fma" or "scalar, the C library's"
};

// The best table this CPU runs, picked once.
const UnaryVector &unary_vector();

// Each instruction set's table, for its tests: nullptr when this CPU does
// not run it (avx2 needs FMA as well).
const UnaryVector *unary_vector_for(Isa isa);

}  // namespace cpu_backend
