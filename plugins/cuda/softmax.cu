// SOFTMAX and LOG_SOFTMAX (plugin.h) along the last axis: a warp per row
// when rows are short (its lanes stride over the row and combine with
// shuffles), a block per row when they are long (the warps' results meet in
// shared memory). Either way a row is read three times (maximum, sum of
// exp(x - m), result) by the threads that share it, and the rows plugin.h
// gives NaN need no test: x - m or the sum is NaN there. Elements compute
// in their compute type (float for the halves, rounded once at the store).
#include <math.h>

#include <string>

#include "dtype.hpp"
#include "elementwise.cuh"
#include "index_math.hpp"
#include "kernels.hpp"
#include "ops.hpp"

namespace bp_cuda {

namespace {

constexpr int kWarp = 32;
// Rows up to this long take a warp each.
constexpr int64_t kWarpRowMax = 1024;

template <class C>
__device__ C warp_max(C v) {
  for (int h = kWarp / 2; h > 0; h /= 2) {
    const C o = __shfl_xor_sync(0xffffffffu, v, h);
    v = o > v ? o : v;
  }
  return v;
}

template <class C>
__device__ C warp_sum(C v) {
  for (int h = kWarp / 2; h > 0; h /= 2) v += __shfl_xor_sync(0xffffffffu, v, h);
  return v;
}

struct WarpMax {
  template <class C>
  __device__ C operator()(C v) const { return warp_max(v); }
};
struct WarpSum {
  template <class C>
  __device__ C operator()(C v) const { return warp_sum(v); }
};

// The whole block's maximum or sum of v (every thread gets it); `part`
// holds a value per warp. Ends with a barrier, so part may be reused.
template <bool is_max, class C>
__device__ C block_combine(C v, C *part) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  v = is_max ? warp_max(v) : warp_sum(v);
  if (lane == 0) part[warp] = v;
  __syncthreads();
  C r = part[0];
  for (int w = 1; w < kThreads / kWarp; ++w) r = is_max ? (part[w] > r ? part[w] : r) : r + part[w];
  __syncthreads();
  return r;
}

// One row: `lane` of `lanes` threads, combining their partial results with
// `max_of` and `sum_of`, which every one of them calls.
template <class T, class Max, class Sum>
__device__ void softmax_row(const T *x, int64_t sx, T *y, int64_t sy, int64_t n, bool log, int lane, int lanes,
                            Max max_of, Sum sum_of) {
  using C = compute_t<T>;
  C m = -INFINITY;
  for (int64_t j = lane; j < n; j += lanes) {
    const C v = widen(x[j * sx]);
    m = v > m ? v : m;
  }
  m = max_of(m);
  C s = 0;
  for (int64_t j = lane; j < n; j += lanes) s += bp_kernels::exp(widen(x[j * sx]) - m);
  s = sum_of(s);
  const C inv = C(1) / s, ls = bp_kernels::log(s);
  for (int64_t j = lane; j < n; j += lanes) {
    const C t = widen(x[j * sx]) - m;
    y[j * sy] = narrow<T>(log ? t - ls : bp_kernels::exp(t) * inv);
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    softmax_warp_rows(const __grid_constant__ ScanShape s, const T *in, T *out, bool log) {
  const int lane = threadIdx.x % kWarp;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (kThreads / kWarp);
  // Every lane of a warp takes the same rows, so the shuffles see all 32.
  for (int64_t row = first_index() / kWarp; row < s.lines.numel; row += warps) {
    int64_t offset[2];
    element_offsets(s.lines, row, offset);
    softmax_row(in + offset[1], s.in_stride, out + offset[0], s.out_stride, s.length, log, lane, kWarp, WarpMax{},
                WarpSum{});
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    softmax_block_rows(const __grid_constant__ ScanShape s, const T *in, T *out, bool log) {
  using C = compute_t<T>;
  __shared__ C part[kThreads / kWarp];
  for (int64_t row = blockIdx.x; row < s.lines.numel; row += gridDim.x) {
    int64_t offset[2];
    element_offsets(s.lines, row, offset);
    softmax_row(in + offset[1], s.in_stride, out + offset[0], s.out_stride, s.length, log,
                static_cast<int>(threadIdx.x), kThreads, [&](C v) { return block_combine<true>(v, part); },
                [&](C v) { return block_combine<false>(v, part); });
  }
}

}  // namespace

void launch_softmax(const Launch &launch, int32_t op, int32_t dtype, const ScanShape &shape, void *out,
                    const void *in) {
  if (op != BP_OP_SOFTMAX && op != BP_OP_LOG_SOFTMAX) fail(BP_ERR_INTERNAL, "cuda: operator %d is no softmax", op);
  const std::string name = kernel_name(op, dtype);
  const bool log = op == BP_OP_LOG_SOFTMAX;
  const int64_t rows = shape.lines.numel;
  dispatch_set<BP_DTYPE_SET_FLOAT>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *x = static_cast<const T *>(in);
    T *y = static_cast<T *>(out);
    if (shape.length <= kWarpRowMax) {
      const int64_t blocks = (rows + kThreads / kWarp - 1) / (kThreads / kWarp);
      softmax_warp_rows<T><<<static_cast<unsigned>(blocks < launch.max_blocks ? blocks : launch.max_blocks), kThreads,
                             0, launch.stream>>>(shape, x, y, log);
    } else {
      softmax_block_rows<T><<<static_cast<unsigned>(rows < launch.max_blocks ? rows : launch.max_blocks), kThreads, 0,
                              launch.stream>>>(shape, x, y, log);
    }
    check_launch(name.c_str(), launch.device);
  });
}

}  // namespace bp_cuda
