// The 8- and 16-bit dtypes (float16, bfloat16, int8, uint8, int16) as the
// kernels compute with them (plugin.h, "8- and 16-bit dtypes"): every
// element is widened exactly to a compute type (float for the halves, int32
// for the small integers), the operator runs there with the functors of
// backplane/kernels/elementwise.hpp, and the result is narrowed once (the
// halves rounded to nearest even, the integers wrapped). The other dtypes
// compute in their own type, so one wrapper serves every dtype.
//
// Conversions give backplane/half.h's bits. On the device a non-NaN float16
// converts with the hardware's cvt (IEEE: round to nearest even, subnormals
// kept, overflow to infinity, exactly half.h's result) and a NaN through
// half.h itself, whose payload rule the hardware does not promise; bfloat16
// is half.h's bit arithmetic everywhere, as cheap as an instruction.
//
// Compiled by nvcc for execute's kernels and by NVRTC for fused ones
// (fused_headers embeds it), so it includes only what fused_shims provides.
#pragma once

#include <stdint.h>

#include <type_traits>

#include "backplane/half.h"
#include "backplane/kernels/elementwise.hpp"

namespace bp_cuda {

using bp_plugin::bfloat16;
using bp_plugin::float16;

using bp_kernels::compute_t;
using bp_kernels::is_half;
using bp_kernels::is_small_int;
template <class T>
constexpr bool is_narrow = is_half<T> || is_small_int<T>;

// ---- float16 and bfloat16 bits <-> float ------------------------------------

BP_HD inline float f32_from_f16(uint16_t h) {
#if defined(__CUDA_ARCH__)
  if ((h & 0x7fffu) > 0x7c00u) return bp_f32_from_f16(h);
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
#else
  return bp_f32_from_f16(h);
#endif
}

BP_HD inline uint16_t f16_from_f32(float f) {
#if defined(__CUDA_ARCH__)
  if (f != f) return bp_f16_from_f32(f);
  uint16_t h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
#else
  return bp_f16_from_f32(f);
#endif
}

// A float64 NaN as float32: its sign and the top of its payload, made quiet,
// as a host's conversion gives it (so half.h's answer); the device's cvt
// would give one canonical NaN instead.
BP_HD inline float nan_f32_from_f64(double d) {
  union {
    double d;
    uint64_t u;
  } v;
  v.d = d;
  return bp_f32_from_bits(static_cast<uint32_t>((v.u >> 32) & 0x80000000u) | 0x7fc00000u |
                          static_cast<uint32_t>((v.u >> 29) & 0x3fffffu));
}

// Exact: every value of T is one of compute_t<T>.
template <class T>
BP_HD inline compute_t<T> widen(T x) {
  if constexpr (std::is_same<T, float16>::value) return f32_from_f16(static_cast<uint16_t>(x));
  else if constexpr (std::is_same<T, bfloat16>::value) return bp_f32_from_bf16(static_cast<uint16_t>(x));
  else return static_cast<compute_t<T>>(x);
}

// A value of compute_t<T> back to T: rounded to nearest even for the halves,
// modulo 2^bits for the small integers (a C cast, on every compiler
// Backplane supports).
template <class T>
BP_HD inline T narrow(compute_t<T> x) {
  if constexpr (std::is_same<T, float16>::value) return static_cast<float16>(f16_from_f32(x));
  else if constexpr (std::is_same<T, bfloat16>::value) return static_cast<bfloat16>(bp_bf16_from_f32(x));
  else return static_cast<T>(x);
}

// ---- conversions (COPY, FILL, ARANGE, scalar operands) ----------------------

// To a half from any dtype, rounded once (from float64 and the 32- and
// 64-bit integers without a float32 rounded on the way).
template <class To, class From>
BP_HD inline To to_half(From x) {
  constexpr bool f16 = std::is_same<To, float16>::value;
  if constexpr (std::is_same<From, double>::value) {
    if (x != x) return narrow<To>(nan_f32_from_f64(x));
    return static_cast<To>(f16 ? bp_f16_from_f64(x) : bp_bf16_from_f64(x));
  } else if constexpr (std::is_same<From, int32_t>::value || std::is_same<From, int64_t>::value) {
    return static_cast<To>(f16 ? bp_f16_from_i64(x) : bp_bf16_from_i64(x));
  } else if constexpr (std::is_same<From, bp_kernels::boolean>::value) {
    return narrow<To>(bp_kernels::truth(x) ? 1.0f : 0.0f);
  } else {
    return narrow<To>(static_cast<float>(widen(x)));  // float, a half, a small integer: exact in float
  }
}

// COPY's conversion between any two dtypes: to_half into the 16-bit floats,
// bp_kernels::Cast (wrap from integers, saturation from floats) otherwise.
template <class To>
struct Convert {
  template <class From>
  BP_HD To operator()(From x) const {
    if constexpr (std::is_same<To, From>::value) {
      return x;
    } else if constexpr (is_half<To>) {
      return to_half<To>(x);
    } else if constexpr (is_half<From> || is_small_int<From>) {
      return Convert<To>()(widen(x));
    } else {
      return bp_kernels::Cast<To>()(x);
    }
  }
};

// ---- operators --------------------------------------------------------------

// Runs the functor F in T's compute type: operands widened, a result of the
// compute type narrowed to T, a bool result (comparisons) kept.
template <class F>
struct InCompute {
  template <class T, class R>
  BP_HD static auto finish(R r) {
    if constexpr (std::is_same<R, bp_kernels::boolean>::value) return r;
    else return narrow<T>(r);
  }
  template <class T>
  BP_HD auto operator()(T x) const {
    return finish<T>(F()(widen(x)));
  }
  template <class T>
  BP_HD auto operator()(T a, T b) const {
    return finish<T>(F()(widen(a), widen(b)));
  }
};

}  // namespace bp_cuda
