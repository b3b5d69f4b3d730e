// LAYER_NORM and RMS_NORM (plugin.h) along the last axis: one block per row
// (a grid-stride loop over rows). Its threads share the row's elements in
// each of three passes: the sum, the squared deviations from the mean (or
// the squares: RMS_NORM), each folded in float64 per thread and merged in a
// shared-memory tree, then y, computed in the statistics' type (float32,
// float64 for float64 rows) and rounded once into a half. Weight, bias,
// mean and rstd may be absent (null pointers).
#include <string>
#include <type_traits>

#include "dtype.hpp"
#include "elementwise.cuh"
#include "index_math.hpp"
#include "kernels.hpp"
#include "narrow_types.hpp"
#include "ops.hpp"

namespace bp_cuda {

namespace {

// The row's sum over the block; every thread gets it. blockDim.x == kThreads.
__device__ double block_sum(double v, double *shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (unsigned width = kThreads / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) shared[threadIdx.x] += shared[threadIdx.x + width];
    __syncthreads();
  }
  const double total = shared[0];
  __syncthreads();  // read by all before anyone writes it again
  return total;
}

template <class T, class C>
__global__ void __launch_bounds__(kThreads)
    normalize_kernel(const __grid_constant__ NormalizeShape s, const T *x, const T *w, const T *b, T *y, C *mean_out,
                     C *rstd_out) {
  __shared__ double shared[kThreads];
  const int64_t n = s.n;
  for (int64_t row = blockIdx.x; row < s.rows; row += gridDim.x) {  // uniform across the block
    const int64_t *strides[4] = {s.lead_strides[0], s.lead_strides[1], s.lead_strides[2], s.lead_strides[3]};
    int64_t off[4];
    unravel_offsets<4>(s.lead_rank, s.lead_shape, strides, row, off);
    double acc = 0;
    if (s.layer)
      for (int64_t j = threadIdx.x; j < n; j += blockDim.x) acc += static_cast<double>(widen(x[off[0] + j * s.x_step]));
    const double sum = block_sum(acc, shared);
    const double mean = s.layer ? (n > 0 ? sum / static_cast<double>(n) : static_cast<double>(NAN)) : 0.0;
    acc = 0;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const double d = static_cast<double>(widen(x[off[0] + j * s.x_step])) - mean;
      acc += d * d;
    }
    const double spread = block_sum(acc, shared);
    const C var = n > 0 ? static_cast<C>(spread / static_cast<double>(n)) : static_cast<C>(NAN);
    const C m = static_cast<C>(mean);
    const C rstd = C(1) / sqrt(var + static_cast<C>(s.eps));
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      C v = (static_cast<C>(widen(x[off[0] + j * s.x_step])) - m) * rstd;
      if (w) v = v * static_cast<C>(widen(w[j * s.w_step]));
      if (b) v = v + static_cast<C>(widen(b[j * s.b_step]));
      y[off[1] + j * s.y_step] = Convert<T>()(v);
    }
    if (threadIdx.x == 0) {
      if (mean_out) mean_out[off[2]] = m;
      if (rstd_out) rstd_out[off[3]] = rstd;
    }
  }
}

}  // namespace

void launch_normalize(const Launch &launch, int32_t op, int32_t dtype, const NormalizeShape &shape, void *y,
                      void *mean, void *rstd, const void *x, const void *weight, const void *bias) {
  const std::string name = kernel_name(op, dtype);
  const int64_t blocks = shape.rows < launch.max_blocks ? shape.rows : launch.max_blocks;
  dispatch_set<BP_DTYPE_SET_FLOAT>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = std::conditional_t<std::is_same<T, double>::value, double, float>;
    normalize_kernel<T, C><<<static_cast<unsigned>(blocks), kThreads, 0, launch.stream>>>(
        shape, static_cast<const T *>(x), static_cast<const T *>(weight), static_cast<const T *>(bias),
        static_cast<T *>(y), static_cast<C *>(mean), static_cast<C *>(rstd));
    check_launch(name.c_str(), launch.device);
  });
}

}  // namespace bp_cuda
