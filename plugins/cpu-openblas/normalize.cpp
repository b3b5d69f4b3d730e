// LAYER_NORM and RMS_NORM (plugin.h) along the last axis, threaded over
// rows. A row is read from memory once: its statistics take two passes over
// it (the mean, then the squared deviations from it: stable), the second
// and the output pass hitting the cache. Sums run in float32 lanes within
// blocks of kBlock elements (few terms per lane) and across blocks in
// float64, so a long row loses nothing to a long float32 sum; float64 rows
// sum in float64. Halves are widened into a float32 row buffer and the
// result rounded once from float32. An output of kStreamBytes or more is
// written with streaming stores. The row loop is compiled three times, for
// the baseline, AVX2 and AVX-512F (target attributes, picked at run time:
// the device property norm_path), so the plugin still runs on any x86-64;
// each copy does the same operations in the same order, so gives the same
// bits. At 256 bits a (8192, 1024) float32 layer norm ran at 0.63-0.76 of
// a copy's bandwidth on AMD Zen 5, at 512 at 0.92-0.97, and 1.10-1.26 once
// the squares pass fetched the next row (row_sum).
#include <algorithm>
#include <cmath>
#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <type_traits>
#include <vector>

#include "dtype.hpp"
#include "half_block.hpp"
#include "half_convert.hpp"
#include "kernels.hpp"
#include "layout.hpp"
#include "parallel.hpp"
#include "small_types.hpp"

namespace cpu_backend {

namespace {

#define BP_INLINE __attribute__((always_inline)) inline
#if defined(__x86_64__) || defined(__i386__)
#define BP_NORM_AVX2 __attribute__((target("avx2")))
#define BP_NORM_AVX512 __attribute__((target("avx512f")))
#define BP_NORM_HAVE_AVX2 1
#endif

constexpr int64_t kBlock = 256;  // elements summed in the compute type before a float64 carry

// What every row of one call shares. C is the compute (and statistics) type.
template <class C>
struct Rows {
  bool layer;                          // LAYER_NORM, else RMS_NORM
  int64_t n;                           // row length
  C eps;
  const C *weight, *bias;              // n values each, or nullptr (1 and 0)
  Layout<4> lead;                      // leading axes: x, y, mean, rstd
  const char *x;
  char *y;
  C *mean, *rstd;                      // nullptr when absent
  int64_t x_step, y_step;              // strides along the row
  bool stream;                         // y of T = C, rows contiguous, written with streaming stores
};

// Outputs from this size on are written with streaming stores: beyond a
// core's L2 they leave it anyway, and a cached store first reads each line.
constexpr int64_t kStreamBytes = int64_t(8) << 20;

// Sum of p[0..n), or of (p[i] - centre)^2 when `squares`: float32 (or
// float64) lanes within a block, blocks carried in float64.
// `next` (or nullptr): the next row, n elements like p's, whose lines are
// fetched meanwhile, one prefetch per 64 bytes: the statistics' passes
// over a row in the cache otherwise leave the memory idle.
template <class C, bool squares>
BP_INLINE double row_sum(const C *p, int64_t n, C centre, const C *next) {
  // Four AVX2 registers of lanes: four chains of additions hide the adder's latency.
  constexpr int L = std::is_same<C, float>::value ? 32 : 16;
  double total = 0;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = n - b < kBlock ? n - b : kBlock;
    const C *q = p + b;
    C acc[L] = {};
    int64_t i = 0;
    for (; i + L <= m; i += L) {
#if defined(__SSE2__)
      if (next)
        for (int64_t line = 0; line < L * int64_t(sizeof(C)); line += 64)
          _mm_prefetch(reinterpret_cast<const char *>(next + b + i) + line, _MM_HINT_T0);
#endif
      for (int l = 0; l < L; ++l) {
        const C v = squares ? (q[i + l] - centre) * (q[i + l] - centre) : q[i + l];
        acc[l] += v;
      }
    }
    C tail = 0;
    for (; i < m; ++i) tail += squares ? (q[i] - centre) * (q[i] - centre) : q[i];
    // The lanes added pairwise, as vectors while they fill one: a chain of
    // L scalar adds per block took longer than the block's own sum.
    for (int width = L / 2; width >= 1; width /= 2)
      for (int l = 0; l < width; ++l) acc[l] += acc[l + width];
    total += static_cast<double>(tail + acc[0]);
  }
  return total;
}

#if defined(__SSE2__)
// row_out for float32 or float64 rows written with streaming stores
// (16-byte aligned y): past the caches, without the read for ownership a
// cached store costs, a third of a large output's traffic. The tail is
// row_out's.
template <class C>
BP_INLINE void row_out_streamed(const C *x, C *y, int64_t n, C mean, C rstd, const C *w, const C *b) {
  int64_t j = 0;
  if constexpr (std::is_same<C, float>::value) {
    const __m128 m = _mm_set1_ps(mean), s = _mm_set1_ps(rstd);
    for (; j + 4 <= n; j += 4) {
      __m128 v = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(x + j), m), s);
      if (w) v = _mm_mul_ps(v, _mm_loadu_ps(w + j));
      if (b) v = _mm_add_ps(v, _mm_loadu_ps(b + j));
      _mm_stream_ps(y + j, v);
    }
  } else {
    const __m128d m = _mm_set1_pd(mean), s = _mm_set1_pd(rstd);
    for (; j + 2 <= n; j += 2) {
      __m128d v = _mm_mul_pd(_mm_sub_pd(_mm_loadu_pd(x + j), m), s);
      if (w) v = _mm_mul_pd(v, _mm_loadu_pd(w + j));
      if (b) v = _mm_add_pd(v, _mm_loadu_pd(b + j));
      _mm_stream_pd(y + j, v);
    }
  }
  for (; j < n; ++j) {
    C v = (x[j] - mean) * rstd;
    if (w) v = v * w[j];
    if (b) v = v + b[j];
    y[j] = v;
  }
}
#endif

