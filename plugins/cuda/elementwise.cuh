// Elementwise kernel templates shared by binary.cu, compare.cu, unary.cu,
// copy.cu and creation.cu: grid-stride loops over an IterShape, with a
// contiguous fast path (base[i]) and a strided path that turns the linear
// index into per-operand offsets. The per-element math is a functor of
// backplane/kernels/elementwise.hpp, the same code the CPU backends run, in
// the dtype's compute type (narrow_types.hpp).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "backplane/kernels/elementwise.hpp"
#include "errors.hpp"
#include "index_math.hpp"
#include "kernel_args.hpp"
#include "narrow_types.hpp"

namespace bp_cuda {

// An input as a kernel reads it: device memory, or one value everywhere.
template <class T>
struct Operand {
  const T *data;
  T value;
  __device__ T at(int64_t offset) const { return data ? data[offset] : value; }
};

// The Operand of an InputArg; a scalar converts to T like COPY does (on the
// host: half.h's conversions for the halves).
template <class T>
Operand<T> operand(InputArg in) {
  if (in.data) return Operand<T>{static_cast<const T *>(in.data), T()};
  return Operand<T>{nullptr, Convert<T>()(in.scalar)};
}
template <class T>
Operand<T> operand(const void *data) {
  return Operand<T>{static_cast<const T *>(data), T()};
}

__device__ inline int64_t first_index() { return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ inline int64_t grid_stride() { return static_cast<int64_t>(blockDim.x) * gridDim.x; }

// Blocks for `items` work items: one per kThreads items, at most the number
// that fills the device once (the grid-stride loops do the rest).
inline unsigned grid_for(const Launch &launch, int64_t items) {
  const int64_t blocks = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < launch.max_blocks ? blocks : launch.max_blocks);
}

// Plans are __grid_constant__: kernels index them with runtime values, which
// would otherwise make every thread copy them into local memory first.
template <class R, class F, class A>
__global__ void __launch_bounds__(kThreads)
    map1_kernel(const __grid_constant__ IterShape it, R *out, F f, Operand<A> a) {
  if (it.contiguous) {
    for (int64_t i = first_index(); i < it.numel; i += grid_stride()) out[i] = f(a.at(i));
  } else {
    for (int64_t i = first_index(); i < it.numel; i += grid_stride()) {
      int64_t offset[2];
      element_offsets(it, i, offset);
      out[offset[0]] = f(a.at(offset[1]));
    }
  }
}

template <class R, class F, class A, class B>
__global__ void __launch_bounds__(kThreads)
    map2_kernel(const __grid_constant__ IterShape it, R *out, F f, Operand<A> a, Operand<B> b) {
  if (it.contiguous) {
    for (int64_t i = first_index(); i < it.numel; i += grid_stride()) out[i] = f(a.at(i), b.at(i));
  } else {
    for (int64_t i = first_index(); i < it.numel; i += grid_stride()) {
      int64_t offset[3];
      element_offsets(it, i, offset);
      out[offset[0]] = f(a.at(offset[1]), b.at(offset[2]));
    }
  }
}

template <class R, class F, class A, class B, class C>
__global__ void __launch_bounds__(kThreads)
    map3_kernel(const __grid_constant__ IterShape it, R *out, F f, Operand<A> a, Operand<B> b, Operand<C> c) {
  if (it.contiguous) {
    for (int64_t i = first_index(); i < it.numel; i += grid_stride()) out[i] = f(a.at(i), b.at(i), c.at(i));
  } else {
    for (int64_t i = first_index(); i < it.numel; i += grid_stride()) {
      int64_t offset[4];
      element_offsets(it, i, offset);
      out[offset[0]] = f(a.at(offset[1]), b.at(offset[2]), c.at(offset[3]));
    }
  }
}

// Enqueues out[i] = f(inputs[i]...) with output element type R; `name`
// identifies the kernel in a launch error.
template <class R, class F, class A>
void map(const Launch &launch, const IterShape &it, void *out, F f, Operand<A> a, const char *name) {
  map1_kernel<<<grid_for(launch, it.numel), kThreads, 0, launch.stream>>>(it, static_cast<R *>(out), f, a);
  check_launch(name, launch.device);
}
template <class R, class F, class A, class B>
void map(const Launch &launch, const IterShape &it, void *out, F f, Operand<A> a, Operand<B> b, const char *name) {
  map2_kernel<<<grid_for(launch, it.numel), kThreads, 0, launch.stream>>>(it, static_cast<R *>(out), f, a, b);
  check_launch(name, launch.device);
}
template <class R, class F, class A, class B, class C>
void map(const Launch &launch, const IterShape &it, void *out, F f, Operand<A> a, Operand<B> b, Operand<C> c,
         const char *name) {
  map3_kernel<<<grid_for(launch, it.numel), kThreads, 0, launch.stream>>>(it, static_cast<R *>(out), f, a, b, c);
  check_launch(name, launch.device);
}

}  // namespace bp_cuda
