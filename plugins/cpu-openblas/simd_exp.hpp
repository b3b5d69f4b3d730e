// simd_exp.hpp — float32 exp on 8 (AVX2 + FMA) and 16 (AVX-512F) lanes, for
// the kernels that exponentiate x - max (softmax rows, attention's online
// softmax) and for EXP and ERF over dense float32 runs (unary_vector.cpp).
// Cephes' expf: exp(x) = 2^n p(r)
// with n = round(x log2(e)) and r = x - n ln(2), ln(2) in two parts (the
// high part exact in few bits, so n times it is exact), p the degree-6
// minimax polynomial of e^r on [-ln(2)/2, ln(2)/2]; within 1 ulp of exp
// over every argument, +inf above 89 (exp overflows float32 from 88.73),
// a NaN carried through, results below 2^-126
// rounded once into the subnormals as exp's are. Both widths give the same
// values. Each body is compiled for its instruction set only (target
// attributes), so that a plugin including this still runs on any x86-64;
// call them from functions of the same target.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

namespace cpu_backend {
namespace simd_exp {

constexpr float kLog2e = 1.44269504088896341f, kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
constexpr float kPoly[6] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                            4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
// Below kLowest exp is 0 in float32, above kHighest +inf; between them 2^n
// is in range for the scalings below.
constexpr float kLowest = -150.0f, kHighest = 89.0f;

// 2^k for integer lanes -126 <= k <= 127: the exponent bits.
__attribute__((target("avx2,fma"), always_inline)) inline __m256 pow2_avx2(__m256i k) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k, _mm256_set1_epi32(127)), 23));
}

// max(lowest, x) and min(highest, x) keep a NaN (both return their second
// operand then); 2^n is applied as two normal factors, so a result below
// 2^-126 rounds once and one above 2^127 overflows to +inf.
__attribute__((target("avx2,fma"), always_inline)) inline __m256 exp_avx2(__m256 x) {
  x = _mm256_min_ps(_mm256_set1_ps(kHighest), _mm256_max_ps(_mm256_set1_ps(kLowest), x));
  const __m256 n =
      _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), r);
  __m256 p = _mm256_set1_ps(kPoly[0]);
  for (int i = 1; i < 6; ++i) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kPoly[i]));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  const __m256i k = _mm256_cvtps_epi32(n), half = _mm256_srai_epi32(k, 1);
  return _mm256_mul_ps(_mm256_mul_ps(p, pow2_avx2(half)), pow2_avx2(_mm256_sub_epi32(k, half)));
}

// scalef applies 2^n with one rounding, into the subnormals too.
__attribute__((target("avx512f"), always_inline)) inline __m512 exp_avx512(__m512 x) {
  x = _mm512_min_ps(_mm512_set1_ps(kHighest), _mm512_max_ps(_mm512_set1_ps(kLowest), x));
  const __m512 n =
      _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo), r);
  __m512 p = _mm512_set1_ps(kPoly[0]);
  for (int i = 1; i < 6; ++i) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kPoly[i]));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_scalef_ps(p, n);
}

}  // namespace simd_exp
}  // namespace cpu_backend
#endif
