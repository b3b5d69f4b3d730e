/*
 * backplane_kernels/elementwise.hpp — the per-element math of every
 * elementwise operator, written once for all backends (semantics: the big
 * comment in backplane/plugin.h). Header-only C++17; compiles for the host
 * and, under nvcc, for host and device.
 *
 * Functors are stateless structs with a templated operator(): a backend's
 * loop instantiates them per element type, so the compiler inlines them and
 * can vectorise the loop. Math goes through the overloads in bp_kernels::fmath,
 * which call the global C functions (::expf, ::exp, ...): nvcc provides those
 * in device code, unlike most std:: functions.
 */
#ifndef BACKPLANE_KERNELS_ELEMENTWISE_HPP
#define BACKPLANE_KERNELS_ELEMENTWISE_HPP

#include <math.h>
#include <stdint.h>

#include <type_traits>

#include "backplane/plugin_sdk.hpp"

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

/* Float math by overload, so templated code calls one name for both widths. */
namespace fmath {
BP_HD inline float exp(float x) { return ::expf(x); }
BP_HD inline double exp(double x) { return ::exp(x); }
BP_HD inline float log(float x) { return ::logf(x); }
BP_HD inline double log(double x) { return ::log(x); }
BP_HD inline float sqrt(float x) { return ::sqrtf(x); }
BP_HD inline double sqrt(double x) { return ::sqrt(x); }
BP_HD inline float tanh(float x) { return ::tanhf(x); }
BP_HD inline double tanh(double x) { return ::tanh(x); }
BP_HD inline float cos(float x) { return ::cosf(x); }
BP_HD inline double cos(double x) { return ::cos(x); }
BP_HD inline float sin(float x) { return ::sinf(x); }
BP_HD inline double sin(double x) { return ::sin(x); }
BP_HD inline float floor(float x) { return ::floorf(x); }
BP_HD inline double floor(double x) { return ::floor(x); }
BP_HD inline float fmod(float x, float y) { return ::fmodf(x, y); }
BP_HD inline double fmod(double x, double y) { return ::fmod(x, y); }
BP_HD inline float copysign(float x, float y) { return ::copysignf(x, y); }
BP_HD inline double copysign(double x, double y) { return ::copysign(x, y); }
// Small integer exponents (x**2, x**3) are the common case and ten times
// cheaper as multiplies: x*x is the correctly rounded square, x*x*x is within
// one ulp of the cube (pow itself promises no better).
BP_HD inline float pow(float x, float y) { return y == 2.0f ? x * x : y == 3.0f ? x * x * x : ::powf(x, y); }
BP_HD inline double pow(double x, double y) { return y == 2.0 ? x * x : y == 3.0 ? x * x * x : ::pow(x, y); }
BP_HD inline float abs(float x) { return ::fabsf(x); }
BP_HD inline double abs(double x) { return ::fabs(x); }
}  // namespace fmath

/* Integer ADD, SUB, MUL and NEG wrap around (two's complement): computed in
 * the unsigned type, where overflow is defined, then converted back. */
template <class T>
using unsigned_of = typename std::make_unsigned<T>::type;

template <class T>
BP_HD inline T wrap_add(T a, T b) {
  return static_cast<T>(static_cast<unsigned_of<T>>(a) + static_cast<unsigned_of<T>>(b));
}
template <class T>
BP_HD inline T wrap_sub(T a, T b) {
  return static_cast<T>(static_cast<unsigned_of<T>>(a) - static_cast<unsigned_of<T>>(b));
}
template <class T>
BP_HD inline T wrap_mul(T a, T b) {
  return static_cast<T>(static_cast<unsigned_of<T>>(a) * static_cast<unsigned_of<T>>(b));
}

/* Integer POW: exact repeated multiplication, wrapping. Squaring gives the
 * same result in O(log e) steps because multiplication modulo 2^n is
 * associative. A negative exponent gives 0 unless the base is 1 or -1. */
