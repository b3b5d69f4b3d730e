/*
 * element_math.c — the arithmetic of a single element, one function per
 * dtype, written exactly as plugin.h specifies it.
 *
 * float32 is computed in float (and with the float32 functions expf, logf,
 * ...), never promoted to double: a float32 backend computes in float, and
 * the oracle must round the way it does. Integer arithmetic wraps around
 * (two's complement), so it is done on unsigned values, where C defines
 * wrap-around, and turned back with ref_wrap_*.
 *
 * float16 and bfloat16 compute in float32, as plugin.h asks: each operand
 * widens exactly, the float32 function runs, and the result rounds once to
 * the dtype. int8, uint8 and int16 compute in int64 and wrap to their width:
 * every wrapping result (ADD, SUB, MUL, POW, NEG, SQUARE, BITWISE_*) modulo
 * 2^bits depends only on the operands modulo 2^bits, and the rest (MAXIMUM,
 * FLOOR_DIVIDE, REMAINDER, ABS, ...) are exact for in-range operands, so
 * this is the arithmetic of their own width (the most negative value // -1
 * and its ABS wrap to itself, as for int32).
 *
 * Callers only pass (op, dtype) pairs that supports.c allows; the `default:`
 * branches exist to keep the compiler and the reader sure every path returns.
 */
#include <math.h>
#include <string.h>

#include "reference.h"

/* ---- binary arithmetic ------------------------------------------------ */

/* Integer POW. A negative exponent gives 0, except for the bases 1 and -1
 * whose powers stay in {1, -1}. Otherwise "exact repeated multiplication,
 * wrapping": since multiplication modulo 2^64 is associative, square-and-
 * multiply gives the same bits as multiplying `exponent` times, in
 * log2(exponent) steps (an exponent of 2^62 would otherwise take years).
 * The low 32 bits of the result are the int32 answer. */
static uint64_t pow_wrapping(int64_t base, int64_t exponent) {
  uint64_t result = 1, square = (uint64_t)base, remaining;
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exponent % 2 == 0) ? 1 : (uint64_t)-1;
    return 0;
  }
  for (remaining = (uint64_t)exponent; remaining != 0; remaining >>= 1) {
    if (remaining & 1u) result *= square;
    square *= square;
  }
  return result;
}

/* Python's float // and %: the remainder has the divisor's sign (a zero
 * one too) and the quotient is floor(a / b), each IEEE in the dtype. */
static double remainder_f64(double a, double b) {
  double r = fmod(a, b);
  if (r != 0.0 && (r < 0.0) != (b < 0.0)) r += b;
  return r == 0.0 ? copysign(0.0, b) : r;
}

static float remainder_f32(float a, float b) {
  float r = fmodf(a, b);
  if (r != 0.0f && (r < 0.0f) != (b < 0.0f)) r += b;
  return r == 0.0f ? copysignf(0.0f, b) : r;
}

/* Python's integer // and %: the quotient rounded toward -inf, the
 * remainder with the divisor's sign; b = 0 gives 0 for both, and
 * INT_MIN // -1 wraps to INT_MIN (C leaves INT_MIN / -1 undefined, so -1
 * divides by negating). */
