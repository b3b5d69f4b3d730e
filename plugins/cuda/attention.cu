// ATTENTION (plugin.h), flash-style: a block of kAttentionThreads threads
// takes Tile::kRows query rows of one batch element and one chunk of
// Tile::kChunk output columns, and walks the keys in tiles of Tile::kKeys
// through shared memory. Per tile: the scores (Q K^T, summed over chunks of
// kChunk of D), an online softmax (each row keeps a running maximum and
// sum, and its partial output is rescaled when the maximum grows) and P V
// added into registers. The weights never reach global memory, and key
// tiles above the causal diagonal are skipped. Four threads share a query
// row: thread `part` of a row holds its keys part, part + 4, ... and its
// output columns part, part + 4, ... (so shared-memory reads within a warp
// hit distinct banks or broadcast).
//
// float32, float16 and bfloat16 compute in float32 (inputs widened as they
// are staged, the output rounded once), float64 in float64, on the FMA
// pipes: tensor cores (TF32, half inputs) would round the scores below
// what plugin.h asks. exp is the CUDA math library's, not __expf. cuDNN 9's
// fused attention is reached through its graph API, whose C++ frontend
// (cudnn_frontend, a header library) is not part of the toolkit: not used.
#include <math.h>

#include <string>

#include "dtype.hpp"
#include "elementwise.cuh"
#include "kernels.hpp"
#include "narrow_types.hpp"
#include "ops.hpp"