template <class T>
BP_HD inline T integer_pow(T base, T exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exponent & 1) ? T(-1) : T(1);
    return 0;
  }
  unsigned_of<T> result = 1, factor = static_cast<unsigned_of<T>>(base);
  for (unsigned_of<T> e = static_cast<unsigned_of<T>>(exponent); e != 0; e >>= 1) {
    if (e & 1) result *= factor;
    factor *= factor;
  }
  return static_cast<T>(result);
}

template <class T>
constexpr bool is_int = std::is_integral<T>::value;

/* Python's // and % (plugin.h). Integers: the quotient rounded toward -inf
 * and the remainder with the divisor's sign; b = 0 gives 0, and -1 divides
 * by negating (MIN / -1 is undefined in C; MIN // -1 wraps to MIN). */
template <class T>
BP_HD inline T floor_divide_int(T a, T b) {
  if (b == 0) return 0;
  if (std::is_signed<T>::value && b == T(-1)) return wrap_sub(T(0), a);  // not uint8's 255
  const T q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? T(q - 1) : q;
}
template <class T>
BP_HD inline T remainder_int(T a, T b) {
  if (b == 0 || (std::is_signed<T>::value && b == T(-1))) return 0;
  const T r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? T(r + b) : r;
}
/* Floats: fmod is exact; the adjustment is one IEEE addition, and a zero
 * remainder takes the divisor's sign. */
template <class T>
BP_HD inline T remainder_float(T a, T b) {
  T r = fmath::fmod(a, b);
  if (r != T(0) && ((r < T(0)) != (b < T(0)))) r += b;
  return r == T(0) ? fmath::copysign(T(0), b) : r;
}

/* NaN test that is plainly false for non-float types (no self-comparison). */
template <class T>
BP_HD inline bool is_nan(T x) {
  if constexpr (std::is_floating_point<T>::value) return x != x; else return (void)x, false;
}

/* ---- binary, one dtype in and out ---------------------------------------- */

struct Add {
  template <class T>
  BP_HD T operator()(T a, T b) const {
    if constexpr (is_int<T>) return wrap_add(a, b); else return a + b;
  }
};
struct Sub {
  template <class T>
  BP_HD T operator()(T a, T b) const {
    if constexpr (is_int<T>) return wrap_sub(a, b); else return a - b;
  }
};
struct Mul {
  template <class T>
  BP_HD T operator()(T a, T b) const {
    if constexpr (is_int<T>) return wrap_mul(a, b); else return a * b;
  }
};
/* Float dtypes only (plugin.h): no integer division by zero to define. */
struct Div {
  template <class T>
  BP_HD T operator()(T a, T b) const { return a / b; }
};
struct Pow {
  template <class T>
  BP_HD T operator()(T a, T b) const {
    if constexpr (is_int<T>) return integer_pow(a, b); else return fmath::pow(a, b);
  }
};
/* MAXIMUM/MINIMUM propagate NaN. Written as selects so the loops around
 * them vectorise. */
struct Maximum {
  template <class T>
  BP_HD T operator()(T a, T b) const { return is_nan(a) ? a : is_nan(b) ? b : a > b ? a : b; }
};
struct Minimum {
  template <class T>
  BP_HD T operator()(T a, T b) const { return is_nan(a) ? a : is_nan(b) ? b : a < b ? a : b; }
};

struct FloorDivide {
  template <class T>
  BP_HD T operator()(T a, T b) const {
    if constexpr (is_int<T>) return floor_divide_int(a, b); else return fmath::floor(a / b);
  }
};
struct Remainder {
  template <class T>
  BP_HD T operator()(T a, T b) const {
    if constexpr (is_int<T>) return remainder_int(a, b); else return remainder_float(a, b);
  }
};

/* ---- bitwise, integer and bool (BP_DTYPE_SET_INTEGRAL) ------------------- */

