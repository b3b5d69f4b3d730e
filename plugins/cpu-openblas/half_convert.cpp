// The conversion tables of half_convert.hpp. Vector bodies are compiled for
// their instruction set only (target attributes), so the plugin itself
// still runs on any x86-64; the tails and the portable table use half.h.
//
// float16: F16C's VCVTPS2PH with round-to-nearest-even gives the bits of
// bp_f16_from_f32 for every float32 (overflow to inf, subnormals kept, NaN
// quieted), and VCVTPH2PS those of bp_f32_from_f16. bfloat16: the integer
// arithmetic of bp_bf16_from_f32, lane by lane (AVX-512 BF16's VCVTNEPS2BF16
// flushes subnormal inputs, so it is not used).
#include "half_convert.hpp"

#include <initializer_list>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define BP_CPU_X86 1
#endif

#include "backplane/half.h"

namespace cpu_backend {

namespace {

void f16_to_f32_scalar(const uint16_t *in, float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = bp_f32_from_f16(in[i]);
}
void f32_to_f16_scalar(const float *in, uint16_t *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = bp_f16_from_f32(in[i]);
}
// Plain shifts and adds: gcc vectorises these two for the baseline ISA.
void bf16_to_f32_scalar(const uint16_t *in, float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = bp_f32_from_bf16(in[i]);
}
void f32_to_bf16_scalar(const float *in, uint16_t *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = bp_bf16_from_f32(in[i]);
}

template <int Op>
inline float apply_op(float a, float b) {
  if constexpr (Op == kHalfAdd) return a + b;
  else if constexpr (Op == kHalfSub) return a - b;
  else if constexpr (Op == kHalfMul) return a * b;
  else return a / b;
}

template <int Op>
void f16_binary_scalar(const uint16_t *a, const uint16_t *b, uint16_t *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = bp_f16_from_f32(apply_op<Op>(bp_f32_from_f16(a[i]), bp_f32_from_f16(b[i])));
}
template <int Op>
void bf16_binary_scalar(const uint16_t *a, const uint16_t *b, uint16_t *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = bp_bf16_from_f32(apply_op<Op>(bp_f32_from_bf16(a[i]), bp_f32_from_bf16(b[i])));
}

constexpr HalfConverters kScalar = {
    f16_to_f32_scalar,
    f32_to_f16_scalar,
    bf16_to_f32_scalar,
    f32_to_bf16_scalar,
    {f16_binary_scalar<kHalfAdd>, f16_binary_scalar<kHalfSub>, f16_binary_scalar<kHalfMul>, f16_binary_scalar<kHalfDiv>},
    {bf16_binary_scalar<kHalfAdd>, bf16_binary_scalar<kHalfSub>, bf16_binary_scalar<kHalfMul>,
     bf16_binary_scalar<kHalfDiv>}};

#ifdef BP_CPU_X86

// ---- AVX2 + F16C ------------------------------------------------------------

#define BP_AVX2 __attribute__((target("avx2,f16c")))

BP_AVX2 void f16_to_f32_avx2(const uint16_t *in, float *out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i h0 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(in + i));
    const __m128i h1 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(in + i + 8));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h0));
    _mm256_storeu_ps(out + i + 8, _mm256_cvtph_ps(h1));
  }
  f16_to_f32_scalar(in + i, out + i, n - i);
}

BP_AVX2 void f32_to_f16_avx2(const float *in, uint16_t *out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i h0 = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m128i h1 = _mm256_cvtps_ph(_mm256_loadu_ps(in + i + 8), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out + i), h0);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out + i + 8), h1);
  }
  f32_to_f16_scalar(in + i, out + i, n - i);
}

BP_AVX2 void bf16_to_f32_avx2(const uint16_t *in, float *out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(in + i));
    const __m256i lo = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(h)), 16);
    const __m256i hi = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(h, 1)), 16);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i), lo);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i + 8), hi);
  }
  bf16_to_f32_scalar(in + i, out + i, n - i);
}

// bp_bf16_from_f32 on 8 lanes, each result in the low half of its lane.
BP_AVX2 inline __m256i bf16_lanes_avx2(__m256 x) {
  const __m256i u = _mm256_castps_si256(x);
  const __m256i magnitude = _mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff));
  const __m256i nan = _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7f800000));
  const __m256i high = _mm256_srli_epi32(u, 16);
  const __m256i odd = _mm256_and_si256(high, _mm256_set1_epi32(1));
  const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), odd), 16);
  const __m256i quiet = _mm256_or_si256(high, _mm256_set1_epi32(0x40));
  return _mm256_blendv_epi8(rounded, quiet, nan);
}