#ifdef BP_NORM_HAVE_AVX2
#include <immintrin.h>
// row_out_streamed eight lanes at a time, for the AVX2 copy of the row loop
// (the same operations in the same order, so the same bits): at 128 bits
// the output pass of a large float32 layer norm was its bottleneck, 0.7 of
// a copy's bandwidth.
template <class C>
BP_NORM_AVX2 void row_out_streamed_avx2(const C *x, C *y, int64_t n, C mean, C rstd, const C *w,
                                         const C *b) {
  int64_t j = 0;
  if constexpr (std::is_same<C, float>::value) {
    // y is 16-byte aligned: up to the next 32-byte boundary, four lanes.
    j = std::min<int64_t>(n, int64_t(((32 - (reinterpret_cast<uintptr_t>(y) & 31)) & 31) / sizeof(C)));
    row_out_streamed(x, y, j, mean, rstd, w, b);
    const __m256 m = _mm256_set1_ps(mean), s = _mm256_set1_ps(rstd);
    for (; j + 8 <= n; j += 8) {
      __m256 v = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + j), m), s);
      if (w) v = _mm256_mul_ps(v, _mm256_loadu_ps(w + j));
      if (b) v = _mm256_add_ps(v, _mm256_loadu_ps(b + j));
      _mm256_stream_ps(y + j, v);
    }
  }
  row_out_streamed(x + j, y + j, n - j, mean, rstd, w ? w + j : nullptr, b ? b + j : nullptr);
}
#endif

// y = (x - mean) * rstd * w + b over a row, with or without w and b.
template <class C, bool W, bool B>
BP_INLINE void row_out(const C *x, C *y, int64_t n, C mean, C rstd, const C *w, const C *b) {
  for (int64_t j = 0; j < n; ++j) {
    C v = (x[j] - mean) * rstd;
    if (W) v = v * w[j];
    if (B) v = v + b[j];
    y[j] = v;
  }
}

template <class C>
BP_INLINE void row_out_any(const C *x, C *y, int64_t n, C mean, C rstd, const C *w, const C *b) {
  if (w && b) return row_out<C, true, true>(x, y, n, mean, rstd, w, b);
  if (w) return row_out<C, true, false>(x, y, n, mean, rstd, w, b);
  if (b) return row_out<C, false, true>(x, y, n, mean, rstd, w, b);
  row_out<C, false, false>(x, y, n, mean, rstd, w, b);
}

