/*
 * backplane/kernels/elementwise_ops.h — the per-element math of every
 * operator of op_table.h, written once in the subset that C++ (host, nvcc,
 * NVRTC) and OpenCL C share. elementwise.hpp includes it for the C++ and
 * CUDA backends (and generates the functors from it); the OpenCL plugin
 * embeds it at build time after elementwise.cl, which plays the same part
 * there. Semantics: the big comment in backplane/plugin.h.
 *
 * Operator <ID> is the macro BP_EW_<ID>(K, operands), K the operand's kind:
 * F (float: the compute type of every float dtype, float for float16 and
 * bfloat16, which the caller rounds once), I (integer: int32 for the 8- and
 * 16-bit integers in C++) or B (bool). BP_EW_SEL(K, float, int, bool)
 * picks the kind's expression; an operator whose expression does not depend
 * on the kind ignores K. Only the kinds of the operator's dtype set are ever
 * expanded.
 *
 * The includer defines: T, the compute type (a template parameter in C++, a
 * macro in OpenCL C); BP_EW_UT, an unsigned type that wraps like T;
 * BP_EW_FN, what precedes a helper function's return type; BP_EW_IS_NAN(v);
 * BP_EW_TRUTH(b) and BP_EW_MAKE_BOOL(c) (bool element to C truth and back);
 * BP_EW_FLOAT_HELPERS and BP_EW_INT_HELPERS (whether this text defines the
 * kind's helpers); and BP_EW_DECLARE_MATH, which declares the float math
 * functions of BP_EW_MATH_1 and BP_EW_MATH_2 under those names (nothing in
 * OpenCL C, whose built-ins they are). Casts are C casts, helpers free
 * functions: both languages read them alike.
 *
 * No include guard: OpenCL pastes the text once per dtype of a program
 * (each time with the dtype's T and helper names); elementwise.hpp, which has
 * one, includes it once.
 */

/* The math functions the operators call, of one and two arguments: each
 * is the C library's name (and its float form with an f appended), and
 * OpenCL C's built-in. */
#define BP_EW_MATH_1(X) X(exp) X(log) X(sqrt) X(tanh) X(sin) X(cos) X(floor) X(fabs) X(erf) \
  X(expm1) X(log1p) X(ceil) X(rint)
#define BP_EW_MATH_2(X) X(fmod) X(copysign) X(pow)
BP_EW_DECLARE_MATH

#define BP_EW_SEL(K, f, i, b) BP_EW_SEL_(K, f, i, b)
#define BP_EW_SEL_(K, f, i, b) BP_EW_SEL_##K(f, i, b)
#define BP_EW_SEL_F(f, i, b) f
#define BP_EW_SEL_I(f, i, b) i
#define BP_EW_SEL_B(f, i, b) b

/* Integer ADD, SUB, MUL, NEG (and ABS, SQUARE, POW) wrap around, two's
 * complement: computed in BP_EW_UT, where overflow is defined, then
 * converted back. */
#define BP_EW_WRAP(x, op, y) ((T)((BP_EW_UT)(x) op (BP_EW_UT)(y)))
/* v == -1 for signed T; false for unsigned T without comparing with -1
 * (which compilers flag as always false). */
#define BP_EW_IS_MINUS_ONE(v) ((T)-1 < (T)0 && (v) == (T)-1)

#if BP_EW_INT_HELPERS
/* Integer POW by squaring: the value of repeated multiplication modulo
 * 2^bits, since multiplication modulo 2^n is associative. A negative
 * exponent gives 0 unless the base is 1 or -1. */
BP_EW_FN T bp_ipow(T base, T e) {
  if (e < 0) return base == 1 ? (T)1 : BP_EW_IS_MINUS_ONE(base) ? ((e & 1) ? (T)-1 : (T)1) : (T)0;
  BP_EW_UT r = 1, b = (BP_EW_UT)base;
  while (e) {
    if (e & 1) r *= b;
    b *= b;
    e >>= 1;
  }
  return (T)r;
}

/* Python's // and %: the quotient rounded toward -inf, the remainder with
 * the divisor's sign; 0 for a zero divisor, and -1 divides by negating
 * (MIN / -1 is undefined in C; MIN // -1 wraps to MIN). */