BP_AVX2 void f32_to_bf16_avx2(const float *in, uint16_t *out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i lo = bf16_lanes_avx2(_mm256_loadu_ps(in + i));
    const __m256i hi = bf16_lanes_avx2(_mm256_loadu_ps(in + i + 8));
    // Every lane holds at most 0xffff, so the saturating pack is exact; it
    // interleaves 128-bit halves, which the permute puts back in order.
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i), packed);
  }
  f32_to_bf16_scalar(in + i, out + i, n - i);
}

template <int Op>
BP_AVX2 inline __m256 apply_avx2(__m256 a, __m256 b) {
  if constexpr (Op == kHalfAdd) return _mm256_add_ps(a, b);
  else if constexpr (Op == kHalfSub) return _mm256_sub_ps(a, b);
  else if constexpr (Op == kHalfMul) return _mm256_mul_ps(a, b);
  else return _mm256_div_ps(a, b);
}

template <int Op>
BP_AVX2 void f16_binary_avx2(const uint16_t *a, const uint16_t *b, uint16_t *out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(a + i)));
    const __m256 y = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(b + i)));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(out + i),
                     _mm256_cvtps_ph(apply_avx2<Op>(x, y), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  f16_binary_scalar<Op>(a + i, b + i, out + i, n - i);
}

BP_AVX2 inline __m256 bf16_widen_avx2(const uint16_t *p) {
  return _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p))), 16));
}

template <int Op>
BP_AVX2 void bf16_binary_avx2(const uint16_t *a, const uint16_t *b, uint16_t *out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i lo = bf16_lanes_avx2(apply_avx2<Op>(bf16_widen_avx2(a + i), bf16_widen_avx2(b + i)));
    const __m256i hi = bf16_lanes_avx2(apply_avx2<Op>(bf16_widen_avx2(a + i + 8), bf16_widen_avx2(b + i + 8)));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i),
                        _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xd8));
  }
  bf16_binary_scalar<Op>(a + i, b + i, out + i, n - i);
}

constexpr HalfConverters kAvx2 = {
    f16_to_f32_avx2,
    f32_to_f16_avx2,
    bf16_to_f32_avx2,
    f32_to_bf16_avx2,
    {f16_binary_avx2<kHalfAdd>, f16_binary_avx2<kHalfSub>, f16_binary_avx2<kHalfMul>, f16_binary_avx2<kHalfDiv>},
    {bf16_binary_avx2<kHalfAdd>, bf16_binary_avx2<kHalfSub>, bf16_binary_avx2<kHalfMul>, bf16_binary_avx2<kHalfDiv>}};

// ---- AVX-512F ---------------------------------------------------------------

#define BP_AVX512 __attribute__((target("avx512f")))

BP_AVX512 void f16_to_f32_avx512(const uint16_t *in, float *out, int64_t n) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i h0 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(in + i));
    const __m256i h1 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(in + i + 16));
    _mm512_storeu_ps(out + i, _mm512_cvtph_ps(h0));
    _mm512_storeu_ps(out + i + 16, _mm512_cvtph_ps(h1));
  }
  f16_to_f32_scalar(in + i, out + i, n - i);
}

BP_AVX512 void f32_to_f16_avx512(const float *in, uint16_t *out, int64_t n) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i h0 = _mm512_cvtps_ph(_mm512_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256i h1 = _mm512_cvtps_ph(_mm512_loadu_ps(in + i + 16), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i), h0);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i + 16), h1);
  }
  f32_to_f16_scalar(in + i, out + i, n - i);
}

BP_AVX512 void bf16_to_f32_avx512(const uint16_t *in, float *out, int64_t n) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i h0 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(in + i));
    const __m256i h1 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(in + i + 16));
    _mm512_storeu_si512(out + i, _mm512_slli_epi32(_mm512_cvtepu16_epi32(h0), 16));
    _mm512_storeu_si512(out + i + 16, _mm512_slli_epi32(_mm512_cvtepu16_epi32(h1), 16));
  }
  bf16_to_f32_scalar(in + i, out + i, n - i);
}