// A row of T at p (stride) as C, into dst.
template <class T, class C>
BP_INLINE void load_row(const T *p, int64_t stride, int64_t n, C *dst) {
  if constexpr (is_half<T>) {
    for (int64_t b = 0; b < n; b += kHalfBlock) load_floats(p + b * stride, stride, std::min(kHalfBlock, n - b), dst + b);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = p[i * stride];
  }
}

template <class T, class C>
BP_INLINE void store_row(const C *src, int64_t n, T *p, int64_t stride) {
  if constexpr (is_half<T>) {
    for (int64_t b = 0; b < n; b += kHalfBlock) store_floats(src + b, std::min(kHalfBlock, n - b), p + b * stride, stride);
  } else {
    for (int64_t i = 0; i < n; ++i) p[i * stride] = src[i];
  }
}

// Element offsets of row `row` in x, y, mean and rstd (a C-order index of
// the leading axes, decomposed).
BP_INLINE void row_offsets(const Layout<4> &lead, int64_t row, int64_t *off) {
  for (int k = 0; k < 4; ++k) off[k] = 0;
  for (int d = lead.rank - 1; d >= 0; --d) {
    const int64_t e = row % lead.shape[d];
    row /= lead.shape[d];
    for (int k = 0; k < 4; ++k) off[k] += e * lead.strides[k][d];
  }
}

// Rows [begin, end) of the call. No lambda here: a lambda's body would be
// compiled for the baseline even inside the AVX2 copy of this loop, which
// is Avx2.
template <class T, class C, bool Avx2>
BP_INLINE void run_rows(const Rows<C> &r, int64_t begin, int64_t end) {
  const int64_t n = r.n;
  const bool direct_in = std::is_same<T, C>::value && r.x_step == 1;
  const bool direct_out = std::is_same<T, C>::value && r.y_step == 1;
  std::vector<C> in_buf(direct_in ? 0 : size_t(n)), out_buf(direct_out ? 0 : size_t(n));
  int64_t off[4], next_off[4];
  if (begin < end) row_offsets(r.lead, begin, next_off);
  for (int64_t row = begin; row < end; ++row) {
    std::copy(next_off, next_off + 4, off);
    if (row + 1 < end) row_offsets(r.lead, row + 1, next_off);
    C mean = r.layer ? C(NAN) : C(0), rstd = C(NAN);
    if (n > 0) {  // an empty row has NaN statistics and no elements (plugin.h)
      const T *xr = reinterpret_cast<const T *>(r.x) + off[0];
      T *yr = reinterpret_cast<T *>(r.y) + off[1];
      const C *src = direct_in ? reinterpret_cast<const C *>(xr) : in_buf.data();
      if (!direct_in) load_row(xr, r.x_step, n, in_buf.data());
      const C *next = direct_in && row + 1 < end ? reinterpret_cast<const C *>(r.x) + next_off[0] : nullptr;
      double spread;
      if (r.layer) {
        mean = static_cast<C>(row_sum<C, false>(src, n, C(0), nullptr) / double(n));
        spread = row_sum<C, true>(src, n, mean, next);
      } else {
        spread = row_sum<C, true>(src, n, C(0), next);
      }
      rstd = C(1) / std::sqrt(static_cast<C>(spread / double(n)) + r.eps);
      C *dst = direct_out ? reinterpret_cast<C *>(yr) : out_buf.data();
#if defined(__SSE2__)
      if (r.stream && (reinterpret_cast<uintptr_t>(dst) & 15) == 0) {
#ifdef BP_NORM_HAVE_AVX2
        if constexpr (Avx2) row_out_streamed_avx2(src, dst, n, mean, rstd, r.weight, r.bias);
        else
#endif
          row_out_streamed(src, dst, n, mean, rstd, r.weight, r.bias);
      } else
#endif
        row_out_any(src, dst, n, mean, rstd, r.weight, r.bias);
      if (!direct_out) store_row(out_buf.data(), n, yr, r.y_step);
    }
    if (r.mean) r.mean[off[2]] = mean;
    if (r.rstd) r.rstd[off[3]] = rstd;
  }
}

template <class T, class C>
void rows_baseline(const Rows<C> &r, int64_t begin, int64_t end) {
  run_rows<T, C, false>(r, begin, end);
}

