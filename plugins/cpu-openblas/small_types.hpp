// The 1.4 dtypes inside the kernels: each element type computes in
// bp_kernels::compute_t (backplane/kernels/elementwise.hpp); these are the
// conversions between an element and its compute type, and COPY's between
// any two dtypes.
#pragma once

#include <cstdint>
#include <type_traits>

#include "backplane/half.h"
#include "backplane/kernels/elementwise.hpp"
#include "dtype.hpp"

namespace cpu_backend {

using bp_plugin::bfloat16;
using bp_plugin::float16;

using bp_kernels::compute_t;
using bp_kernels::is_half;
using bp_kernels::is_small_int;

inline float to_float(float16 h) { return bp_f32_from_f16(static_cast<uint16_t>(h)); }
inline float to_float(bfloat16 h) { return bp_f32_from_bf16(static_cast<uint16_t>(h)); }

// A 16-bit float from a float32, float64 or int64 value, rounded once (half.h).
template <class H>
H half_from(float x) {
  if constexpr (std::is_same<H, float16>::value) return static_cast<H>(bp_f16_from_f32(x));
  else return static_cast<H>(bp_bf16_from_f32(x));
}
template <class H>
H half_from(double x) {
  if constexpr (std::is_same<H, float16>::value) return static_cast<H>(bp_f16_from_f64(x));
  else return static_cast<H>(bp_bf16_from_f64(x));
}
template <class H>
H half_from(int64_t x) {
  if constexpr (std::is_same<H, float16>::value) return static_cast<H>(bp_f16_from_i64(x));
  else return static_cast<H>(bp_bf16_from_i64(x));
}

// An element in its compute type.
template <class T>
compute_t<T> widen(T x) {
  if constexpr (is_half<T>) return to_float(x);
  else return static_cast<compute_t<T>>(x);
}

// A compute-type result (or one already of type To, or bool) stored as To.
template <class To, class R>
To narrow(R r) {
  if constexpr (std::is_same<To, R>::value) return r;
  else if constexpr (is_half<To>) return half_from<To>(r);
  else return static_cast<To>(r);
}

// COPY's conversion from a compute-type value (float, double, int32,
// int64 or bool; halves and small integers arrive widened) to any dtype:
// half.h's single rounding into the 16-bit floats, bp_kernels::Cast (wrap
// from integers, saturation from floats) into the others.
template <class To>
struct Convert {
  template <class From>
  To operator()(From x) const {
    if constexpr (is_half<To>) {
      if constexpr (std::is_same<From, bp_plugin::boolean>::value)
        return half_from<To>(static_cast<float>(bp_kernels::truth(x)));
      else if constexpr (std::is_floating_point<From>::value) return half_from<To>(x);
      else return half_from<To>(static_cast<int64_t>(x));
    } else {
      return bp_kernels::Cast<To>()(x);
    }
  }
};

// One value (a scalar operand, FILL's value) in dtype T, as by COPY from float64.
template <class T>
T from_double(double x) {
  return Convert<T>()(x);
}

}  // namespace cpu_backend