BP_EW_FN T bp_ifloordiv(T a, T b) {
  if (b == 0) return 0;
  if (BP_EW_IS_MINUS_ONE(b)) return BP_EW_WRAP(0, -, a);
  const T q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? (T)(q - 1) : q;
}
BP_EW_FN T bp_iremainder(T a, T b) {
  if (b == 0 || BP_EW_IS_MINUS_ONE(b)) return 0;
  const T r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? (T)(r + b) : r;
}
#endif

#if BP_EW_FLOAT_HELPERS
/* Python's % on floats: fmod is exact, the sign adjustment one addition,
 * and a zero remainder takes the divisor's sign. */
BP_EW_FN T bp_fremainder(T a, T b) {
  T r = fmod(a, b);
  if (r != (T)0 && ((r < (T)0) != (b < (T)0))) r += b;
  return r == (T)0 ? copysign((T)0, b) : r;
}

/* POW by 2 or 3 (the exponents of squares and cubes in user code) is a
 * product: x * x is x^2 rounded once, x * x * x within 2 ulp of x^3, where
 * pow may be 16 ulp off (OpenCL) and costs a libm call; with a constant
 * exponent the compiler folds this to the multiplies. */
BP_EW_FN T bp_fpow(T x, T y) {
  if (y == (T)2) return x * x;
  if (y == (T)3) return x * x * x;
  return pow(x, y);
}
#endif

/* ---- binary, one dtype in and out ---------------------------------------- */
#define BP_EW_ADD(K, x, y) BP_EW_SEL(K, ((x) + (y)), BP_EW_WRAP(x, +, y), ((x) + (y)))
#define BP_EW_SUB(K, x, y) BP_EW_SEL(K, ((x) - (y)), BP_EW_WRAP(x, -, y), ((x) - (y)))
#define BP_EW_MUL(K, x, y) BP_EW_SEL(K, ((x) * (y)), BP_EW_WRAP(x, *, y), ((x) * (y)))
/* Float dtypes only (plugin.h): no integer division by zero to define. */
#define BP_EW_DIV(K, x, y) ((x) / (y))
#define BP_EW_POW(K, x, y) BP_EW_SEL(K, bp_fpow(x, y), bp_ipow(x, y), bp_ipow(x, y))
/* NaN propagates. Written as selects so the loops around them vectorise. */
#define BP_EW_MAXIMUM(K, x, y) \
  (BP_EW_IS_NAN(x) ? (x) : BP_EW_IS_NAN(y) ? (y) : (x) > (y) ? (x) : (y))
#define BP_EW_MINIMUM(K, x, y) \
  (BP_EW_IS_NAN(x) ? (x) : BP_EW_IS_NAN(y) ? (y) : (x) < (y) ? (x) : (y))
#define BP_EW_FLOOR_DIVIDE(K, x, y) BP_EW_SEL(K, floor((x) / (y)), bp_ifloordiv(x, y), bp_ifloordiv(x, y))
#define BP_EW_REMAINDER(K, x, y) BP_EW_SEL(K, bp_fremainder(x, y), bp_iremainder(x, y), bp_iremainder(x, y))

/* ---- bitwise, integer and bool (BP_DTYPE_SET_INTEGRAL) -------------------
 * Logical on bool, so that a result is again 0 or 1; the bits of two's
 * complement on integers. */
#define BP_EW_BITWISE_AND(K, x, y) \
  BP_EW_SEL(K, ((T)((x) & (y))), ((T)((x) & (y))), BP_EW_MAKE_BOOL(BP_EW_TRUTH(x) && BP_EW_TRUTH(y)))
#define BP_EW_BITWISE_OR(K, x, y) \
  BP_EW_SEL(K, ((T)((x) | (y))), ((T)((x) | (y))), BP_EW_MAKE_BOOL(BP_EW_TRUTH(x) || BP_EW_TRUTH(y)))
#define BP_EW_BITWISE_XOR(K, x, y) \
  BP_EW_SEL(K, ((T)((x) ^ (y))), ((T)((x) ^ (y))), BP_EW_MAKE_BOOL(BP_EW_TRUTH(x) != BP_EW_TRUTH(y)))