/* On bool they are logical, through truth() and make_bool(), so a result is
 * again 0 or 1; on integers, the bits of two's complement. */
template <class T>
constexpr bool is_bool = std::is_same<T, boolean>::value;

struct BitwiseAnd {
  template <class T>
  BP_HD T operator()(T a, T b) const {
    if constexpr (is_bool<T>) return make_bool(truth(a) & truth(b)); else return static_cast<T>(a & b);
  }
};
struct BitwiseOr {
  template <class T>
  BP_HD T operator()(T a, T b) const {
    if constexpr (is_bool<T>) return make_bool(truth(a) | truth(b)); else return static_cast<T>(a | b);
  }
};
struct BitwiseXor {
  template <class T>
  BP_HD T operator()(T a, T b) const {
    if constexpr (is_bool<T>) return make_bool(truth(a) != truth(b)); else return static_cast<T>(a ^ b);
  }
};

/* ---- comparisons: bool out, IEEE (NaN compares unequal) ------------------ */

struct Eq {
  template <class T>
  BP_HD boolean operator()(T a, T b) const { return make_bool(a == b); }
};
struct Ne {
  template <class T>
  BP_HD boolean operator()(T a, T b) const { return make_bool(a != b); }
};
struct Lt {
  template <class T>
  BP_HD boolean operator()(T a, T b) const { return make_bool(a < b); }
};
struct Le {
  template <class T>
  BP_HD boolean operator()(T a, T b) const { return make_bool(a <= b); }
};
struct Gt {
  template <class T>
  BP_HD boolean operator()(T a, T b) const { return make_bool(a > b); }
};
struct Ge {
  template <class T>
  BP_HD boolean operator()(T a, T b) const { return make_bool(a >= b); }
};

/* ---- ternary ------------------------------------------------------------- */

struct Where {
  template <class T>
  BP_HD T operator()(boolean cond, T a, T b) const { return truth(cond) ? a : b; }
};

/* ---- unary --------------------------------------------------------------- */

struct Neg {
  template <class T>
  BP_HD T operator()(T x) const {
    if constexpr (is_int<T>) return wrap_sub(T(0), x); else return -x;
  }
};
/* abs of the most negative integer wraps to itself, like NEG. */
struct Abs {
  template <class T>
  BP_HD T operator()(T x) const {
    if constexpr (is_int<T>) return x < 0 ? wrap_sub(T(0), x) : x; else return fmath::abs(x);
  }
};
struct Exp {
  template <class T>
  BP_HD T operator()(T x) const { return fmath::exp(x); }
};
struct Log {
  template <class T>
  BP_HD T operator()(T x) const { return fmath::log(x); }
};
struct Sqrt {
  template <class T>
  BP_HD T operator()(T x) const { return fmath::sqrt(x); }
};
struct Tanh {
  template <class T>
  BP_HD T operator()(T x) const { return fmath::tanh(x); }
};
struct Sigmoid {
  template <class T>
  BP_HD T operator()(T x) const { return T(1) / (T(1) + fmath::exp(-x)); }
};
/* x > 0 ? x : 0, so RELU(NaN) is 0, exactly as plugin.h writes it. */
struct Relu {
  template <class T>
  BP_HD T operator()(T x) const { return x > T(0) ? x : T(0); }
};
struct Square {
  template <class T>
  BP_HD T operator()(T x) const {
    if constexpr (is_int<T>) return wrap_mul(x, x); else return x * x;
  }
};
struct Sin {
  template <class T>
  BP_HD T operator()(T x) const { return fmath::sin(x); }
};
struct Cos {
  template <class T>
  BP_HD T operator()(T x) const { return fmath::cos(x); }
};

/* Logical not on bool (plugin.h: 1 - x), every bit flipped on integers. */
struct BitwiseNot {
  template <class T>
  BP_HD T operator()(T x) const {
    if constexpr (is_bool<T>) return make_bool(!truth(x)); else return static_cast<T>(~x);
  }
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