#ifdef BP_NORM_HAVE_AVX2
template <class T, class C>
BP_NORM_AVX2 void rows_avx2(const Rows<C> &r, int64_t begin, int64_t end) {
  run_rows<T, C, true>(r, begin, end);
}

template <class T, class C>
BP_NORM_AVX512 void rows_avx512(const Rows<C> &r, int64_t begin, int64_t end) {
  run_rows<T, C, true>(r, begin, end);
}
#endif

// weight or bias as n values of C (nullptr when absent).
template <class T, class C>
const C *affine(const bp_plugin_tensor &t, int64_t n, std::vector<C> &values) {
  if (bp_sdk_absent(&t)) return nullptr;
  values.resize(size_t(n));
  if (n > 0) load_row(reinterpret_cast<const T *>(t.buffer->data() + t.offset), t.strides[0], n, values.data());
  return values.data();
}

template <class T>
void normalize_as(ThreadPool &pool, int32_t op, double eps, const bp_plugin_tensor *in, const bp_plugin_tensor *out) {
  using C = std::conditional_t<std::is_same<T, double>::value, double, float>;
  const bp_plugin_tensor &x = in[0], &y = out[0], &m = out[1], &s = out[2];
  const int32_t last = x.rank - 1;
  Rows<C> r;
  r.layer = op == BP_OP_LAYER_NORM;
  r.n = x.shape[last];
  r.eps = static_cast<C>(eps);
  std::vector<C> w, b;
  r.weight = affine<T, C>(in[1], r.n, w);
  r.bias = affine<T, C>(in[2], r.n, b);
  const int64_t zeros[BP_MAX_RANK] = {};
  const int64_t *strides[4] = {x.strides, y.strides, bp_sdk_absent(&m) ? zeros : m.strides,
                               bp_sdk_absent(&s) ? zeros : s.strides};
  r.lead = make_layout<4>(last, x.shape, {strides[0], strides[1], strides[2], strides[3]});
  int64_t rows = 1;
  for (int32_t d = 0; d < last; ++d) rows *= x.shape[d];
  r.x = x.buffer ? x.buffer->data() + x.offset : nullptr;
  r.y = y.buffer ? y.buffer->data() + y.offset : nullptr;
  r.mean = bp_sdk_absent(&m) || !m.buffer ? nullptr : reinterpret_cast<C *>(m.buffer->data() + m.offset);
  r.rstd = bp_sdk_absent(&s) || !s.buffer ? nullptr : reinterpret_cast<C *>(s.buffer->data() + s.offset);
  r.x_step = x.strides[last];
  r.y_step = y.strides[last];
  r.stream = std::is_same<T, C>::value && r.y_step == 1 && rows * r.n * int64_t(sizeof(T)) >= kStreamBytes;
  if (rows == 0) return;
  void (*body)(const Rows<C> &, int64_t, int64_t) = rows_baseline<T, C>;
#ifdef BP_NORM_HAVE_AVX2
  if (best_isa() == Isa::avx512) body = rows_avx512<T, C>;
  if (best_isa() == Isa::avx2) body = rows_avx2<T, C>;
#endif
  // About four passes over each element.
  parallel_for(pool, rows, std::max<int64_t>(4 * r.n, 1), [&](int64_t begin, int64_t end) {
    body(r, begin, end);
#if defined(__SSE2__)
    if (r.stream) _mm_sfence();  // the streamed stores are visible before execute returns
#endif
  });
}

}  // namespace

const char *norm_path() {
#ifdef BP_NORM_HAVE_AVX2
  if (best_isa() == Isa::avx512) return "avx512f";
  if (best_isa() == Isa::avx2) return "avx2";
#endif
  return "baseline";
}

void normalize_kernel(ThreadPool &pool, int32_t op, double eps, const bp_plugin_tensor *inputs,
                      const bp_plugin_tensor *outputs) {
  dispatch<BP_FLOAT_TYPES, BP_HALF_TYPES>(inputs[0].dtype, [&](auto tag) {
    normalize_as<typename decltype(tag)::type>(pool, op, eps, inputs, outputs);
  });
}

}  // namespace cpu_backend