/* ---- comparisons: bool out, IEEE (NaN compares unequal) ------------------ */
#define BP_EW_EQ(K, x, y) BP_EW_MAKE_BOOL((x) == (y))
#define BP_EW_NE(K, x, y) BP_EW_MAKE_BOOL((x) != (y))
#define BP_EW_LT(K, x, y) BP_EW_MAKE_BOOL((x) < (y))
#define BP_EW_LE(K, x, y) BP_EW_MAKE_BOOL((x) <= (y))
#define BP_EW_GT(K, x, y) BP_EW_MAKE_BOOL((x) > (y))
#define BP_EW_GE(K, x, y) BP_EW_MAKE_BOOL((x) >= (y))

/* ---- ternary: c is a bool element, x and y stored values ----------------- */
#define BP_EW_WHERE(c, x, y) (BP_EW_TRUTH(c) ? (x) : (y))

/* ---- unary --------------------------------------------------------------- */
#define BP_EW_NEG(K, x) BP_EW_SEL(K, (-(x)), BP_EW_WRAP(0, -, x), (-(x)))
/* abs of the most negative integer wraps to itself, like NEG. */
#define BP_EW_ABS(K, x) BP_EW_SEL(K, fabs(x), ((x) < 0 ? BP_EW_WRAP(0, -, x) : (x)), (x))
#define BP_EW_EXP(K, x) exp(x)
#define BP_EW_LOG(K, x) log(x)
#define BP_EW_SQRT(K, x) sqrt(x)
#define BP_EW_TANH(K, x) tanh(x)
#define BP_EW_SIGMOID(K, x) ((T)1 / ((T)1 + exp(-(x))))
/* x > 0 ? x : 0, so RELU(NaN) is 0, exactly as plugin.h writes it. */
#define BP_EW_RELU(K, x) ((x) > (T)0 ? (x) : (T)0)
#define BP_EW_SQUARE(K, x) BP_EW_SEL(K, ((x) * (x)), BP_EW_WRAP(x, *, x), ((x) * (x)))
#define BP_EW_SIN(K, x) sin(x)
#define BP_EW_COS(K, x) cos(x)
#define BP_EW_ERF(K, x) erf(x)
#define BP_EW_EXPM1(K, x) expm1(x)
#define BP_EW_LOG1P(K, x) log1p(x)
/* Two correctly rounded steps, so every backend gives the same bits. */
#define BP_EW_RSQRT(K, x) ((T)1 / sqrt(x))
/* rint rounds half to even (the default rounding mode, which no backend
 * changes). Integers are already integral. */
#define BP_EW_FLOOR(K, x) BP_EW_SEL(K, floor(x), (x), (x))
#define BP_EW_CEIL(K, x) BP_EW_SEL(K, ceil(x), (x), (x))
#define BP_EW_ROUND(K, x) BP_EW_SEL(K, rint(x), (x), (x))
/* +-0 gives +0 (NumPy's and PyTorch's sign), NaN itself. */
#define BP_EW_SIGN(K, x)                                                                             \
  BP_EW_SEL(K, ((x) > (T)0 ? (T)1 : (x) < (T)0 ? (T)-1 : (x) == (T)0 ? (T)0 : (x)),                 \
            ((T)(((x) > 0) - ((x) < 0))), (x))
/* Logical not on bool (plugin.h: 1 - x), every bit flipped on integers. */
#define BP_EW_BITWISE_NOT(K, x) BP_EW_SEL(K, ((T)~(x)), ((T)~(x)), BP_EW_MAKE_BOOL(!BP_EW_TRUTH(x)))

/* ---- unary predicates: bool out, of float operands (since 1.6) -----------
 * x - x is NaN exactly when x is infinite or NaN (IEEE 754), an expression
 * every language here spells alike (no header of theirs has to supply
 * isinf or INFINITY, which NVRTC's do not); no backend compiles with
 * finite-math assumptions, which would fold it. */
#define BP_EW_ISNAN(K, x) BP_EW_MAKE_BOOL(BP_EW_IS_NAN(x))
#define BP_EW_ISINF(K, x) BP_EW_MAKE_BOOL(!BP_EW_IS_NAN(x) && BP_EW_IS_NAN((x) - (x)))