BP_AVX512 inline __m256i bf16_lanes_avx512(__m512 x) {
  const __m512i u = _mm512_castps_si512(x);
  const __m512i magnitude = _mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff));
  const __mmask16 nan = _mm512_cmpgt_epi32_mask(magnitude, _mm512_set1_epi32(0x7f800000));
  const __m512i high = _mm512_srli_epi32(u, 16);
  const __m512i odd = _mm512_and_si512(high, _mm512_set1_epi32(1));
  const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)), odd), 16);
  const __m512i quiet = _mm512_or_si512(high, _mm512_set1_epi32(0x40));
  return _mm512_cvtepi32_epi16(_mm512_mask_blend_epi32(nan, rounded, quiet));
}

BP_AVX512 void f32_to_bf16_avx512(const float *in, uint16_t *out, int64_t n) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i), bf16_lanes_avx512(_mm512_loadu_ps(in + i)));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i + 16), bf16_lanes_avx512(_mm512_loadu_ps(in + i + 16)));
  }
  f32_to_bf16_scalar(in + i, out + i, n - i);
}

template <int Op>
BP_AVX512 inline __m512 apply_avx512(__m512 a, __m512 b) {
  if constexpr (Op == kHalfAdd) return _mm512_add_ps(a, b);
  else if constexpr (Op == kHalfSub) return _mm512_sub_ps(a, b);
  else if constexpr (Op == kHalfMul) return _mm512_mul_ps(a, b);
  else return _mm512_div_ps(a, b);
}

template <int Op>
BP_AVX512 void f16_binary_avx512(const uint16_t *a, const uint16_t *b, uint16_t *out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 x = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(a + i)));
    const __m512 y = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(b + i)));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i),
                        _mm512_cvtps_ph(apply_avx512<Op>(x, y), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  f16_binary_scalar<Op>(a + i, b + i, out + i, n - i);
}

BP_AVX512 inline __m512 bf16_widen_avx512(const uint16_t *p) {
  return _mm512_castsi512_ps(
      _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p))), 16));
}

template <int Op>
BP_AVX512 void bf16_binary_avx512(const uint16_t *a, const uint16_t *b, uint16_t *out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + i),
                        bf16_lanes_avx512(apply_avx512<Op>(bf16_widen_avx512(a + i), bf16_widen_avx512(b + i))));
  bf16_binary_scalar<Op>(a + i, b + i, out + i, n - i);
}

constexpr HalfConverters kAvx512 = {
    f16_to_f32_avx512,
    f32_to_f16_avx512,
    bf16_to_f32_avx512,
    f32_to_bf16_avx512,
    {f16_binary_avx512<kHalfAdd>, f16_binary_avx512<kHalfSub>, f16_binary_avx512<kHalfMul>,
     f16_binary_avx512<kHalfDiv>},
    {bf16_binary_avx512<kHalfAdd>, bf16_binary_avx512<kHalfSub>, bf16_binary_avx512<kHalfMul>,
     bf16_binary_avx512<kHalfDiv>}};

#endif  // BP_CPU_X86

#ifdef BP_CPU_X86
// F16C is CPUID leaf 1, ECX bit 29 (Clang 15's __builtin_cpu_supports has no
// name for it); the AVX2 test already covers the OS's saving of YMM state.
bool has_f16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
}
#endif

Isa detect_best() {
  for (Isa isa : {Isa::avx512, Isa::avx2})
    if (isa_supported(isa)) return isa;
  return Isa::scalar;
}

}  // namespace

bool isa_supported(Isa isa) {
  switch (isa) {
    case Isa::scalar: return true;
#ifdef BP_CPU_X86
    case Isa::avx2: return __builtin_cpu_supports("avx2") && has_f16c();
    case Isa::avx512: return __builtin_cpu_supports("avx512f") != 0;
#else
    default: return false;
#endif
  }
  return false;
}

const HalfConverters &half_converters(Isa isa) {
#ifdef BP_CPU_X86
  if (isa == Isa::avx512) return kAvx512;
  if (isa == Isa::avx2) return kAvx2;
#endif
  (void)isa;
  return kScalar;
}

const char *isa_name(Isa isa) {
  switch (isa) {
    case Isa::avx512: return "avx512f";
    case Isa::avx2: return "avx2+f16c";
    case Isa::scalar: return "scalar";
  }
  return "scalar";
}

Isa best_isa() {
  static const Isa best = detect_best();
  return best;
}

const HalfConverters &converters() {
  static const HalfConverters &best = half_converters(best_isa());
  return best;
}

}  // namespace cpu_backend
