// ATTENTION (plugin.h), flash-style: a task takes one batch element's block
// of kRows query rows and walks its keys in tiles of kKeys. Per tile: the
// scores (Q K^T, one small GEMM on packed tiles), an online softmax (each
// row keeps a running maximum and sum, and its partial output is rescaled
// when the maximum grows) and the weighted values added into the block's
// output (P V, the same GEMM). So the [Lq, Lk] weights never exist in
// memory, and tiles above the causal diagonal are never computed. Tasks
// (batch x query blocks) go over the backend's pool, the heaviest (last)
// query blocks first.
//
// The compute type is float32 for float32, float16 and bfloat16 (widened
// while packing, the output rounded once when stored) and float64 for
// float64. The GEMM is a register block of kMR x kNR: AVX-512 (one block
// of zmm registers) or AVX2 + FMA (two halves of ymm registers) intrinsics
// for float32, whichever the CPU has (asked once at run time; the plugin
// still runs on any x86-64), plain loops otherwise; the softmax's exp and
// maximum likewise. Packed tiles
// are padded to whole register blocks with zeros; padded keys are never
// weighted (the products stop at the tile's real keys) and padded rows and
// columns are never stored.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define BP_CPU_X86 1
#endif

#include "backend.hpp"
#include "half_block.hpp"
#include "kernels.hpp"
#include "layout.hpp"
#include "parallel.hpp"
#include "simd_exp.hpp"
#include "small_types.hpp"

namespace cpu_backend {

namespace {

constexpr int64_t kMR = 6, kNR = 32;  // register block of the GEMM: rows x columns
constexpr int64_t kRows = 48;         // query rows per task, a multiple of kMR
constexpr int64_t kKeys = 64;         // keys per tile, a multiple of kNR

int64_t round_up(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

// c[kMR x kNR] = (accumulate ? c : 0) + a[kMR x depth] b[depth x kNR]
// (row-major, leading dimensions in elements).
template <class W>
void block_loops(int64_t depth, const W *a, int64_t lda, const W *b, int64_t ldb, W *c, int64_t ldc,
                 bool accumulate) {
  W acc[kMR][kNR];
  for (int64_t i = 0; i < kMR; ++i)
    for (int64_t j = 0; j < kNR; ++j) acc[i][j] = accumulate ? c[i * ldc + j] : W(0);
  for (int64_t p = 0; p < depth; ++p) {
    const W *bp = b + p * ldb;
    for (int64_t i = 0; i < kMR; ++i) {
      const W ai = a[i * lda + p];
      for (int64_t j = 0; j < kNR; ++j) acc[i][j] += ai * bp[j];
    }
  }
  for (int64_t i = 0; i < kMR; ++i)
    for (int64_t j = 0; j < kNR; ++j) c[i * ldc + j] = acc[i][j];
}

// s[j] = exp(s[j] - shift) for j < n; returns their sum.
template <class W>
W exp_row_loops(W *s, int64_t n, W shift) {
  W sum = 0;
  for (int64_t j = 0; j < n; ++j) sum += s[j] = std::exp(s[j] - shift);
  return sum;
}

template <class W>
W max_row_loops(const W *s, int64_t n) {
  W m = -std::numeric_limits<W>::infinity();
  for (int64_t j = 0; j < n; ++j) m = s[j] > m ? s[j] : m;
  return m;
}

#ifdef BP_CPU_X86

#define BP_AVX2_FMA __attribute__((target("avx2,fma")))

// One half (16 columns) of the register block: 12 ymm accumulators.
BP_AVX2_FMA void half_block_avx2(int64_t depth, const float *a, int64_t lda, const float *b, int64_t ldb, float *c,
                                 int64_t ldc, bool accumulate) {
  static_assert(kMR == 6 && kNR == 32, "the register block below is 6 x (2 x 16)");
  __m256 c0[kMR], c1[kMR];
  for (int i = 0; i < kMR; ++i) {
    c0[i] = accumulate ? _mm256_loadu_ps(c + i * ldc) : _mm256_setzero_ps();
    c1[i] = accumulate ? _mm256_loadu_ps(c + i * ldc + 8) : _mm256_setzero_ps();
  }
  for (int64_t p = 0; p < depth; ++p) {
    const __m256 b0 = _mm256_loadu_ps(b + p * ldb), b1 = _mm256_loadu_ps(b + p * ldb + 8);
    for (int i = 0; i < kMR; ++i) {
      const __m256 ai = _mm256_broadcast_ss(a + i * lda + p);
      c0[i] = _mm256_fmadd_ps(ai, b0, c0[i]);
      c1[i] = _mm256_fmadd_ps(ai, b1, c1[i]);
    }
  }
  for (int i = 0; i < kMR; ++i) {
    _mm256_storeu_ps(c + i * ldc, c0[i]);
    _mm256_storeu_ps(c + i * ldc + 8, c1[i]);
  }
}

BP_AVX2_FMA float exp_row_avx2(float *s, int64_t n, float shift) {
  const __m256 m = _mm256_set1_ps(shift);
  __m256 sum = _mm256_setzero_ps();
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 e = simd_exp::exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(s + j), m));
    _mm256_storeu_ps(s + j, e);
    sum = _mm256_add_ps(sum, e);
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  float total = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
  if (j < n) {  // the tail through one more (padded) vector
    alignas(32) float tail[8];
    for (int64_t t = 0; t < 8; ++t) tail[t] = j + t < n ? s[j + t] - shift : -INFINITY;
    _mm256_store_ps(tail, simd_exp::exp_avx2(_mm256_load_ps(tail)));
    for (int64_t t = 0; j + t < n; ++t) total += s[j + t] = tail[t];
  }
  return total;
}

BP_AVX2_FMA float max_row_avx2(const float *s, int64_t n) {
  __m256 m = _mm256_set1_ps(-INFINITY);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) m = _mm256_max_ps(m, _mm256_loadu_ps(s + j));
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, m);
  float r = lanes[0];
  for (int t = 1; t < 8; ++t) r = lanes[t] > r ? lanes[t] : r;
  for (; j < n; ++j) r = s[j] > r ? s[j] : r;
  return r;
}

