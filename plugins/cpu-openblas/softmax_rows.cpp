// The tables of softmax_rows.hpp. float32's vector exponential is
// simd_exp.hpp's, inline in the row loop: Cephes' expf (2^n times a degree-6
// polynomial of the remainder, within 1 ulp of exp over the arguments a
// softmax takes, x - m <= 0), because glibc's libmvec, whose variants
// float64 rows call (_ZGVdN4v_exp, _ZGVeN8v_exp: within 4 ulp, part of
// every glibc since 2.22, linked through libm), costs a call per vector
// that spills every vector register (the vector ABI saves none): 1.7 times
// the time per element of the inline polynomial on a row in cache, where
// float32 softmax is compute-bound. Vector bodies are compiled for their
// instruction set only (target attributes), so the plugin itself still runs
// on any x86-64; the portable table is plain loops over the C library's exp.
#include "softmax_rows.hpp"

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#define BP_CPU_SOFTMAX_X86 1

#include "simd_exp.hpp"
#endif

namespace cpu_backend {

namespace {

template <class T>
void softmax_row_scalar(const T *x, T *y, int64_t n, bool log, T *e, bool, const T *) {
  T m = -std::numeric_limits<T>::infinity();
  for (int64_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
  T s = 0;
  for (int64_t i = 0; i < n; ++i) {
    const T t = std::exp(x[i] - m);
    if (!log) e[i] = t;
    s += t;
  }
  const T inv = T(1) / s, ls = std::log(s);
  for (int64_t i = 0; i < n; ++i) y[i] = log ? (x[i] - m) - ls : e[i] * inv;
}

constexpr SoftmaxRows kScalar = {softmax_row_scalar<float>, softmax_row_scalar<double>, "scalar, the C library's exp"};

}  // namespace

#ifdef BP_CPU_SOFTMAX_X86

// libmvec's entry points (glibc's x86_64 vector function ABI): AVX2 takes
// 4 doubles in a ymm register, AVX-512 8 in a zmm one. Declared with the
// instruction sets whose registers carry them, as the callers are: clang
// refuses a vector argument across a call between different targets.
extern "C" {
__attribute__((target("avx2"))) __m256d _ZGVdN4v_exp(__m256d);
__attribute__((target("avx512f"))) __m512d _ZGVeN8v_exp(__m512d);
}

namespace {

// ---- AVX2 + FMA: libmvec's AVX2 variants pick their FMA code themselves ----

#define BP_AVX2 __attribute__((target("avx2,fma"), always_inline)) inline

// The AVX2 masks of the first k lanes (k < lanes), as maskload/maskstore take them.
BP_AVX2 __m256i first_lanes_32(int64_t k) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(int(k)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
BP_AVX2 __m256i first_lanes_64(int64_t k) {
  return _mm256_cmpgt_epi64(_mm256_set1_epi64x(k), _mm256_setr_epi64x(0, 1, 2, 3));
}

struct F32x8 {
  using T = float;
  using R = __m256;
  static constexpr int lanes = 8;
  BP_AVX2 static R set1(T v) { return _mm256_set1_ps(v); }
  BP_AVX2 static R loadu(const T *p) { return _mm256_loadu_ps(p); }
  BP_AVX2 static R load_tail(const T *p, int64_t k, T fill) {
    const __m256i mask = first_lanes_32(k);
    return _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(p, mask), _mm256_castsi256_ps(mask));
  }
  BP_AVX2 static void storeu(T *p, R v) { _mm256_storeu_ps(p, v); }
  BP_AVX2 static void store_tail(T *p, R v, int64_t k) { _mm256_maskstore_ps(p, first_lanes_32(k), v); }
  BP_AVX2 static void stream(T *p, R v) { _mm256_stream_ps(p, v); }
  BP_AVX2 static bool aligned(const T *p) { return (reinterpret_cast<uintptr_t>(p) & 31) == 0; }
  BP_AVX2 static R max(R a, R b) { return _mm256_max_ps(a, b); }
  BP_AVX2 static R add(R a, R b) { return _mm256_add_ps(a, b); }
  BP_AVX2 static R sub(R a, R b) { return _mm256_sub_ps(a, b); }
  BP_AVX2 static R mul(R a, R b) { return _mm256_mul_ps(a, b); }
  BP_AVX2 static R exp(R a) { return simd_exp::exp_avx2(a); }
  BP_AVX2 static T hmax(R v) {
    __m128 a = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    a = _mm_max_ps(a, _mm_movehl_ps(a, a));
    return _mm_cvtss_f32(_mm_max_ss(a, _mm_shuffle_ps(a, a, 1)));
  }
  BP_AVX2 static T hsum(R v) {
    __m128 a = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    a = _mm_add_ps(a, _mm_movehl_ps(a, a));
    return _mm_cvtss_f32(_mm_add_ss(a, _mm_shuffle_ps(a, a, 1)));
  }
};

struct F64x4 {
  using T = double;
  using R = __m256d;
  static constexpr int lanes = 4;
  BP_AVX2 static R set1(T v) { return _mm256_set1_pd(v); }
  BP_AVX2 static R loadu(const T *p) { return _mm256_loadu_pd(p); }
  BP_AVX2 static R load_tail(const T *p, int64_t k, T fill) {
    const __m256i mask = first_lanes_64(k);
    return _mm256_blendv_pd(_mm256_set1_pd(fill), _mm256_maskload_pd(p, mask), _mm256_castsi256_pd(mask));
  }
  BP_AVX2 static void storeu(T *p, R v) { _mm256_storeu_pd(p, v); }
  BP_AVX2 static void store_tail(T *p, R v, int64_t k) { _mm256_maskstore_pd(p, first_lanes_64(k), v); }
  BP_AVX2 static void stream(T *p, R v) { _mm256_stream_pd(p, v); }
  BP_AVX2 static bool aligned(const T *p) { return (reinterpret_cast<uintptr_t>(p) & 31) == 0; }
  BP_AVX2 static R max(R a, R b) { return _mm256_max_pd(a, b); }
  BP_AVX2 static R add(R a, R b) { return _mm256_add_pd(a, b); }
  BP_AVX2 static R sub(R a, R b) { return _mm256_sub_pd(a, b); }
  BP_AVX2 static R mul(R a, R b) { return _mm256_mul_pd(a, b); }
  BP_AVX2 static R exp(R a) { return _ZGVdN4v_exp(a); }
  BP_AVX2 static T hmax(R v) {
    __m128d a = _mm_max_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_max_sd(a, _mm_unpackhi_pd(a, a)));
  }
  BP_AVX2 static T hsum(R v) {
    __m128d a = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(a, _mm_unpackhi_pd(a, a)));
  }
};

#undef BP_AVX2

// ---- AVX-512F --------------------------------------------------------------

#define BP_AVX512 __attribute__((target("avx512f"), always_inline)) inline

struct F32x16 {
  using T = float;
  using R = __m512;
  static constexpr int lanes = 16;
  BP_AVX512 static __mmask16 first(int64_t k) { return static_cast<__mmask16>((1u << k) - 1); }
  BP_AVX512 static R set1(T v) { return _mm512_set1_ps(v); }
  BP_AVX512 static R loadu(const T *p) { return _mm512_loadu_ps(p); }
  BP_AVX512 static R load_tail(const T *p, int64_t k, T fill) { return _mm512_mask_loadu_ps(_mm512_set1_ps(fill), first(k), p); }
  BP_AVX512 static void storeu(T *p, R v) { _mm512_storeu_ps(p, v); }
  BP_AVX512 static void store_tail(T *p, R v, int64_t k) { _mm512_mask_storeu_ps(p, first(k), v); }
  BP_AVX512 static void stream(T *p, R v) { _mm512_stream_ps(p, v); }
  BP_AVX512 static bool aligned(const T *p) { return (reinterpret_cast<uintptr_t>(p) & 63) == 0; }
  BP_AVX512 static R max(R a, R b) { return _mm512_max_ps(a, b); }
  BP_AVX512 static R add(R a, R b) { return _mm512_add_ps(a, b); }
  BP_AVX512 static R sub(R a, R b) { return _mm512_sub_ps(a, b); }
  BP_AVX512 static R mul(R a, R b) { return _mm512_mul_ps(a, b); }
  BP_AVX512 static R exp(R a) { return simd_exp::exp_avx512(a); }
  BP_AVX512 static T hmax(R v) { return _mm512_reduce_max_ps(v); }
  BP_AVX512 static T hsum(R v) { return _mm512_reduce_add_ps(v); }
};

struct F64x8 {
  using T = double;
  using R = __m512d;
  static constexpr int lanes = 8;
  BP_AVX512 static __mmask8 first(int64_t k) { return static_cast<__mmask8>((1u << k) - 1); }
  BP_AVX512 static R set1(T v) { return _mm512_set1_pd(v); }
  BP_AVX512 static R loadu(const T *p) { return _mm512_loadu_pd(p); }
  BP_AVX512 static R load_tail(const T *p, int64_t k, T fill) { return _mm512_mask_loadu_pd(_mm512_set1_pd(fill), first(k), p); }
  BP_AVX512 static void storeu(T *p, R v) { _mm512_storeu_pd(p, v); }
  BP_AVX512 static void store_tail(T *p, R v, int64_t k) { _mm512_mask_storeu_pd(p, first(k), v); }
  BP_AVX512 static void stream(T *p, R v) { _mm512_stream_pd(p, v); }
  BP_AVX512 static bool aligned(const T *p) { return (reinterpret_cast<uintptr_t>(p) & 63) == 0; }
  BP_AVX512 static R max(R a, R b) { return _mm512_max_pd(a, b); }
  BP_AVX512 static R add(R a, R b) { return _mm512_add_pd(a, b); }
  BP_AVX512 static R sub(R a, R b) { return _mm512_sub_pd(a, b); }
  BP_AVX512 static R mul(R a, R b) { return _mm512_mul_pd(a, b); }
  BP_AVX512 static R exp(R a) { return _ZGVeN8v_exp(a); }
  BP_AVX512 static T hmax(R v) { return _mm512_reduce_max_pd(v); }
  BP_AVX512 static T hsum(R v) { return _mm512_reduce_add_pd(v); }
};

#undef BP_AVX512

}  // namespace

