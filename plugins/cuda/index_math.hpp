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

// The element offsets of C-order index i for operands 0..N-1. The outermost
// axis takes what is left of i, so rank 1 costs no division.
template <int N>
BP_CUDA_HD inline void element_offsets(const IterShape &it, int64_t i, int64_t (&offset)[N]) {
  for (int k = 0; k < N; ++k) offset[k] = 0;
  for (int d = it.rank - 1; d > 0; --d) {
    const int64_t rest = i / it.shape[d];
    const int64_t index = i - rest * it.shape[d];
    i = rest;
    for (int k = 0; k < N; ++k) offset[k] += index * it.strides[k][d];
  }
  if (it.rank > 0)
    for (int k = 0; k < N; ++k) offset[k] += i * it.strides[k][0];
}

// Where output element o of a reduction reads its elements from (the
// offset of its position 0) and writes its result.
BP_CUDA_HD inline void kept_offsets(const ReducePlan &p, int64_t o, int64_t &in_offset, int64_t &out_offset) {
  in_offset = 0;
  out_offset = 0;
  for (int d = p.kept_rank - 1; d > 0; --d) {
    const int64_t rest = o / p.kept_shape[d];
    const int64_t index = o - rest * p.kept_shape[d];
    o = rest;
    in_offset += index * p.kept_in_strides[d];
    out_offset += index * p.kept_out_strides[d];
  }
  if (p.kept_rank > 0) {
    in_offset += o * p.kept_in_strides[0];
    out_offset += o * p.kept_out_strides[0];
  }
}

// The input offset of reduced position `pos`, relative to kept_offsets' in_offset.
BP_CUDA_HD inline int64_t reduced_offset(const ReducePlan &p, int64_t pos) {
  int64_t offset = 0;
  for (int d = p.reduced_rank - 1; d > 0; --d) {
    const int64_t rest = pos / p.reduced_shape[d];
    offset += (pos - rest * p.reduced_shape[d]) * p.reduced_strides[d];
    pos = rest;
  }
  if (p.reduced_rank > 0) offset += pos * p.reduced_strides[0];
  return offset;
}

// Offsets of output element i of an integer matmul and of the first terms
// (k = 0) of its row of a and column of b.
BP_CUDA_HD inline void matmul_offsets(const MatmulShape &s, int64_t i, int64_t &a_offset, int64_t &b_offset,
                                      int64_t &out_offset) {
  a_offset = b_offset = out_offset = 0;
  for (int d = s.rank - 1; d > 0; --d) {
    const int64_t rest = i / s.shape[d];
    const int64_t index = i - rest * s.shape[d];
    i = rest;
    a_offset += index * s.a_strides[d];
    b_offset += index * s.b_strides[d];
    out_offset += index * s.out_strides[d];
  }
  a_offset += i * s.a_strides[0];
  b_offset += i * s.b_strides[0];
  out_offset += i * s.out_strides[0];
}

}  // namespace bp_cuda
