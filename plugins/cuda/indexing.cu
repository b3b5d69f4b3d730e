// GATHER_ND, SCATTER_ND and SCATTER_ADD_ND: one thread per element of the
// rows tensor (index row n, position within its slice), the slice found by
// backplane_kernels/indexing.hpp. An index row with a value outside its axis
// is skipped, as plugin.h allows a device backend, so no thread ever touches
// memory outside the views. Index rows naming one element twice make two
// threads store whole elements to it: one of the values wins, which plugin.h
// leaves unspecified; SCATTER_ADD_ND adds with atomics instead, so every
// row counts (floats in the output's dtype, in whatever order the threads
// come: plugin.h's Accumulation rule).
#include <string>

#include "backplane_kernels/indexing.hpp"
#include "dtype.hpp"
#include "elementwise.cuh"
#include "index_math.hpp"
#include "kernels.hpp"
#include "ops.hpp"

namespace bp_cuda {

namespace {

// The element offset of index row n's slice in the indexed tensor; false
// when the row is out of range.
__device__ inline bool slice_of(const IndexShape &s, const int64_t *index, int64_t n, int64_t &offset) {
  return bp_kernels::slice_offset(index + n * s.index_strides[0], s.index_strides[1], s.k, s.indexed_shape,
                                  s.indexed_strides, &offset) < 0;
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    gather_kernel(const __grid_constant__ IndexShape s, const int64_t *index, const T *data, T *out) {
  const int64_t per_row = s.slice.numel, total = s.rows * per_row;
  for (int64_t i = first_index(); i < total; i += grid_stride()) {
    const int64_t n = i / per_row;
    int64_t at, offset[2];
    if (!slice_of(s, index, n, at)) continue;
    element_offsets(s.slice, i - n * per_row, offset);
    out[n * s.rows_stride + offset[0]] = data[at + offset[1]];
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    scatter_kernel(const __grid_constant__ IndexShape s, const int64_t *index, const T *values, T *out) {
  const int64_t per_row = s.slice.numel, total = s.rows * per_row;
  for (int64_t i = first_index(); i < total; i += grid_stride()) {
    const int64_t n = i / per_row;
    int64_t at, offset[2];
    if (!slice_of(s, index, n, at)) continue;
    element_offsets(s.slice, i - n * per_row, offset);
    out[at + offset[1]] = values[n * s.rows_stride + offset[0]];
  }
}

// Atomic out += value, wrapping for integers: the hardware adds two's
// complement bits, so the unsigned forms give signed sums too.
__device__ inline void atomic_add(float *to, float value) { atomicAdd(to, value); }
__device__ inline void atomic_add(double *to, double value) { atomicAdd(to, value); }
__device__ inline void atomic_add(int32_t *to, int32_t value) {
  atomicAdd(reinterpret_cast<unsigned int *>(to), static_cast<unsigned int>(value));
}
__device__ inline void atomic_add(int64_t *to, int64_t value) {
  static_assert(sizeof(int64_t) == sizeof(unsigned long long), "atomicAdd's 64-bit integer");
  atomicAdd(reinterpret_cast<unsigned long long *>(to), static_cast<unsigned long long>(value));
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    scatter_add_kernel(const __grid_constant__ IndexShape s, const int64_t *index, const T *values, T *out) {
  const int64_t per_row = s.slice.numel, total = s.rows * per_row;
  for (int64_t i = first_index(); i < total; i += grid_stride()) {
    const int64_t n = i / per_row;
    int64_t at, offset[2];
    if (!slice_of(s, index, n, at)) continue;
    element_offsets(s.slice, i - n * per_row, offset);
    atomic_add(&out[at + offset[1]], values[n * s.rows_stride + offset[0]]);
  }
}

}  // namespace

void launch_gather_nd(const Launch &launch, int32_t dtype, const IndexShape &shape, void *out, const void *data,
                      const void *index) {
  const std::string name = kernel_name(BP_OP_GATHER_ND, dtype);
  dispatch<BP_ALL_TYPES>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    gather_kernel<T><<<grid_for(launch, shape.rows * shape.slice.numel), kThreads, 0, launch.stream>>>(
        shape, static_cast<const int64_t *>(index), static_cast<const T *>(data), static_cast<T *>(out));
    check_launch(name.c_str(), launch.device);
  });
}

void launch_scatter_nd(const Launch &launch, int32_t op, int32_t dtype, const IndexShape &shape, void *out,
                       const void *index, const void *values) {
  const std::string name = kernel_name(op, dtype);
  if (op == BP_OP_SCATTER_ADD_ND)
    return dispatch<BP_NUMERIC_TYPES>(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      scatter_add_kernel<T><<<grid_for(launch, shape.rows * shape.slice.numel), kThreads, 0, launch.stream>>>(
          shape, static_cast<const int64_t *>(index), static_cast<const T *>(values), static_cast<T *>(out));
      check_launch(name.c_str(), launch.device);
    });
  dispatch<BP_ALL_TYPES>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    scatter_kernel<T><<<grid_for(launch, shape.rows * shape.slice.numel), kThreads, 0, launch.stream>>>(
        shape, static_cast<const int64_t *>(index), static_cast<const T *>(values), static_cast<T *>(out));
    check_launch(name.c_str(), launch.device);
  });
}

}  // namespace bp_cuda
