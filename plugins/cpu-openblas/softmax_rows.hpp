// The row kernels of SOFTMAX and LOG_SOFTMAX (softmax.cpp's inner loop): one
// dense row of float32 or float64 in, one out, in three passes over it (the
// maximum; the sum of exp(x - m), keeping the exponentials in a scratch row
// for SOFTMAX; the result), so a row that fits in cache is read from memory
// once. Each instruction set has its own table (softmax_rows.cpp);
// softmax_rows() is the best one this CPU runs, picked once at load.
#pragma once

#include <cstdint>

namespace cpu_backend {

// y[0..n) from x[0..n) (n >= 1; y may be x itself): exp(x - m) / s, or
// (x - m) - log(s) with `log`. `scratch` holds n elements. With `stream`, y
// is written with non-temporal stores (past the caches: the output of a
// large operator would only evict the input); the caller fences them
// (stream_fence) before its work counts as done. `next`, when not null, is
// the dense row of n elements the caller runs after this one: it is
// prefetched while this row's exponentials are computed, so that reading it
// from memory overlaps this row's arithmetic.
template <class T>
using SoftmaxRowFn = void (*)(const T *x, T *y, int64_t n, bool log, T *scratch, bool stream, const T *next);

struct SoftmaxRows {
  SoftmaxRowFn<float> f32;
  SoftmaxRowFn<double> f64;
  const char *path;  // the device property softmax_path: "avx512f (float32 exp inline, ...)", ...
};

// The best table this CPU runs, picked once.
const SoftmaxRows &softmax_rows();

// Each instruction set's table, for its tests: nullptr when this CPU does
// not run it (avx2 needs FMA as well).
enum class SoftmaxIsa { scalar, avx2, avx512 };
const SoftmaxRows *softmax_rows_for(SoftmaxIsa isa);

// Orders a thread's non-temporal stores before whatever it does next (sfence).
void stream_fence();

}  // namespace cpu_backend