namespace bp_cuda {

namespace {

constexpr int kAttentionThreads = 128;
constexpr int kRowThreads = 4;  // threads per query row

// Tile sizes per compute type: the four shared arrays stay under 48 KiB.
template <class W>
struct Tile {
  static constexpr int kRows = kAttentionThreads / kRowThreads, kKeys = 32, kChunk = 64;
};
template <>
struct Tile<double> {
  static constexpr int kRows = kAttentionThreads / kRowThreads, kKeys = 32, kChunk = 32;
};

__device__ inline float exp_of(float x) { return expf(x); }
__device__ inline double exp_of(double x) { return exp(x); }

template <class W>
__device__ inline W row_max(W x) {  // over the kRowThreads neighbouring lanes of a row
  for (int s = 1; s < kRowThreads; s *= 2) {
    const W y = __shfl_xor_sync(0xffffffffu, x, s);
    x = y > x ? y : x;
  }
  return x;
}
template <class W>
__device__ inline W row_sum(W x) {
  for (int s = 1; s < kRowThreads; s *= 2) x += __shfl_xor_sync(0xffffffffu, x, s);
  return x;
}

template <class T>
__global__ void __launch_bounds__(kAttentionThreads)
    attention_kernel(const __grid_constant__ AttentionShape s, T *out, const T *q, const T *k, const T *v,
                     const T *mask) {
  using W = compute_t<T>;
  constexpr int kRows = Tile<W>::kRows, kKeys = Tile<W>::kKeys, kChunk = Tile<W>::kChunk;
  constexpr int kScores = kKeys / kRowThreads, kColumns = kChunk / kRowThreads;
  __shared__ W qs[kRows][kChunk + 1];
  __shared__ W ks[kKeys][kChunk + 1];
  __shared__ W vs[kKeys][kChunk];
  __shared__ W ps[kRows][kKeys + 1];

  const int tid = threadIdx.x, row = tid / kRowThreads, part = tid % kRowThreads;
  int64_t block = blockIdx.x;
  const int64_t chunk = block % s.column_chunks;
  block /= s.column_chunks;
  const int64_t tile = block % s.row_tiles;
  const int64_t batch = block / s.row_tiles;
  // This batch element's offset in each view (output, q, k, v, mask).
  int64_t offset[5] = {0, 0, 0, 0, 0};
  int64_t rest = batch;
  for (int a = s.batch_rank - 1; a >= 0; --a) {
    const int64_t index = rest % s.batch_shape[a];
    rest /= s.batch_shape[a];
    for (int o = 0; o < 5; ++o) offset[o] += index * s.batch_strides[o][a];
  }
  const T *qb = q + offset[1], *kb = k + offset[2], *vb = v + offset[3];
  const T *mb = mask ? mask + offset[4] : nullptr;
  const int64_t i0 = tile * kRows, c0 = chunk * kChunk, i = i0 + row;
  const int64_t rows = s.lq - i0 < kRows ? s.lq - i0 : kRows;
  const int64_t key_end = s.causal && i0 + rows < s.lk ? i0 + rows : s.lk;
  const W neg_inf = -static_cast<W>(INFINITY);
  W o[kColumns];
  for (int u = 0; u < kColumns; ++u) o[u] = 0;
  W m = neg_inf, l = 0;

  for (int64_t j0 = 0; j0 < key_end; j0 += kKeys) {
    const int keys = key_end - j0 < kKeys ? static_cast<int>(key_end - j0) : kKeys;
    W sc[kScores];
    for (int u = 0; u < kScores; ++u) sc[u] = 0;
    for (int64_t d0 = 0; d0 < s.d; d0 += kChunk) {
      const int depth = s.d - d0 < kChunk ? static_cast<int>(s.d - d0) : kChunk;
      for (int e = tid; e < kRows * kChunk; e += kAttentionThreads) {
        const int r = e / kChunk, c = e % kChunk;
        qs[r][c] = i0 + r < s.lq && c < depth ? widen(qb[(i0 + r) * s.q_rs + (d0 + c) * s.q_cs]) : W(0);
      }
      for (int e = tid; e < kKeys * kChunk; e += kAttentionThreads) {
        const int r = e / kChunk, c = e % kChunk;
        ks[r][c] = r < keys && c < depth ? widen(kb[(j0 + r) * s.k_rs + (d0 + c) * s.k_cs]) : W(0);
      }
      __syncthreads();
      for (int d = 0; d < depth; ++d) {
        const W qv = qs[row][d];
        for (int u = 0; u < kScores; ++u) sc[u] += qv * ks[part + kRowThreads * u][d];
      }
      __syncthreads();
    }
    // Scores of this thread's keys; hidden ones (and rows past lq) -inf.
    W tile_max = neg_inf;
    for (int u = 0; u < kScores; ++u) {
      const int64_t j = j0 + part + kRowThreads * u;
      W x = neg_inf;
      if (part + kRowThreads * u < keys && i < s.lq && !(s.causal && j > i)) {
        x = static_cast<W>(s.scale) * sc[u];
        if (mb) x += widen(mb[i * s.m_rs + j * s.m_cs]);
      }
      sc[u] = x;
      tile_max = x > tile_max ? x : tile_max;
    }
    tile_max = row_max(tile_max);
    const W new_max = tile_max > m ? tile_max : m;
    // While every score so far is -inf, exp(s - max) is taken against 0:
    // the weights are 0, and a row that stays so ends as 0 / 0 = NaN.
    const W shift = new_max == neg_inf ? W(0) : new_max;
    W sum = 0;
    for (int u = 0; u < kScores; ++u) {
      const W p = exp_of(sc[u] - shift);
      ps[row][part + kRowThreads * u] = p;
      sum += p;
    }
    const W rescale = exp_of(m - shift);
    l = l * rescale + row_sum(sum);
    m = new_max;
    for (int u = 0; u < kColumns; ++u) o[u] *= rescale;
    for (int e = tid; e < kKeys * kChunk; e += kAttentionThreads) {
      const int r = e / kChunk, c = e % kChunk;
      vs[r][c] = r < keys && c0 + c < s.dv ? widen(vb[(j0 + r) * s.v_rs + (c0 + c) * s.v_cs]) : W(0);
    }
    __syncthreads();
    for (int j = 0; j < keys; ++j) {
      const W p = ps[row][j];
      for (int u = 0; u < kColumns; ++u) o[u] += p * vs[j][part + kRowThreads * u];
    }
    __syncthreads();
  }
  if (i >= s.lq) return;
  T *ob = out + offset[0] + i * s.o_rs;
  for (int u = 0; u < kColumns; ++u) {
    const int64_t c = c0 + part + kRowThreads * u;
    if (c < s.dv) ob[c * s.o_cs] = narrow<T>(o[u] / l);
  }
}

}  // namespace

int64_t attention_column_chunk(int32_t dtype) { return dtype == BP_FLOAT64 ? Tile<double>::kChunk : Tile<float>::kChunk; }
int64_t attention_row_tile() { return Tile<float>::kRows; }

void launch_attention(const Launch &launch, int32_t dtype, const AttentionShape &shape, void *out, const void *q,
                      const void *k, const void *v, const void *mask) {
  const std::string name = kernel_name(BP_OP_ATTENTION, dtype);
  const int64_t blocks = shape.batches * shape.row_tiles * shape.column_chunks;
  dispatch_set<BP_DTYPE_SET_FLOAT>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    attention_kernel<T><<<static_cast<unsigned>(blocks), kAttentionThreads, 0, launch.stream>>>(
        shape, static_cast<T *>(out), static_cast<const T *>(q), static_cast<const T *>(k),
        static_cast<const T *>(v), static_cast<const T *>(mask));
    check_launch(name.c_str(), launch.device);
  });
}

}  // namespace bp_cuda
