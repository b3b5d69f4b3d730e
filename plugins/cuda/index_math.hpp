// The kernels' index arithmetic: pure functions over the plans of
// kernel_args.hpp, compiled for the device by the .cu files and for the
// host by anything else, so that it can be checked without a GPU.
#pragma once

#include <cstdint>

#include "kernel_args.hpp"

#if defined(__CUDACC__)
#define BP_CUDA_HD __host__ __device__
#else
#define BP_CUDA_HD
#endif

namespace bp_cuda {

// The offsets of C-order position i of a space of `rank` axes of `shape` in
// N operands, operand k with strides[k]. The outermost axis takes what is
// left of i, so rank 1 costs no division.
template <int N>
BP_CUDA_HD inline void unravel_offsets(int rank, const int64_t *shape, const int64_t *const (&strides)[N], int64_t i,
                                       int64_t (&offset)[N]) {
  for (int k = 0; k < N; ++k) offset[k] = 0;
  for (int d = rank - 1; d > 0; --d) {
    const int64_t rest = i / shape[d];
    const int64_t index = i - rest * shape[d];
    i = rest;
    for (int k = 0; k < N; ++k) offset[k] += index * strides[k][d];
  }
  if (rank > 0)
    for (int k = 0; k < N; ++k) offset[k] += i * strides[k][0];
}

// The element offsets of C-order index i for operands 0..N-1.
template <int N>
BP_CUDA_HD inline void element_offsets(const IterShape &it, int64_t i, int64_t (&offset)[N]) {
  const int64_t *strides[N];
  for (int k = 0; k < N; ++k) strides[k] = it.strides[k];
  unravel_offsets<N>(it.rank, it.shape, strides, i, offset);
}

// Where output element o of a reduction reads its elements from (the
// offset of its position 0) and writes its result.
BP_CUDA_HD inline void kept_offsets(const ReducePlan &p, int64_t o, int64_t &in_offset, int64_t &out_offset) {
  int64_t offset[2];
  unravel_offsets<2>(p.kept_rank, p.kept_shape, {p.kept_in_strides, p.kept_out_strides}, o, offset);
  in_offset = offset[0];
  out_offset = offset[1];
}

// The input offset of reduced position `pos`, relative to kept_offsets' in_offset.
BP_CUDA_HD inline int64_t reduced_offset(const ReducePlan &p, int64_t pos) {
  int64_t offset[1];
  unravel_offsets<1>(p.reduced_rank, p.reduced_shape, {p.reduced_strides}, pos, offset);
  return offset[0];
}

// Offsets of output element i of an integer matmul and of the first terms
// (k = 0) of its row of a and column of b.
BP_CUDA_HD inline void matmul_offsets(const MatmulShape &s, int64_t i, int64_t &a_offset, int64_t &b_offset,
                                      int64_t &out_offset) {
  int64_t offset[3];
  unravel_offsets<3>(s.rank, s.shape, {s.a_strides, s.b_strides, s.out_strides}, i, offset);
  a_offset = offset[0];
  b_offset = offset[1];
  out_offset = offset[2];
}

}  // namespace bp_cuda