namespace avx2 {
#define BP_ROW_TARGET __attribute__((target("avx2,fma")))
#include "softmax_row.inc"
#undef BP_ROW_TARGET
}  // namespace avx2

namespace avx512 {
#define BP_ROW_TARGET __attribute__((target("avx512f")))
#include "softmax_row.inc"
#undef BP_ROW_TARGET
}  // namespace avx512

namespace {

constexpr SoftmaxRows kAvx2 = {avx2::softmax_row<F32x8>, avx2::softmax_row<F64x4>,
                               "avx2+fma (float32 exp inline, float64 exp libmvec)"};
constexpr SoftmaxRows kAvx512 = {avx512::softmax_row<F32x16>, avx512::softmax_row<F64x8>,
                                 "avx512f (float32 exp inline, float64 exp libmvec)"};

}  // namespace

const SoftmaxRows *softmax_rows_for(SoftmaxIsa isa) {
  switch (isa) {
    case SoftmaxIsa::avx512: return __builtin_cpu_supports("avx512f") ? &kAvx512 : nullptr;
    case SoftmaxIsa::avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? &kAvx2 : nullptr;
    case SoftmaxIsa::scalar: return &kScalar;
  }
  return nullptr;
}

const SoftmaxRows &softmax_rows() {
  static const SoftmaxRows &best = *[] {
    for (SoftmaxIsa isa : {SoftmaxIsa::avx512, SoftmaxIsa::avx2})
      if (const SoftmaxRows *rows = softmax_rows_for(isa)) return rows;
    return &kScalar;
  }();
  return best;
}

void stream_fence() { _mm_sfence(); }

#else

const SoftmaxRows *softmax_rows_for(SoftmaxIsa isa) { return isa == SoftmaxIsa::scalar ? &kScalar : nullptr; }

const SoftmaxRows &softmax_rows() { return kScalar; }

void stream_fence() {}

#endif  // BP_CPU_SOFTMAX_X86

}  // namespace cpu_backend
