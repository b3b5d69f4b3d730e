/*
 * backplane/half.h — conversions between float16/bfloat16 bits and float32
 * or float64 values, as plugin.h's COPY rule defines them (since 1.4).
 *
 * A FLOAT16 or BFLOAT16 element is a uint16_t holding the bits. Clients use
 * these to fill or read such tensors through bp_from_host/bp_to_host;
 * backends use them wherever they have no faster instruction, and must give
 * the same bits when they do (bp check compares them bit for bit).
 *
 * Rules: every conversion to a 16-bit float rounds once, to nearest, ties
 * to even; a finite value beyond the largest finite one (after rounding)
 * gives infinity of its sign; NaN gives a quiet NaN of its sign; -0 stays
 * -0; subnormals are kept (never flushed: AVX-512 BF16's VCVTNEPS2BF16
 * flushes subnormal inputs to zero and so is not this conversion). Widening
 * (to float32 or float64) is exact.
 *
 * Header-only C99 (static inline, no library), also valid C++ and CUDA
 * (host and device). Values are passed as bit patterns, so nothing here
 * depends on a compiler's own half type.
 */
#ifndef BACKPLANE_HALF_H
#define BACKPLANE_HALF_H

#include <stdint.h>

#if defined(__CUDACC__)
#define BP_HALF_FN static inline __host__ __device__
#else
#define BP_HALF_FN static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Bit casts through a union: defined in C99 and accepted by every C++ and
 * CUDA compiler Backplane supports. */
BP_HALF_FN uint32_t bp_f32_bits(float f) {
  union { float f; uint32_t u; } v;
  v.f = f;
  return v.u;
}
BP_HALF_FN float bp_f32_from_bits(uint32_t u) {
  union { float f; uint32_t u; } v;
  v.u = u;
  return v.f;
}

/* bfloat16 bits -> float32 (exact; a NaN keeps its bits). */
BP_HALF_FN float bp_f32_from_bf16(uint16_t h) { return bp_f32_from_bits((uint32_t)h << 16); }

/* float32 -> bfloat16 bits, rounded to nearest even. */
BP_HALF_FN uint16_t bp_bf16_from_f32(float f) {
  const uint32_t u = bp_f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x0040u);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* float16 bits -> float32 (exact). */
BP_HALF_FN float bp_f32_from_f16(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1fu) /* infinity, or NaN made quiet (as F16C and CUDA do) */
    return bp_f32_from_bits(sign | 0x7f800000u | (mantissa ? 0x400000u | (mantissa << 13) : 0u));
  if (exponent == 0) {
    if (mantissa == 0) return bp_f32_from_bits(sign);
    /* Subnormal: normalise into float32's wider exponent range. */
    exponent = 113;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --exponent;
    }
    return bp_f32_from_bits(sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13));
  }
  return bp_f32_from_bits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

/* float32 -> float16 bits, rounded to nearest even. */
BP_HALF_FN uint16_t bp_f16_from_f32(float f) {
  const uint32_t u = bp_f32_bits(f);
  const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  /* 65520 = 65504 (the largest finite) plus half its spacing: ties go to
   * the even neighbour, which is infinity. */
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
  if (a >= 0x38800000u) /* normal in float16: rebias the exponent, round the fraction */
    return (uint16_t)(sign | (((a + 0x0fffu + ((a >> 13) & 1u)) >> 13) - 0x1c000u));
  if (a <= 0x33000000u) return sign; /* at most half the smallest subnormal: ties to 0 */
  {
    /* Subnormal in float16: units of 2^-24. */
    const uint32_t mantissa = (a & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - (a >> 23);
    const uint32_t half = 1u << (shift - 1);
    const uint32_t rest = mantissa & ((1u << shift) - 1u);
    uint32_t r = mantissa >> shift;
    if (rest > half || (rest == half && (r & 1u))) ++r;
    return (uint16_t)(sign | r);
  }
}

/* float64 -> float32 rounded to odd: the nearest float32 toward zero, with
 * its last bit set when the conversion was inexact. Rounding that result
 * once more, to nearest even, in a format at least two bits narrower gives
 * the float64's own correctly rounded value (no double-rounding error). */
BP_HALF_FN float bp_f32_round_odd_from_f64(double d) {
  const float f = (float)d;
  uint32_t u;
  if ((double)f == d || d != d) return f;
  u = bp_f32_bits(f);
  if ((f < 0 ? -(double)f : (double)f) > (d < 0 ? -d : d)) --u; /* rounded away from zero */
  return bp_f32_from_bits(u | 1u);
}

/* float64 -> float16 / bfloat16 bits, rounded once to nearest even. */
BP_HALF_FN uint16_t bp_f16_from_f64(double d) { return bp_f16_from_f32(bp_f32_round_odd_from_f64(d)); }
BP_HALF_FN uint16_t bp_bf16_from_f64(double d) { return bp_bf16_from_f32(bp_f32_round_odd_from_f64(d)); }

/* int64 -> float32 rounded to odd (see above), for the same purpose. */
BP_HALF_FN float bp_f32_round_odd_from_i64(int64_t x) {
  const uint64_t magnitude = x < 0 ? 0u - (uint64_t)x : (uint64_t)x;
  uint64_t kept = magnitude;
  int shift = 0;
  float f;
  while (kept >= (1ull << 24)) { /* keep 24 significant bits; fold the rest into a sticky bit */
    kept = (kept >> 1) | (kept & 1u);
    ++shift;
  }
  f = (float)kept; /* exact */
  while (shift-- > 0) f *= 2.0f;
  return x < 0 ? -f : f;
}

/* int64 -> float16 / bfloat16 bits, rounded once to nearest even (every
 * narrower integer converts through this too). */
BP_HALF_FN uint16_t bp_f16_from_i64(int64_t x) { return bp_f16_from_f32(bp_f32_round_odd_from_i64(x)); }
BP_HALF_FN uint16_t bp_bf16_from_i64(int64_t x) { return bp_bf16_from_f32(bp_f32_round_odd_from_i64(x)); }

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_HALF_H */
