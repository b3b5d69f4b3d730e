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
 * Header-only C99 (static inline, no library), also valid C++, CUDA (host
 * and device) and OpenCL C: the OpenCL backend compiles this very text,
 * embedded at build time (plugins/opencl/CMakeLists.txt), as CUDA's NVRTC
 * kernels do, so that every backend's conversion is this one. OpenCL C sees
 * the float64 conversions only where its program defines BP_HALF_F64 (a
 * device without cl_khr_fp64 cannot compile them). Values are passed as bit
 * patterns, so nothing here depends on a compiler's own half type.
 *
 * The conversions between float16 and float32 have no branches: each
 * computes the candidate results (normal, subnormal, special) and selects
 * one, so that a vectorising compiler (OpenCL's, C's) keeps a loop over
 * elements straight. The float arithmetic they use is exact or rounds to
 * nearest as the comments say, also where denormals are flushed.
 */
#ifndef BACKPLANE_HALF_H
#define BACKPLANE_HALF_H

#if defined(__OPENCL_VERSION__)
/* OpenCL C has no <stdint.h>: its own types of the same widths stand in. */
#define uint16_t ushort
#define uint32_t uint
#define uint64_t ulong
#define int64_t long
#define BP_HALF_FN inline
#else
#include <stdint.h>
#if defined(__CUDACC__)
#define BP_HALF_FN static inline __host__ __device__
#else
#define BP_HALF_FN static inline
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Bit casts: OpenCL C's built-ins; elsewhere through a union, defined in
 * C99 and accepted by every C++ and CUDA compiler Backplane supports. */
#if defined(__OPENCL_VERSION__)
BP_HALF_FN uint32_t bp_f32_bits(float f) { return as_uint(f); }
BP_HALF_FN float bp_f32_from_bits(uint32_t u) { return as_float(u); }
#else
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
#endif

/* bfloat16 bits -> float32 (exact; a NaN keeps its bits). */
BP_HALF_FN float bp_f32_from_bf16(uint16_t h) { return bp_f32_from_bits((uint32_t)h << 16); }

/* float32 -> bfloat16 bits, rounded to nearest even; a NaN made quiet
 * (its one test, which vectorising compilers turn into a select). */
BP_HALF_FN uint16_t bp_bf16_from_f32(float f) {
  const uint32_t u = bp_f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x0040u);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* float16 bits -> float32 (exact). */
BP_HALF_FN float bp_f32_from_f16(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  /* A subnormal (or zero) is `mantissa` units of 2^-24: the product is
   * exact, and a normal float32 (never flushed). */
  const uint32_t subnormal = bp_f32_bits((float)mantissa * 5.9604644775390625e-8f);
  /* Infinity, or NaN made quiet (as F16C and CUDA do). */
  const uint32_t special = 0x7f800000u | (mantissa ? 0x400000u | (mantissa << 13) : 0u);
  /* Normal: rebias the exponent (15 -> 127), widen the fraction. */
  const uint32_t normal = ((exponent + 112u) << 23) | (mantissa << 13);
  return bp_f32_from_bits(sign | (exponent == 0u ? subnormal : exponent == 0x1fu ? special : normal));
}

/* float32 -> float16 bits, rounded to nearest even. */
BP_HALF_FN uint16_t bp_f16_from_f32(float f) {
  const uint32_t u = bp_f32_bits(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t a = u & 0x7fffffffu;
  /* NaN: quiet, keeping the top of the payload. */
  const uint32_t nan = 0x7e00u | ((a >> 13) & 0x3ffu);
  /* Normal in float16: rebias the exponent, round the fraction. */
  const uint32_t normal = ((a + 0x0fffu + ((a >> 13) & 1u)) >> 13) - 0x1c000u;
  /* Below 2^-14, float16's subnormals are the multiples of 2^-24, which is
   * float32's spacing in [0.5, 1): adding 0.5 rounds |f| to one of them,
   * to nearest even (at most half the smallest subnormal goes to 0), and
   * leaves the multiple in the low bits (2^-14 itself when |f| rounds up
   * to the smallest normal, whose bits are the same). A float32 subnormal
   * flushed to 0 rounds to 0 all the same. */
  const uint32_t subnormal = bp_f32_bits(bp_f32_from_bits(a) + 0.5f) - 0x3f000000u;
  /* 65520 = 65504 (the largest finite) plus half its spacing: ties go to
   * the even neighbour, which is infinity. */
  const uint32_t r = a > 0x7f800000u ? nan : a >= 0x477ff000u ? 0x7c00u : a >= 0x38800000u ? normal : subnormal;
  return (uint16_t)(sign | r);
}

#if !defined(__OPENCL_VERSION__) || defined(BP_HALF_F64)
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
#endif

/* int64 -> float32 rounded to odd (see above), for the same purpose: 24
 * significant bits, the rest folded into a sticky last bit. */
BP_HALF_FN float bp_f32_round_odd_from_i64(int64_t x) {
  const uint64_t magnitude = x < 0 ? 0u - (uint64_t)x : (uint64_t)x;
  /* shift = max(0, bit length - 24): the bit length of magnitude >> 24,
   * found by halving (rest ends as 0 or 1, its own bit length). */
  uint64_t rest = magnitude >> 24;
  uint32_t shift = 0, step;
  for (step = 32; step > 0; step >>= 1) {
    const uint32_t s = (rest >> step) != 0u ? step : 0u;
    rest >>= s;
    shift += s;
  }
  shift += (uint32_t)rest;
  {
    const uint64_t dropped = magnitude & ((((uint64_t)1) << shift) - 1u);
    const uint64_t kept = (magnitude >> shift) | (uint64_t)(dropped != 0u);
    /* Exact: kept has at most 24 bits, and the factor is 2^shift. */
    const float f = (float)kept * bp_f32_from_bits((127u + shift) << 23);
    return x < 0 ? -f : f;
  }
}

/* int64 -> float16 / bfloat16 bits, rounded once to nearest even (every
 * narrower integer converts through this too). */
BP_HALF_FN uint16_t bp_f16_from_i64(int64_t x) { return bp_f16_from_f32(bp_f32_round_odd_from_i64(x)); }
BP_HALF_FN uint16_t bp_bf16_from_i64(int64_t x) { return bp_bf16_from_f32(bp_f32_round_odd_from_i64(x)); }

#ifdef __cplusplus
}
#endif

#if defined(__OPENCL_VERSION__)
#undef uint16_t
#undef uint32_t
#undef uint64_t
#undef int64_t
#endif

#endif /* BACKPLANE_HALF_H */