static int64_t floor_divide_i64(int64_t a, int64_t b) {
  int64_t q;
  if (b == 0) return 0;
  if (b == -1) return ref_wrap_i64(0u - (uint64_t)a);
  q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t remainder_i64(int64_t a, int64_t b) {
  int64_t r;
  if (b == 0 || b == -1) return 0;
  r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

/* MAXIMUM and MINIMUM propagate NaN: if either operand is NaN, so is the result. */
static float binary_f32(int32_t op, float a, float b) {
  switch (op) {
    case BP_OP_ADD: return a + b;
    case BP_OP_SUB: return a - b;
    case BP_OP_MUL: return a * b;
    case BP_OP_DIV: return a / b;
    case BP_OP_POW: return powf(a, b);
    case BP_OP_MAXIMUM: return isnan(a) ? a : isnan(b) ? b : (a > b ? a : b);
    case BP_OP_MINIMUM: return isnan(a) ? a : isnan(b) ? b : (a < b ? a : b);
    case BP_OP_FLOOR_DIVIDE: return floorf(a / b);
    case BP_OP_REMAINDER: return remainder_f32(a, b);
    default: return 0.0f;
  }
}

static double binary_f64(int32_t op, double a, double b) {
  switch (op) {
    case BP_OP_ADD: return a + b;
    case BP_OP_SUB: return a - b;
    case BP_OP_MUL: return a * b;
    case BP_OP_DIV: return a / b;
    case BP_OP_POW: return pow(a, b);
    case BP_OP_MAXIMUM: return isnan(a) ? a : isnan(b) ? b : (a > b ? a : b);
    case BP_OP_MINIMUM: return isnan(a) ? a : isnan(b) ? b : (a < b ? a : b);
    case BP_OP_FLOOR_DIVIDE: return floor(a / b);
    case BP_OP_REMAINDER: return remainder_f64(a, b);
    default: return 0.0;
  }
}

static int32_t binary_i32(int32_t op, int32_t a, int32_t b) {
  uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
  switch (op) {
    case BP_OP_ADD: return ref_wrap_i32(ua + ub);
    case BP_OP_SUB: return ref_wrap_i32(ua - ub);
    case BP_OP_MUL: return ref_wrap_i32(ua * ub);
    case BP_OP_POW: return ref_wrap_i32((uint32_t)pow_wrapping(a, b));
    case BP_OP_MAXIMUM: return a > b ? a : b;
    case BP_OP_MINIMUM: return a < b ? a : b;
    /* int32 // and % are the int64 ones: both fit, INT32_MIN // -1 wraps */
    case BP_OP_FLOOR_DIVIDE: return ref_wrap_i32((uint32_t)floor_divide_i64(a, b));
    case BP_OP_REMAINDER: return (int32_t)remainder_i64(a, b);
    case BP_OP_BITWISE_AND: return a & b;
    case BP_OP_BITWISE_OR: return a | b;
    case BP_OP_BITWISE_XOR: return a ^ b;
    default: return 0; /* DIV is float only */
  }
}

static int64_t binary_i64(int32_t op, int64_t a, int64_t b) {
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  switch (op) {
    case BP_OP_ADD: return ref_wrap_i64(ua + ub);
    case BP_OP_SUB: return ref_wrap_i64(ua - ub);
    case BP_OP_MUL: return ref_wrap_i64(ua * ub);
    case BP_OP_POW: return ref_wrap_i64(pow_wrapping(a, b));
    case BP_OP_MAXIMUM: return a > b ? a : b;
    case BP_OP_MINIMUM: return a < b ? a : b;
    case BP_OP_FLOOR_DIVIDE: return floor_divide_i64(a, b);
    case BP_OP_REMAINDER: return remainder_i64(a, b);
    case BP_OP_BITWISE_AND: return a & b;
    case BP_OP_BITWISE_OR: return a | b;
    case BP_OP_BITWISE_XOR: return a ^ b;
    default: return 0;
  }
}

/* Bool's only binary operators are the bitwise ones, on 0/1: logical. */
static uint8_t binary_bool(int32_t op, uint8_t a, uint8_t b) {
  switch (op) {
    case BP_OP_BITWISE_AND: return (uint8_t)(a & b);
    case BP_OP_BITWISE_OR: return (uint8_t)(a | b);
    case BP_OP_BITWISE_XOR: return (uint8_t)(a ^ b);
    default: return 0;
  }
}

ref_value ref_binary(int32_t op, int32_t dtype, ref_value a, ref_value b) {
  ref_value r;
  memset(&r, 0, sizeof r);
  switch (dtype) {
    case BP_FLOAT32: r.f32 = binary_f32(op, a.f32, b.f32); break;
    case BP_FLOAT64: r.f64 = binary_f64(op, a.f64, b.f64); break;
    case BP_INT32: r.i32 = binary_i32(op, a.i32, b.i32); break;
    case BP_INT64: r.i64 = binary_i64(op, a.i64, b.i64); break;
    case BP_BOOL: r.b8 = binary_bool(op, a.b8, b.b8); break;
    case BP_FLOAT16:
    case BP_BFLOAT16:
      r = ref_half_from_f32(binary_f32(op, ref_half_to_f32(a, dtype), ref_half_to_f32(b, dtype)), dtype);
      break;
    case BP_INT8:
    case BP_UINT8:
    case BP_INT16:
      r = ref_from_i64(binary_i64(op, ref_to_i64(a, dtype), ref_to_i64(b, dtype)), dtype);
      break;
    default: break;
  }
  return r;
}

/* ---- comparisons ------------------------------------------------------ */

/* How a relates to b. For floats at most one flag is set, and none when
 * either is NaN (unordered): that gives IEEE comparisons, where NaN is
 * unequal to everything, itself included. */
typedef struct ref_order {
  int less, equal, greater;
} ref_order;

static ref_order order_of(int32_t dtype, ref_value a, ref_value b) {
  ref_order o;
  if (ref_dtype_is_half(dtype)) {
    const float x = ref_half_to_f32(a, dtype), y = ref_half_to_f32(b, dtype);
    o.less = x < y; o.equal = x == y; o.greater = x > y;
    return o;
  }
  if (ref_dtype_is_small_int(dtype)) {
    const int64_t x = ref_to_i64(a, dtype), y = ref_to_i64(b, dtype);
    o.less = x < y; o.equal = x == y; o.greater = x > y;
    return o;
  }
  switch (dtype) {
    case BP_FLOAT32: o.less = a.f32 < b.f32; o.equal = a.f32 == b.f32; o.greater = a.f32 > b.f32; break;
    case BP_FLOAT64: o.less = a.f64 < b.f64; o.equal = a.f64 == b.f64; o.greater = a.f64 > b.f64; break;
    case BP_INT32: o.less = a.i32 < b.i32; o.equal = a.i32 == b.i32; o.greater = a.i32 > b.i32; break;
    case BP_INT64: o.less = a.i64 < b.i64; o.equal = a.i64 == b.i64; o.greater = a.i64 > b.i64; break;
    default: o.less = a.b8 < b.b8; o.equal = a.b8 == b.b8; o.greater = a.b8 > b.b8; break;
  }
  return o;
}

int ref_compare(int32_t op, int32_t dtype, ref_value a, ref_value b) {
  ref_order o = order_of(dtype, a, b);
  switch (op) {
    case BP_OP_EQ: return o.equal;
    case BP_OP_NE: return !o.equal; /* the one comparison that is true for NaN */
    case BP_OP_LT: return o.less;
    case BP_OP_LE: return o.less || o.equal;
    case BP_OP_GT: return o.greater;
    case BP_OP_GE: return o.greater || o.equal;
    default: return 0;
  }
}

/* ---- unary ------------------------------------------------------------ */

/* RELU(x) = x > 0 ? x : 0, literally: RELU(NaN) and RELU(-0.0) are +0. */
static float unary_f32(int32_t op, float x) {
  switch (op) {
    case BP_OP_NEG: return -x;
    case BP_OP_ABS: return fabsf(x);
    case BP_OP_EXP: return expf(x);
    case BP_OP_LOG: return logf(x);
    case BP_OP_SQRT: return sqrtf(x);
    case BP_OP_TANH: return tanhf(x);
    case BP_OP_SIGMOID: return 1.0f / (1.0f + expf(-x));
    case BP_OP_RELU: return x > 0.0f ? x : 0.0f;
    case BP_OP_SQUARE: return x * x;
    case BP_OP_SIN: return sinf(x);
    case BP_OP_COS: return cosf(x);
    case BP_OP_ERF: return erff(x);
    case BP_OP_EXPM1: return expm1f(x);
    case BP_OP_LOG1P: return log1pf(x);
    case BP_OP_RSQRT: return 1.0f / sqrtf(x);
    case BP_OP_FLOOR: return floorf(x);
    case BP_OP_CEIL: return ceilf(x);
    case BP_OP_ROUND: return rintf(x); /* half to even: the default rounding mode */
    case BP_OP_SIGN: return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x == 0.0f ? 0.0f : x;
    default: return 0.0f;
  }
}

static double unary_f64(int32_t op, double x) {
  switch (op) {
    case BP_OP_NEG: return -x;
    case BP_OP_ABS: return fabs(x);
    case BP_OP_EXP: return exp(x);
    case BP_OP_LOG: return log(x);
    case BP_OP_SQRT: return sqrt(x);
    case BP_OP_TANH: return tanh(x);
    case BP_OP_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case BP_OP_RELU: return x > 0.0 ? x : 0.0;
    case BP_OP_SQUARE: return x * x;
    case BP_OP_SIN: return sin(x);
    case BP_OP_COS: return cos(x);
    case BP_OP_ERF: return erf(x);
    case BP_OP_EXPM1: return expm1(x);
    case BP_OP_LOG1P: return log1p(x);
    case BP_OP_RSQRT: return 1.0 / sqrt(x);
    case BP_OP_FLOOR: return floor(x);
    case BP_OP_CEIL: return ceil(x);
    case BP_OP_ROUND: return rint(x);
    case BP_OP_SIGN: return x > 0.0 ? 1.0 : x < 0.0 ? -1.0 : x == 0.0 ? 0.0 : x;
    default: return 0.0;
  }
}

/* NEG and ABS wrap like the rest of integer arithmetic: the most negative
 * value is its own negation (and so its own absolute value). */
static int32_t unary_i32(int32_t op, int32_t x) {
  switch (op) {
    case BP_OP_NEG: return ref_wrap_i32(0u - (uint32_t)x);
    case BP_OP_ABS: return x < 0 ? ref_wrap_i32(0u - (uint32_t)x) : x;
    case BP_OP_RELU: return x > 0 ? x : 0;
    case BP_OP_SQUARE: return ref_wrap_i32((uint32_t)x * (uint32_t)x);
    case BP_OP_BITWISE_NOT: return ~x;
    case BP_OP_FLOOR: case BP_OP_CEIL: case BP_OP_ROUND: return x;
    case BP_OP_SIGN: return (x > 0) - (x < 0);
    default: return 0; /* the transcendental ops are float only */
  }
}

static int64_t unary_i64(int32_t op, int64_t x) {
  switch (op) {
    case BP_OP_NEG: return ref_wrap_i64(0u - (uint64_t)x);
    case BP_OP_ABS: return x < 0 ? ref_wrap_i64(0u - (uint64_t)x) : x;
    case BP_OP_RELU: return x > 0 ? x : 0;
    case BP_OP_SQUARE: return ref_wrap_i64((uint64_t)x * (uint64_t)x);
    case BP_OP_BITWISE_NOT: return ~x;
    case BP_OP_FLOOR: case BP_OP_CEIL: case BP_OP_ROUND: return x;
    case BP_OP_SIGN: return (x > 0) - (x < 0);
    default: return 0;
  }
}

/* ISNAN and ISINF (since 1.6): bool out, of a float element's value (a half
 * widens exactly, so its class is its float32's). */
static uint8_t unary_predicate(int32_t op, double x) {
  switch (op) {
    case BP_OP_ISNAN: return (uint8_t)(isnan(x) != 0);
    case BP_OP_ISINF: return (uint8_t)(isinf(x) != 0);
    default: return 0;
  }
}

ref_value ref_unary(int32_t op, int32_t dtype, ref_value x) {
  ref_value r;
  memset(&r, 0, sizeof r);
  if (bp_vocab_op_out(op) == BP_OUT_BOOL) {
    r.b8 = unary_predicate(op, ref_to_f64(x, dtype));
    return r;
  }
  switch (dtype) {
    case BP_FLOAT32: r.f32 = unary_f32(op, x.f32); break;
    case BP_FLOAT64: r.f64 = unary_f64(op, x.f64); break;
    case BP_INT32: r.i32 = unary_i32(op, x.i32); break;
    case BP_INT64: r.i64 = unary_i64(op, x.i64); break;
    case BP_BOOL: r.b8 = (uint8_t)(op == BP_OP_BITWISE_NOT && !x.b8); /* the one bool unary op */
      break;
    case BP_FLOAT16:
    case BP_BFLOAT16: r = ref_half_from_f32(unary_f32(op, ref_half_to_f32(x, dtype)), dtype); break;
    case BP_INT8:
    case BP_UINT8:
    case BP_INT16: r = ref_from_i64(unary_i64(op, ref_to_i64(x, dtype)), dtype); break;
    default: break;
  }
  return r;
}