BP_AVX2_FMA void block_avx2(int64_t depth, const float *a, int64_t lda, const float *b, int64_t ldb, float *c,
                            int64_t ldc, bool accumulate) {
  half_block_avx2(depth, a, lda, b, ldb, c, ldc, accumulate);
  half_block_avx2(depth, a, lda, b + kNR / 2, ldb, c + kNR / 2, ldc, accumulate);
}

bool has_avx2_fma() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return yes;
}

// ---- AVX-512: the same steps on 16 lanes --------------------------------------

#define BP_AVX512 __attribute__((target("avx512f")))

BP_AVX512 void block_avx512(int64_t depth, const float *a, int64_t lda, const float *b, int64_t ldb, float *c,
                            int64_t ldc, bool accumulate) {
  __m512 c0[kMR], c1[kMR];
  for (int i = 0; i < kMR; ++i) {
    c0[i] = accumulate ? _mm512_loadu_ps(c + i * ldc) : _mm512_setzero_ps();
    c1[i] = accumulate ? _mm512_loadu_ps(c + i * ldc + 16) : _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < depth; ++p) {
    const __m512 b0 = _mm512_loadu_ps(b + p * ldb), b1 = _mm512_loadu_ps(b + p * ldb + 16);
    for (int i = 0; i < kMR; ++i) {
      const __m512 ai = _mm512_set1_ps(a[i * lda + p]);
      c0[i] = _mm512_fmadd_ps(ai, b0, c0[i]);
      c1[i] = _mm512_fmadd_ps(ai, b1, c1[i]);
    }
  }
  for (int i = 0; i < kMR; ++i) {
    _mm512_storeu_ps(c + i * ldc, c0[i]);
    _mm512_storeu_ps(c + i * ldc + 16, c1[i]);
  }
}

BP_AVX512 float exp_row_avx512(float *s, int64_t n, float shift) {
  const __m512 m = _mm512_set1_ps(shift);
  __m512 sum = _mm512_setzero_ps();
  for (int64_t j = 0; j < n; j += 16) {
    const __mmask16 lanes = n - j >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << (n - j)) - 1);
    const __m512 e = simd_exp::exp_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(lanes, s + j), m));
    _mm512_mask_storeu_ps(s + j, lanes, e);
    sum = _mm512_add_ps(sum, _mm512_maskz_mov_ps(lanes, e));
  }
  return _mm512_reduce_add_ps(sum);
}

