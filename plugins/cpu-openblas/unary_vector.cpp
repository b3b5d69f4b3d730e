// The tables of unary_vector.hpp.
//
// exp is simd_exp.hpp's (within 1 ulp). erf takes two forms, as PyTorch's
// vectorised erf does for its large arguments:
//  - |x| < 0.8: x p(x^2), p erf's Taylor series to x^18 (2/sqrt(pi) times
//    1 - x^2/3 + x^4/10 - ...), whose next term is below 2e-10 relative;
//  - otherwise: 1 - t q(t) exp(-x^2) with t = 1 / (1 + 0.3275911 |x|), q of
//    degree 4 (Abramowitz and Stegun 7.1.26), within 1.5e-7 absolute, so
//    within 2.1e-7 relative from 0.8 on; the sign of x is put back.
// The first form keeps small arguments relatively exact, where the second
// would cancel. A NaN is carried through both; erf(+-inf) = +-1.
#include "unary_vector.hpp"

#include <cmath>
#include <initializer_list>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define BP_CPU_UNARY_X86 1

#include "simd_exp.hpp"
#endif

namespace cpu_backend {

namespace {

void exp_scalar(const float *in, float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::exp(in[i]);
}

void erf_scalar(const float *in, float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::erf(in[i]);
}

constexpr UnaryVector kScalar = {exp_scalar, erf_scalar, "scalar, the C library's"};

#ifdef BP_CPU_UNARY_X86

constexpr float kSmall = 0.8f;
// 2/sqrt(pi) (-1)^k / (k! (2k + 1)), k = 9 down to 0.
constexpr float kTwoOverSqrtPi = 1.1283791670955126f;
constexpr float kTaylor[10] = {
    -kTwoOverSqrtPi / 6894720.0f, kTwoOverSqrtPi / 685440.0f, -kTwoOverSqrtPi / 75600.0f, kTwoOverSqrtPi / 9360.0f,
    -kTwoOverSqrtPi / 1320.0f,    kTwoOverSqrtPi / 216.0f,    -kTwoOverSqrtPi / 42.0f,    kTwoOverSqrtPi / 10.0f,
    -kTwoOverSqrtPi / 3.0f,       kTwoOverSqrtPi};
constexpr float kP = 0.3275911f;
constexpr float kQ[5] = {1.061405429f, -1.453152027f, 1.421413741f, -0.284496736f, 0.254829592f};

__attribute__((target("avx2,fma"))) __m256 erf_avx2(__m256 x) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  const __m256 ax = _mm256_andnot_ps(sign, x), x2 = _mm256_mul_ps(x, x);
  __m256 s = _mm256_set1_ps(kTaylor[0]);
  for (int i = 1; i < 10; ++i) s = _mm256_fmadd_ps(s, x2, _mm256_set1_ps(kTaylor[i]));
  s = _mm256_mul_ps(s, x);
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 t = _mm256_div_ps(one, _mm256_fmadd_ps(_mm256_set1_ps(kP), ax, one));
  __m256 q = _mm256_set1_ps(kQ[0]);
  for (int i = 1; i < 5; ++i) q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(kQ[i]));
  const __m256 e = simd_exp::exp_avx2(_mm256_xor_ps(sign, x2));
  __m256 l = _mm256_fnmadd_ps(_mm256_mul_ps(q, t), e, one);
  l = _mm256_or_ps(l, _mm256_and_ps(sign, x));
  // NaN compares false, so it takes the Taylor form, which carries it.
  return _mm256_blendv_ps(s, l, _mm256_cmp_ps(ax, _mm256_set1_ps(kSmall), _CMP_GE_OQ));
}

__attribute__((target("avx512f"))) __m512 erf_avx512(__m512 x) {
  const __m512 ax = _mm512_abs_ps(x), x2 = _mm512_mul_ps(x, x);
  __m512 s = _mm512_set1_ps(kTaylor[0]);
  for (int i = 1; i < 10; ++i) s = _mm512_fmadd_ps(s, x2, _mm512_set1_ps(kTaylor[i]));
  s = _mm512_mul_ps(s, x);
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 t = _mm512_div_ps(one, _mm512_fmadd_ps(_mm512_set1_ps(kP), ax, one));
  __m512 q = _mm512_set1_ps(kQ[0]);
  for (int i = 1; i < 5; ++i) q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(kQ[i]));
  const __m512 e = simd_exp::exp_avx512(_mm512_sub_ps(_mm512_setzero_ps(), x2));
  const __m512 l = _mm512_fnmadd_ps(_mm512_mul_ps(q, t), e, one);
  const __m512i sign = _mm512_and_epi32(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN));
  const __m512 signed_l = _mm512_castsi512_ps(_mm512_or_epi32(_mm512_castps_si512(l), sign));
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(ax, _mm512_set1_ps(kSmall), _CMP_GE_OQ), s, signed_l);
}

// The runs: whole vectors, then the tail through a masked load and store.
__attribute__((target("avx2,fma"))) __m256i tail_mask_avx2(int64_t left) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(left)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

template <__m256 (*F)(__m256)>
__attribute__((target("avx2,fma"))) void run_avx2(const float *in, float *out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, F(_mm256_loadu_ps(in + i)));
  if (i < n) {
    const __m256i m = tail_mask_avx2(n - i);
    _mm256_maskstore_ps(out + i, m, F(_mm256_maskload_ps(in + i, m)));
  }
}

template <__m512 (*F)(__m512)>
__attribute__((target("avx512f"))) void run_avx512(const float *in, float *out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, F(_mm512_loadu_ps(in + i)));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(out + i, m, F(_mm512_maskz_loadu_ps(m, in + i)));
  }
}

__attribute__((target("avx2,fma"))) __m256 exp_avx2(__m256 x) { return simd_exp::exp_avx2(x); }
__attribute__((target("avx512f"))) __m512 exp_avx512(__m512 x) { return simd_exp::exp_avx512(x); }

constexpr UnaryVector kAvx2 = {run_avx2<exp_avx2>, run_avx2<erf_avx2>, "avx2+fma"};
constexpr UnaryVector kAvx512 = {run_avx512<exp_avx512>, run_avx512<erf_avx512>, "avx512f"};

#endif  // BP_CPU_UNARY_X86

}  // namespace

const UnaryVector *unary_vector_for(Isa isa) {
  switch (isa) {
    case Isa::scalar: return &kScalar;
#ifdef BP_CPU_UNARY_X86
    case Isa::avx512: return __builtin_cpu_supports("avx512f") ? &kAvx512 : nullptr;
    case Isa::avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? &kAvx2 : nullptr;
#endif
    default: return nullptr;
  }
}

const UnaryVector &unary_vector() {
  static const UnaryVector &best = [] () -> const UnaryVector & {
    for (Isa isa : {Isa::avx512, Isa::avx2})
      if (const UnaryVector *v = unary_vector_for(isa)) return *v;
    return kScalar;
  }();
  return best;
}

}  // namespace cpu_backend
