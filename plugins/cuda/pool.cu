// MAX_POOL, AVG_POOL and their gradients: one thread per output element
// (the forward) or per dx element (the gradients, gathered from the windows
// that reach it: no atomics, each sum in a fixed order), with the window
// math of backplane/kernels/pool.hpp that the CPU backend runs. Sums run
// in float64 and are rounded once (to_half for the halves). cuDNN's
// pooling is not used: its max pooling keeps no PyTorch-style indices, and
// its backward recomputes the maxima from x and y instead of taking them.
#include <string>

#include "backplane/kernels/pool.hpp"
#include "dtype.hpp"
#include "elementwise.cuh"
#include "kernels.hpp"
#include "narrow_types.hpp"
#include "ops.hpp"

namespace bp_cuda {

namespace {

struct Widen {
  template <class T>
  BP_HD compute_t<T> operator()(T x) const {
    return widen(x);
  }
};

template <class T>
__device__ inline T from_sum(double x) {
  if constexpr (is_half<T>) return to_half<T>(x);
  else return static_cast<T>(x);
}

// Element i of a walk over `ext` (the pooled extents for the forward, dx's
// for the gradients): its (n, c) and spatial position.
__device__ inline void split(const PoolShape &s, const int64_t *ext, int64_t i, int64_t &n, int64_t &c, int64_t *p) {
  p[2] = i % ext[2];
  i /= ext[2];
  p[1] = i % ext[1];
  i /= ext[1];
  p[0] = i % ext[0];
  i /= ext[0];
  n = i / s.channels;
  c = i % s.channels;
}

__device__ inline int64_t pooled_at(const PoolShape &s, int64_t n, int64_t c, const int64_t *o) {
  return n * s.pooled_plane[0] + c * s.pooled_plane[1] + o[0] * s.g.pooled_stride[0] + o[1] * s.g.pooled_stride[1] +
         o[2] * s.g.pooled_stride[2];
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    max_pool_kernel(const __grid_constant__ PoolShape s, const T *x, T *y, int64_t *index) {
  for (int64_t i = first_index(); i < s.n; i += grid_stride()) {
    int64_t n, c, o[3];
    split(s, s.g.out, i, n, c, o);
    T value;
    int64_t at;
    bp_kernels::pool_max_window<compute_t<T>>(s.g, x + n * s.full_plane[0] + c * s.full_plane[1], o, Widen(), &value,
                                              &at);
    y[pooled_at(s, n, c, o)] = value;
    if (index)
      index[n * s.index_plane[0] + c * s.index_plane[1] + o[0] * s.index_stride[0] + o[1] * s.index_stride[1] +
            o[2] * s.index_stride[2]] = at;
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) avg_pool_kernel(const __grid_constant__ PoolShape s, const T *x, T *y) {
  for (int64_t i = first_index(); i < s.n; i += grid_stride()) {
    int64_t n, c, o[3];
    split(s, s.g.out, i, n, c, o);
    const int64_t count = bp_kernels::pool_divisor(s.g, o);
    const double sum =
        bp_kernels::pool_window_sum<double>(s.g, x + n * s.full_plane[0] + c * s.full_plane[1], o, Widen());
    y[pooled_at(s, n, c, o)] = from_sum<T>(count == 0 ? 0.0 : sum / static_cast<double>(count));
  }
}

// index: MAX_POOL_GRAD's indices, or null for AVG_POOL_GRAD.
template <class T>
__global__ void __launch_bounds__(kThreads)
    pool_grad_kernel(const __grid_constant__ PoolShape s, const T *dy, const int64_t *index, T *dx) {
  for (int64_t i = first_index(); i < s.n; i += grid_stride()) {
    int64_t n, c, p[3];
    split(s, s.g.size, i, n, c, p);
    const int64_t *plane_index = index ? index + n * s.index_plane[0] + c * s.index_plane[1] : nullptr;
    const double sum = bp_kernels::pool_grad_at<double>(s.g, dy + n * s.pooled_plane[0] + c * s.pooled_plane[1],
                                                        plane_index, s.index_stride, p, Widen());
    dx[n * s.full_plane[0] + c * s.full_plane[1] + p[0] * s.g.full_stride[0] + p[1] * s.g.full_stride[1] +
       p[2] * s.g.full_stride[2]] = from_sum<T>(sum);
  }
}

}  // namespace

void launch_pool(const Launch &launch, int32_t op, int32_t dtype, const PoolShape &shape, void *out, void *index,
                 const void *in) {
  const std::string name = kernel_name(op, dtype);
  if (op == BP_OP_MAX_POOL)
    return dispatch_set<BP_DTYPE_SET_NUMERIC>(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      max_pool_kernel<T><<<grid_for(launch, shape.n), kThreads, 0, launch.stream>>>(
          shape, static_cast<const T *>(in), static_cast<T *>(out), static_cast<int64_t *>(index));
      check_launch(name.c_str(), launch.device);
    });
  if (op != BP_OP_AVG_POOL) fail(BP_ERR_INTERNAL, "cuda: operator %d is not a pooling", op);
  dispatch_set<BP_DTYPE_SET_FLOAT>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    avg_pool_kernel<T><<<grid_for(launch, shape.n), kThreads, 0, launch.stream>>>(shape, static_cast<const T *>(in),
                                                                                    static_cast<T *>(out));
    check_launch(name.c_str(), launch.device);
  });
}

void launch_pool_grad(const Launch &launch, int32_t op, int32_t dtype, const PoolShape &shape, void *dx,
                      const void *dy, const void *index) {
  if (op != BP_OP_MAX_POOL_GRAD && op != BP_OP_AVG_POOL_GRAD)
    fail(BP_ERR_INTERNAL, "cuda: operator %d is not a pooling gradient", op);
  const std::string name = kernel_name(op, dtype);
  dispatch_set<BP_DTYPE_SET_FLOAT>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    pool_grad_kernel<T><<<grid_for(launch, shape.n), kThreads, 0, launch.stream>>>(
        shape, static_cast<const T *>(dy), op == BP_OP_MAX_POOL_GRAD ? static_cast<const int64_t *>(index) : nullptr,
        static_cast<T *>(dx));
    check_launch(name.c_str(), launch.device);
  });
}

}  // namespace bp_cuda