BP_AVX512 float max_row_avx512(const float *s, int64_t n) {
  __m512 m = _mm512_set1_ps(-INFINITY);
  for (int64_t j = 0; j < n; j += 16) {
    const __mmask16 lanes = n - j >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << (n - j)) - 1);
    m = _mm512_mask_max_ps(m, lanes, m, _mm512_maskz_loadu_ps(lanes, s + j));
  }
  return _mm512_reduce_max_ps(m);
}

bool has_avx512() {
  static const bool yes = __builtin_cpu_supports("avx512f");
  return yes;
}

#endif  // BP_CPU_X86

// The three inner steps, for the compute type W.
template <class W>
struct Steps {
  static void block(int64_t depth, const W *a, int64_t lda, const W *b, int64_t ldb, W *c, int64_t ldc,
                    bool accumulate) {
#ifdef BP_CPU_X86
    if constexpr (std::is_same<W, float>::value) {
      if (has_avx512()) return block_avx512(depth, a, lda, b, ldb, c, ldc, accumulate);
      if (has_avx2_fma()) return block_avx2(depth, a, lda, b, ldb, c, ldc, accumulate);
    }
#endif
    block_loops(depth, a, lda, b, ldb, c, ldc, accumulate);
  }
  static W exp_row(W *s, int64_t n, W shift) {
#ifdef BP_CPU_X86
    if constexpr (std::is_same<W, float>::value) {
      if (has_avx512()) return exp_row_avx512(s, n, shift);
      if (has_avx2_fma()) return exp_row_avx2(s, n, shift);
    }
#endif
    return exp_row_loops(s, n, shift);
  }
  static W max_row(const W *s, int64_t n) {
#ifdef BP_CPU_X86
    if constexpr (std::is_same<W, float>::value) {
      if (has_avx512()) return max_row_avx512(s, n);
      if (has_avx2_fma()) return max_row_avx2(s, n);
    }
#endif
    return max_row_loops(s, n);
  }
};

// p[i * stride] for i < n, widened to the compute type (halves by blocks).
template <class T>
void load_line(const T *p, int64_t stride, int64_t n, compute_t<T> *dst) {
  for (int64_t i = 0; i < n; i += kHalfBlock) {
    const int64_t len = std::min(kHalfBlock, n - i);
    load_compute(p + i * stride, stride, len, dst + i);
  }
}

template <class T>
void store_line(const compute_t<T> *src, int64_t n, T *p, int64_t stride) {
  for (int64_t i = 0; i < n; i += kHalfBlock) store_results(src + i, std::min(kHalfBlock, n - i), p + i * stride, stride);
}

// One attention problem: the views of the call and the sizes.
template <class T>
struct Problem {
  using W = compute_t<T>;
  const T *q, *k, *v, *mask;  // mask: null when absent
  T *out;
  int64_t lq, lk, d, dv;
  // Strides of the last two axes (rows, columns), per view.
  int64_t q_rs, q_cs, k_rs, k_cs, v_rs, v_cs, m_rs, m_cs, o_rs, o_cs;
  std::vector<int64_t> o_off, q_off, k_off, v_off, m_off;  // each batch element's offsets
  W scale;
  bool causal;
  int64_t blocks;  // query blocks per batch element
};

// Working memory of one thread: the packed tiles, the scores and the
// block's output and row statistics.
template <class W>
struct Tiles {
  std::vector<W> q, kt, v, s, o, m, l, line;
  Tiles(int64_t d, int64_t dv_pad) : q(kRows * std::max<int64_t>(d, 1)), kt(std::max<int64_t>(d, 1) * kKeys),
                                     v(kKeys * dv_pad), s(kRows * kKeys), o(kRows * dv_pad), m(kRows), l(kRows),
                                     line(std::max<int64_t>(std::max(d, dv_pad), kKeys)) {}
};

