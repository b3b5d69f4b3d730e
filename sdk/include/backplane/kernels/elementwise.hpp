/*
 * backplane/kernels/elementwise.hpp — the per-element math of every
 * elementwise operator, written once for all backends (semantics: the big
 * comment in backplane/plugin.h). Header-only C++17; compiles for the host
 * and, under nvcc, for host and device.
 *
 * The math itself is elementwise_ops.h's, which OpenCL compiles too; this
 * header gives it its C++ spelling and generates the functors of op_table.h
 * from it.
 */
#ifndef BACKPLANE_KERNELS_ELEMENTWISE_HPP
#define BACKPLANE_KERNELS_ELEMENTWISE_HPP

#include <math.h>
#include <stdint.h>

#include <type_traits>

#include "backplane/plugin_sdk.hpp"
#include "backplane/kernels/op_table.h"

#if !defined(BP_HD)
#if defined(__CUDACC__)
#define BP_HD __host__ __device__
#else
#define BP_HD
#endif
#endif

namespace bp_kernels {

/* Element of a BP_BOOL tensor: one byte holding 0 or 1 (the SDK's type). Not
 * uint8_t, so that a cast *to* it can mean (x != 0), and not C++ bool, for
 * which loading a stray byte value would be undefined behaviour. */
using boolean = bp_plugin::boolean;

BP_HD inline boolean make_bool(bool b) { return static_cast<boolean>(b ? 1 : 0); }
BP_HD inline bool truth(boolean b) { return static_cast<uint8_t>(b) != 0; }

/* The type an element computes in (plugin.h, "8- and 16-bit dtypes"):
 * float16 and bfloat16 in float, widened exactly and rounded once at the
 * end; int8, uint8 and int16 in int32, whose wrapping results truncate to
 * the narrow type's bits (arithmetic modulo 2^32 reduces to modulo 2^8 or
 * 2^16) and whose // and % of exact operands truncate to the narrow type's
 * (MIN // -1 included); every other type in itself. */
template <class T>
constexpr bool is_half = std::is_same<T, bp_plugin::float16>::value || std::is_same<T, bp_plugin::bfloat16>::value;
template <class T>
constexpr bool is_small_int =
    std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value || std::is_same<T, int16_t>::value;

template <class T>
struct compute {
  using type = T;
};
template <>
struct compute<bp_plugin::float16> {
  using type = float;
};
template <>
struct compute<bp_plugin::bfloat16> {
  using type = float;
};
template <>
struct compute<int8_t> {
  using type = int32_t;
};
template <>
struct compute<uint8_t> {
  using type = int32_t;
};
template <>
struct compute<int16_t> {
  using type = int32_t;
};
template <class T>
using compute_t = typename compute<T>::type;

/* Float math by overload, so templated code calls one name for both
 * widths: abs here, and the functions elementwise_ops.h calls (BP_EW_MATH_1
 * and BP_EW_MATH_2), which BP_EW_DECLARE_MATH declares below. Each calls
 * the global C function (nvcc and NVRTC provide those in device code,
 * unlike most std:: functions). */
namespace fmath {
BP_HD inline float abs(float x) { return ::fabsf(x); }
BP_HD inline double abs(double x) { return ::fabs(x); }
}  // namespace fmath

template <class T>
using unsigned_of = typename std::make_unsigned<T>::type;

template <class T>
constexpr bool is_int = std::is_integral<T>::value;
template <class T>
constexpr bool is_bool = std::is_same<T, boolean>::value;

/* NaN test that is plainly false for non-float types (no self-comparison). */
template <class T>
BP_HD inline bool is_nan(T x) {
  if constexpr (std::is_floating_point<T>::value) return x != x; else return (void)x, false;
}

/* elementwise_ops.h in C++: T is each helper's and functor's template
 * parameter, the math fmath's overloads, declared from its lists. */
#define BP_KERNELS_MATH_1_(name)                             \
  BP_HD inline float name(float x) { return ::name##f(x); } \
  BP_HD inline double name(double x) { return ::name(x); }
#define BP_KERNELS_MATH_2_(name)                                         \
  BP_HD inline float name(float x, float y) { return ::name##f(x, y); } \
  BP_HD inline double name(double x, double y) { return ::name(x, y); }
#define BP_KERNELS_USING_(name) using fmath::name;
#define BP_EW_DECLARE_MATH                                                                   \
  namespace fmath {                                                                          \
  BP_EW_MATH_1(BP_KERNELS_MATH_1_)                                                           \
  BP_EW_MATH_2(BP_KERNELS_MATH_2_)                                                           \
  }                                                                                          \
  BP_EW_MATH_1(BP_KERNELS_USING_)                                                            \
  BP_EW_MATH_2(BP_KERNELS_USING_)
#define BP_EW_UT ::bp_kernels::unsigned_of<T>
#define BP_EW_FN template <class T> BP_HD inline
#define BP_EW_IS_NAN(v) ::bp_kernels::is_nan(v)
#define BP_EW_TRUTH(b) ::bp_kernels::truth(b)
#define BP_EW_MAKE_BOOL(c) ::bp_kernels::make_bool(c)
#define BP_EW_FLOAT_HELPERS 1
#define BP_EW_INT_HELPERS 1
#include "backplane/kernels/elementwise_ops.h"  // NOLINT(bugprone-suspicious-include): inside the namespace
#undef BP_KERNELS_USING_
#undef BP_KERNELS_MATH_2_
#undef BP_KERNELS_MATH_1_

/* The functors of op_table.h's rows: stateless structs with a templated
 * operator() that the backends' loops instantiate per compute type (so the
 * compiler inlines them and can vectorise the loop), each the kind's
 * expression of its operator's BP_EW_<ID>. */
#define BP_KERNELS_BY_KIND_(id, ...)                       \
  if constexpr (is_bool<T>) return BP_EW_##id(B, __VA_ARGS__); \
  else if constexpr (is_int<T>) return BP_EW_##id(I, __VA_ARGS__); \
  else return BP_EW_##id(F, __VA_ARGS__);
#define BP_KERNELS_UNARY_FUNCTOR_(id, functor, ...) \
  struct functor {                                  \
    template <class T>                              \
    BP_HD T operator()(T x) const {                 \
      BP_KERNELS_BY_KIND_(id, x)                    \
    }                                               \
  };
#define BP_KERNELS_BINARY_FUNCTOR_(id, functor, ...) \
  struct functor {                                   \
    template <class T>                               \
    BP_HD T operator()(T x, T y) const {             \
      BP_KERNELS_BY_KIND_(id, x, y)                  \
    }                                                \
  };
#define BP_KERNELS_COMPARE_FUNCTOR_(id, functor)   \
  struct functor {                                 \
    template <class T>                             \
    BP_HD boolean operator()(T x, T y) const {     \
      BP_KERNELS_BY_KIND_(id, x, y)                \
    }                                              \
  };
#define BP_KERNELS_UNARY_BOOL_FUNCTOR_(id, functor) \
  struct functor {                                  \
    template <class T>                              \
    BP_HD boolean operator()(T x) const {           \
      BP_KERNELS_BY_KIND_(id, x)                    \
    }                                               \
  };
BP_KERNEL_UNARY_OPS(BP_KERNELS_UNARY_FUNCTOR_)
BP_KERNEL_UNARY_BOOL_OPS(BP_KERNELS_UNARY_BOOL_FUNCTOR_)
BP_KERNEL_BINARY_OPS(BP_KERNELS_BINARY_FUNCTOR_)
BP_KERNEL_COMPARE_OPS(BP_KERNELS_COMPARE_FUNCTOR_)
#undef BP_KERNELS_UNARY_BOOL_FUNCTOR_
#undef BP_KERNELS_COMPARE_FUNCTOR_
#undef BP_KERNELS_BINARY_FUNCTOR_
#undef BP_KERNELS_UNARY_FUNCTOR_
#undef BP_KERNELS_BY_KIND_

struct Where {
  template <class T>
  BP_HD T operator()(boolean cond, T a, T b) const { return BP_EW_WHERE(cond, a, b); }
};

/* ---- conversion (COPY, FILL, ARANGE, scalar operands) -------------------- */

/* Float to an integer dtype as plugin.h defines it: truncation toward zero
 * in range, saturation to the type's limits outside it, NaN to 0 (a C cast
 * of an out-of-range value would be undefined behaviour). Compared in
 * double, which holds every float32 and float64 value and every limit
 * exactly. */
template <class To, class From>
BP_HD To saturating_int(From x) {
  constexpr bool is_signed = std::is_signed<To>::value;
  constexpr int value_bits = 8 * int(sizeof(To)) - (is_signed ? 1 : 0);
  constexpr To largest = static_cast<To>(static_cast<unsigned_of<To>>(~unsigned_of<To>(0)) >> (is_signed ? 1 : 0));
  constexpr To smallest = is_signed ? static_cast<To>(-largest - 1) : To(0);
  const double past_top = static_cast<double>(uint64_t(1) << (value_bits - 1)) * 2.0; /* 2^value_bits */
  const double d = static_cast<double>(x);
  if (d != d) return To(0);
  if (d >= past_top) return largest;
  if (d <= (is_signed ? -past_top : 0.0)) return smallest;
  return static_cast<To>(d);
}

/* Like a C cast, except that a bool result is (x != 0), a bool source reads
 * as 0 or 1, and float to integer saturates (saturating_int). */
template <class To>
struct Cast {
  template <class From>
  BP_HD To operator()(From x) const {
    if constexpr (std::is_same<To, boolean>::value) {
      return make_bool(x != From(0));
    } else if constexpr (std::is_same<From, boolean>::value) {
      return static_cast<To>(truth(x) ? 1 : 0);
    } else if constexpr (std::is_floating_point<From>::value && std::is_integral<To>::value) {
      return saturating_int<To>(x);
    } else {
      return static_cast<To>(x);
    }
  }
};

}  // namespace bp_kernels

#endif /* BACKPLANE_KERNELS_ELEMENTWISE_HPP */
