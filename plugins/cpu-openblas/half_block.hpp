// Blocks of 16-bit floats as float32, for kernels that compute on halves:
// a run is widened a block at a time into a small stack buffer, the
// float32 kernel runs over it, and the results are rounded back, so only
// the contiguous conversions (vectorised, half_convert.hpp) touch memory.
#pragma once

#include <cstdint>
#include <type_traits>

#include "half_convert.hpp"
#include "small_types.hpp"

namespace cpu_backend {

// Elements per block: three float32 buffers of it stay well inside L1.
constexpr int64_t kHalfBlock = 512;

// The block buffers of one run: two operands and the results, spaced so
// that no two lie a multiple of 4 KiB apart (element i of one and of the
// next would alias in the store-to-load check and stall every store: add
// ran at a third of its speed).
template <class A, class R>
struct alignas(64) BlockBuffers {
  A a[kHalfBlock];
  char gap_a[192];
  A b[kHalfBlock];
  char gap_b[320];
  R r[kHalfBlock];
};

// dst[i] = p[i * stride] as float32, for i < n <= kHalfBlock. Strided
// elements are gathered first, so that the vector conversion widens them.
template <class H>
void load_floats(const H *p, int64_t stride, int64_t n, float *dst) {
  static_assert(is_half<H>, "16-bit floats only");
  if (stride == 0) {
    const float v = to_float(*p);
    for (int64_t i = 0; i < n; ++i) dst[i] = v;
    return;
  }
  alignas(64) uint16_t staged[kHalfBlock];
  const uint16_t *bits = reinterpret_cast<const uint16_t *>(p);
  if (stride != 1) {
    for (int64_t i = 0; i < n; ++i) staged[i] = bits[i * stride];
    bits = staged;
  }
  if constexpr (std::is_same<H, float16>::value) converters().f16_to_f32(bits, dst, n);
  else converters().bf16_to_f32(bits, dst, n);
}

// p[i * stride] = src[i] rounded to H, for i < n <= kHalfBlock.
template <class H>
void store_floats(const float *src, int64_t n, H *p, int64_t stride) {
  static_assert(is_half<H>, "16-bit floats only");
  alignas(64) uint16_t staged[kHalfBlock];
  uint16_t *bits = stride == 1 ? reinterpret_cast<uint16_t *>(p) : staged;
  if constexpr (std::is_same<H, float16>::value) converters().f32_to_f16(src, bits, n);
  else converters().f32_to_bf16(src, bits, n);
  if (stride != 1)
    for (int64_t i = 0; i < n; ++i) p[i * stride] = static_cast<H>(staged[i]);
}

// Elements [0, n) of a run in compute type: widened through a block buffer.
template <class T>
void load_compute(const T *p, int64_t stride, int64_t n, compute_t<T> *dst) {
  if constexpr (is_half<T>) {
    load_floats(p, stride, n, dst);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = widen(p[i * stride]);
  }
}

// Stores n results r[i] (of the functor's type R) as To: a float32 block
// into a 16-bit float goes through the vector rounding.
template <class To, class R>
void store_results(const R *r, int64_t n, To *p, int64_t stride) {
  if constexpr (is_half<To> && std::is_same<R, float>::value) {
    store_floats(r, n, p, stride);
  } else {
    for (int64_t i = 0; i < n; ++i) p[i * stride] = narrow<To>(r[i]);
  }
}

// A float32 value returned as it is: into a 16-bit float, store_results
// rounds whole blocks of them with the vector conversion.
struct AsFloat {
  float operator()(float x) const { return x; }
};

}  // namespace cpu_backend