template <class T>
void run_block(const Problem<T> &P, Tiles<compute_t<T>> &t, int64_t batch, int64_t block) {
  using W = compute_t<T>;
  using S = Steps<W>;
  const int64_t i0 = block * kRows, rows = std::min(kRows, P.lq - i0);
  const int64_t dv_pad = round_up(std::max<int64_t>(P.dv, 1), kNR);
  const T *q = P.q + P.q_off[batch], *k = P.k + P.k_off[batch], *v = P.v + P.v_off[batch];
  const T *mask = P.mask ? P.mask + P.m_off[batch] : nullptr;
  T *out = P.out + P.o_off[batch];
  const W neg_inf = -std::numeric_limits<W>::infinity();

  // Q, scaled; rows past the block's are zero.
  std::fill(t.q.begin(), t.q.end(), W(0));
  for (int64_t r = 0; r < rows; ++r) {
    W *row = t.q.data() + r * P.d;
    load_line(q + (i0 + r) * P.q_rs, P.q_cs, P.d, row);
    for (int64_t c = 0; c < P.d; ++c) row[c] *= P.scale;
  }
  std::fill(t.o.begin(), t.o.end(), W(0));
  std::fill(t.m.begin(), t.m.end(), neg_inf);
  std::fill(t.l.begin(), t.l.end(), W(0));
  // Keys a row of the block can see: all, or up to its last row (causal).
  const int64_t key_end = P.causal ? std::min(P.lk, i0 + rows) : P.lk;
  for (int64_t j0 = 0; j0 < key_end; j0 += kKeys) {
    const int64_t keys = std::min(kKeys, key_end - j0);
    // K^T [d x kKeys] (padded keys zero) and V [keys x dv_pad].
    std::fill(t.kt.begin(), t.kt.end(), W(0));
    for (int64_t j = 0; j < keys; ++j) {
      load_line(k + (j0 + j) * P.k_rs, P.k_cs, P.d, t.line.data());
      for (int64_t c = 0; c < P.d; ++c) t.kt[c * kKeys + j] = t.line[c];
      W *vrow = t.v.data() + j * dv_pad;
      load_line(v + (j0 + j) * P.v_rs, P.v_cs, P.dv, vrow);
      std::fill(vrow + P.dv, vrow + dv_pad, W(0));
    }
    // S = Q K^T for the whole (padded) block.
    for (int64_t r = 0; r < kRows; r += kMR)
      for (int64_t c = 0; c < kKeys; c += kNR)
        S::block(P.d, t.q.data() + r * P.d, P.d, t.kt.data() + c, kKeys, t.s.data() + r * kKeys + c, kKeys, false);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t i = i0 + r;
      W *s = t.s.data() + r * kKeys;
      if (mask) {
        load_line(mask + i * P.m_rs + j0 * P.m_cs, P.m_cs, keys, t.line.data());
        for (int64_t j = 0; j < keys; ++j) s[j] += t.line[j];
      }
      // Causal: keys past i are hidden (only the diagonal tiles have any).
      const int64_t seen = P.causal ? std::clamp<int64_t>(i + 1 - j0, 0, keys) : keys;
      for (int64_t j = seen; j < keys; ++j) s[j] = neg_inf;
      const W tile_max = S::max_row(s, keys);
      const W old_max = t.m[r], new_max = tile_max > old_max ? tile_max : old_max;
      // While every score so far is -inf, exp(s - max) is taken against 0:
      // the weights are 0, and a row that stays so ends as 0 / 0 = NaN.
      const W shift = new_max == neg_inf ? W(0) : new_max;
      const W sum = S::exp_row(s, keys, shift);
      const W rescale = std::exp(old_max - shift);
      if (rescale != W(1)) {
        W *o = t.o.data() + r * dv_pad;
        for (int64_t c = 0; c < dv_pad; ++c) o[c] *= rescale;
      }
      t.l[r] = t.l[r] * rescale + sum;
      t.m[r] = new_max;
    }
    // O += P V over the tile's real keys.
    for (int64_t r = 0; r < kRows; r += kMR)
      for (int64_t c = 0; c < dv_pad; c += kNR)
        S::block(keys, t.s.data() + r * kKeys, kKeys, t.v.data() + c, dv_pad, t.o.data() + r * dv_pad + c, dv_pad,
                 true);
  }
  for (int64_t r = 0; r < rows; ++r) {
    W *o = t.o.data() + r * dv_pad;
    const W l = t.l[r];
    for (int64_t c = 0; c < P.dv; ++c) o[c] /= l;
    store_line(o, P.dv, out + (i0 + r) * P.o_rs, P.o_cs);
  }
}

