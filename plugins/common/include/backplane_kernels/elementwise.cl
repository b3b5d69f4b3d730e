/*
 * backplane_kernels/elementwise.cl — the per-element math of the operators
 * of op_table.h in OpenCL C: what elementwise.hpp's functors are to the C++
 * and CUDA backends. The OpenCL backend embeds this text at build time
 * (plugins/opencl/CMakeLists.txt) and names BP_CL_<id> for operator
 * BP_OP_<id>, in op-by-op and fused kernels alike, so both compute the same
 * bits.
 *
 * Expanded where T (the compute type: float for float16 and bfloat16), UT
 * (an unsigned type that wraps like T), IS_NAN and exactly one of
 * BP_KIND_FLOAT, BP_KIND_INT and BP_KIND_BOOL (T's kind) are defined: one
 * text per element type.
 */

#if BP_KIND_INT
/* Integer POW by squaring: the same value as repeated multiplication modulo
 * 2^bits. A negative exponent gives 0 unless the base is 1 or -1.
 * BP_IS_MINUS_ONE is false for unsigned T without comparing it with -1
 * (which compilers flag as always false). */
#define BP_IS_MINUS_ONE(v) ((T)-1 < (T)0 && (v) == (T)-1)
inline T bp_ipow(T base, T e) {
  if (e < 0) return base == 1 ? 1 : BP_IS_MINUS_ONE(base) ? ((e & 1) ? -1 : 1) : 0;
  UT r = 1, b = (UT)base;
  while (e) {
    if (e & 1) r *= b;
    b *= b;
    e >>= 1;
  }
  return (T)r;
}

/* Python's // and % (plugin.h): the quotient rounded toward -inf, the
 * remainder with the divisor's sign; 0 for a zero divisor, and -1 divides
 * by negating (MIN / -1 overflows in OpenCL C as in C). */
inline T bp_ifloordiv(T a, T b) {
  if (b == 0) return 0;
  if (BP_IS_MINUS_ONE(b)) return (T)((UT)0 - (UT)a);
  const T q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline T bp_iremainder(T a, T b) {
  if (b == 0 || BP_IS_MINUS_ONE(b)) return 0;
  const T r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
#endif

#if BP_KIND_FLOAT
/* Python's % on floats: fmod is exact, the sign adjustment one addition,
 * and a zero remainder takes the divisor's sign. */
inline T bp_fremainder(T a, T b) {
  T r = fmod(a, b);
  if (r != (T)0 && ((r < (T)0) != (b < (T)0))) r += b;
  return r == (T)0 ? copysign((T)0, b) : r;
}

/* POW by 2 or 3 (the exponents of squares and cubes in user code) is a
 * product: x * x is x^2 rounded once, x * x * x within 2 ulp of x^3, where
 * OpenCL's pow may be 16 ulp off; and PoCL's pow costs hundreds of
 * nanoseconds an element (1e7 float32: 3 s, against 60 ms for a product). */
inline T bp_fpow(T x, T y) {
  if (y == (T)2) return x * x;
  if (y == (T)3) return x * x * x;
  return pow(x, y);
}
#endif

/* ---- binary, one dtype in and out ----------------------------------------
 * Integer ADD, SUB, MUL and NEG wrap (plugin.h): computed in UT, where C
 * defines overflow, then converted back. */
#if BP_KIND_FLOAT
#define BP_CL_ADD(x, y) ((x) + (y))
#define BP_CL_SUB(x, y) ((x) - (y))
#define BP_CL_MUL(x, y) ((x) * (y))
#define BP_CL_POW(x, y) bp_fpow(x, y)
#define BP_CL_FLOOR_DIVIDE(x, y) floor((x) / (y))
#define BP_CL_REMAINDER(x, y) bp_fremainder(x, y)
#else
#define BP_CL_ADD(x, y) ((T)((UT)(x) + (UT)(y)))
#define BP_CL_SUB(x, y) ((T)((UT)(x) - (UT)(y)))
#define BP_CL_MUL(x, y) ((T)((UT)(x) * (UT)(y)))
#define BP_CL_POW(x, y) bp_ipow(x, y)
#define BP_CL_FLOOR_DIVIDE(x, y) bp_ifloordiv(x, y)
#define BP_CL_REMAINDER(x, y) bp_iremainder(x, y)
#endif
#define BP_CL_DIV(x, y) ((x) / (y))
/* NaN propagates: a NaN x wins, and a NaN y wins because x > y is false. */
#define BP_CL_MAXIMUM(x, y) (((x) > (y) || IS_NAN(x)) ? (x) : (y))
#define BP_CL_MINIMUM(x, y) (((x) < (y) || IS_NAN(x)) ? (x) : (y))

/* Logical on bool (plugin.h), written so that a bool stays 0 or 1; the bits
 * of two's complement on integers. */
#if BP_KIND_BOOL
#define BP_CL_BITWISE_AND(x, y) ((uchar)((x) && (y)))
#define BP_CL_BITWISE_OR(x, y) ((uchar)((x) || (y)))
#define BP_CL_BITWISE_XOR(x, y) ((uchar)(!(x) != !(y)))
#define BP_CL_BITWISE_NOT(x) ((uchar)!(x))
#else
#define BP_CL_BITWISE_AND(x, y) ((x) & (y))
#define BP_CL_BITWISE_OR(x, y) ((x) | (y))
#define BP_CL_BITWISE_XOR(x, y) ((x) ^ (y))
#define BP_CL_BITWISE_NOT(x) (~(x))
#endif

/* ---- comparisons: bool out, IEEE (NaN compares unequal) ------------------ */
#define BP_CL_EQ(x, y) ((uchar)((x) == (y)))
#define BP_CL_NE(x, y) ((uchar)((x) != (y)))
#define BP_CL_LT(x, y) ((uchar)((x) < (y)))
#define BP_CL_LE(x, y) ((uchar)((x) <= (y)))
#define BP_CL_GT(x, y) ((uchar)((x) > (y)))
#define BP_CL_GE(x, y) ((uchar)((x) >= (y)))

/* ---- unary --------------------------------------------------------------- */
#if BP_KIND_FLOAT
#define BP_CL_NEG(x) (-(x))
#define BP_CL_ABS(x) fabs(x)
#define BP_CL_SQUARE(x) ((x) * (x))
#else
#define BP_CL_NEG(x) ((T)((UT)0 - (UT)(x)))
/* abs of the most negative integer wraps to itself, like NEG. */
#define BP_CL_ABS(x) ((x) < 0 ? (T)((UT)0 - (UT)(x)) : (x))
#define BP_CL_SQUARE(x) ((T)((UT)(x) * (UT)(x)))
#endif
#define BP_CL_EXP(x) exp(x)
#define BP_CL_LOG(x) log(x)
#define BP_CL_SQRT(x) sqrt(x)
#define BP_CL_TANH(x) tanh(x)
#define BP_CL_SIGMOID(x) ((T)1 / ((T)1 + exp(-(x))))
/* x > 0 ? x : 0, so RELU(NaN) is 0, exactly as plugin.h writes it. */
#define BP_CL_RELU(x) ((x) > (T)0 ? (x) : (T)0)
#define BP_CL_SIN(x) sin(x)
#define BP_CL_COS(x) cos(x)

/* ---- ternary ------------------------------------------------------------- */
#define BP_CL_WHERE(c, x, y) ((c) ? (x) : (y))