template <class T>
void attention_typed(ThreadPool &pool, const View &q, const View &k, const View &v, const View &mask, double scale,
                     bool causal, const View &out) {
  using W = compute_t<T>;
  const int r = out.rank, batch_rank = r - 2;
  Problem<T> P;
  P.q = q.data<T>();
  P.k = k.data<T>();
  P.v = v.data<T>();
  P.mask = mask.dtype != BP_DTYPE_INVALID ? mask.data<T>() : nullptr;
  P.out = out.data<T>();
  P.lq = q.shape[r - 2];
  P.d = q.shape[r - 1];
  P.lk = k.shape[r - 2];
  P.dv = v.shape[r - 1];
  P.q_rs = q.strides[r - 2], P.q_cs = q.strides[r - 1];
  P.k_rs = k.strides[r - 2], P.k_cs = k.strides[r - 1];
  P.v_rs = v.strides[r - 2], P.v_cs = v.strides[r - 1];
  P.o_rs = out.strides[r - 2], P.o_cs = out.strides[r - 1];
  P.m_rs = P.mask ? mask.strides[r - 2] : 0, P.m_cs = P.mask ? mask.strides[r - 1] : 0;
  P.scale = static_cast<W>(scale);
  P.causal = causal;
  static constexpr int64_t kNoStrides[BP_MAX_RANK] = {};
  const Layout<5> layout = make_layout<5>(
      batch_rank, out.shape, {out.strides, q.strides, k.strides, v.strides, P.mask ? mask.strides : kNoStrides});
  const int64_t batches = layout.numel();
  for (auto *offsets : {&P.o_off, &P.q_off, &P.k_off, &P.v_off, &P.m_off}) offsets->resize(batches);
  walk(layout, 0, batches, [&](const int64_t *off, int64_t n, int64_t pos) {
    for (int64_t i = 0; i < n; ++i) {
      P.o_off[pos + i] = off[0] + i * layout.inner_stride(0);
      P.q_off[pos + i] = off[1] + i * layout.inner_stride(1);
      P.k_off[pos + i] = off[2] + i * layout.inner_stride(2);
      P.v_off[pos + i] = off[3] + i * layout.inner_stride(3);
      P.m_off[pos + i] = off[4] + i * layout.inner_stride(4);
    }
  });
  P.blocks = (P.lq + kRows - 1) / kRows;
  if (P.lk == 0) {  // empty sums: zeros, not 0 / 0
    const W zero = 0;
    for (int64_t b = 0; b < batches; ++b)
      for (int64_t i = 0; i < P.lq; ++i)
        for (int64_t c = 0; c < P.dv; ++c) P.out[P.o_off[b] + i * P.o_rs + c * P.o_cs] = narrow<T>(zero);
    return;
  }
  const int64_t dv_pad = round_up(std::max<int64_t>(P.dv, 1), kNR);
  // Task t: the last query blocks of every batch element first (under a
  // causal mask they see the most keys).
  const int64_t tasks = batches * P.blocks;
  parallel_for(pool, tasks, kRows * P.lk * (P.d + P.dv), [&](int64_t begin, int64_t end) {
    Tiles<W> tiles(P.d, dv_pad);
    for (int64_t task = begin; task < end; ++task)
      run_block(P, tiles, task % batches, P.blocks - 1 - task / batches);
  });
}

}  // namespace

void attention_kernel(ThreadPool &pool, const View &q, const View &k, const View &v, const View &mask, double scale,
                      bool causal, const View &out) {
  if (out.numel == 0) return;
  dispatch_set<BP_DTYPE_SET_FLOAT>(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    attention_typed<T>(pool, q, k, v, mask, scale, causal, out);
  });
}

const char *attention_path() {
#ifdef BP_CPU_X86
  if (has_avx512()) return "flash-style tiles, AVX-512 float32 GEMM blocks and exp";
  if (has_avx2_fma()) return "flash-style tiles, AVX2+FMA float32 GEMM blocks and exp";
#endif
  return "flash-style tiles, plain loops";
}

}  // namespace cpu_backend
