// The plain structs a kernel receives by value: iteration spaces already
// simplified on the host (iteration.cpp), so a kernel does the least index
// arithmetic per element. Shared by the .cpp files that build them and the
// .cu files that launch kernels with them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "backplane/kernels/pool.hpp"
#include "backplane/types.h"

namespace bp_cuda {

// Threads per block of every kernel; a power of two (the reduction trees
// halve it).
constexpr int kThreads = 256;

// Operands of one elementwise launch: the output and up to three inputs (WHERE).
constexpr int kMaxOperands = 4;

// An elementwise iteration space: `numel` elements walked in C order over
// `shape`; operand k (0 = output, then the inputs in order) holds element i
// at sum_d index_d(i) * strides[k][d] from its base. Axes of extent 1 are
// dropped and neighbouring axes merged where every operand allows, so a
// dense problem arrives as rank 1 with `contiguous` set: then operand k's
// element i is simply base_k[i] (a scalar operand has no base and ignores it).
struct IterShape {
  int32_t rank;
  int32_t contiguous;
  int64_t numel;
  int64_t shape[BP_MAX_RANK];
  int64_t strides[kMaxOperands][BP_MAX_RANK];
};

// A reduction: `outputs` output elements, each combining `count` input
// elements. The kept axes (coalesced) locate an output element in the input
// (kept_in_strides) and the output (kept_out_strides); the reduced axes
// (coalesced, in their original order so that a position counts in the C
// order ARGMAX reports) locate the elements combined.
struct ReducePlan {
  int64_t outputs;
  int64_t count;
  int64_t divisor;  // what finish() gets: count, less VAR's correction
  int32_t kept_rank;
  int32_t reduced_rank;
  int64_t kept_shape[BP_MAX_RANK];
  int64_t kept_in_strides[BP_MAX_RANK];
  int64_t kept_out_strides[BP_MAX_RANK];
  int64_t reduced_shape[BP_MAX_RANK];
  int64_t reduced_strides[BP_MAX_RANK];
};

// LAYER_NORM or RMS_NORM (layer): rows indexed by the leading axes of x,
// with their strides in x, y, mean and rstd (0 where absent); n elements a
// row, `*_step` apart along it (weight and bias: their one stride).
struct NormalizeShape {
  int32_t lead_rank;
  bool layer;
  int64_t rows, n;
  int64_t lead_shape[BP_MAX_RANK - 1];
  int64_t lead_strides[4][BP_MAX_RANK - 1];
  int64_t x_step, y_step, w_step, b_step;
  double eps;
};

// An integer matrix product over the output's full index (batch axes, M, N);
// strides of each operand per output axis (a's on N and b's on M are 0),
// plus the contracted extent K and each input's stride along it.
struct MatmulShape {
  int32_t rank;
  int64_t numel;
  int64_t k;
  int64_t a_k_stride, b_k_stride;
  int64_t shape[BP_MAX_RANK];
  int64_t a_strides[BP_MAX_RANK];
  int64_t b_strides[BP_MAX_RANK];
  int64_t out_strides[BP_MAX_RANK];
};

// A scan along the last axis: `lines` walks the other axes (coalesced;
// operand 0 the output, 1 the input) to each line's first element, and a
// line's `length` elements follow at out_stride and in_stride.
struct ScanShape {
  IterShape lines;
  int64_t length;
  int64_t out_stride, in_stride;
};

// GATHER_ND and SCATTER_ND: index row n holds `k` int64 values at
// n * index_strides[0] + j * index_strides[1]; they name the slice of the
// indexed tensor (GATHER's data, SCATTER's output) at sum_j index[n, j] *
// indexed_strides[j], provided each lies in [0, indexed_shape[j]). Row n of
// the rows tensor (GATHER's output, SCATTER's values) starts at n *
// rows_stride, and `slice` walks one slice: operand 0 the rows tensor's
// axes after the first, operand 1 the indexed tensor's after the k indexed.
struct IndexShape {
  int64_t rows;
  int32_t k;
  int64_t index_strides[2];
  int64_t indexed_shape[BP_MAX_RANK];
  int64_t indexed_strides[BP_MAX_RANK];
  int64_t rows_stride;
  IterShape slice;
};

// ATTENTION (since 1.6): `batches` batch elements over batch_shape (C
// order), each view's offset per batch axis in batch_strides (0: output, 1:
// q, 2: k, 3: v, 4: the mask; 0 where broadcast or absent); the problem's
// extents and each view's strides along its last two axes (rows, columns).
// The launch covers batches x row_tiles x column_chunks blocks.
struct AttentionShape {
  int32_t batch_rank;
  int32_t causal;
  int64_t batches;
  int64_t batch_shape[BP_MAX_RANK];
  int64_t batch_strides[5][BP_MAX_RANK];
  int64_t lq, lk, d, dv;
  int64_t q_rs, q_cs, k_rs, k_cs, v_rs, v_cs, m_rs, m_cs, o_rs, o_cs;
  double scale;
  int64_t row_tiles, column_chunks;
};

// Where and how wide to launch: the device's stream, the grid size that
// fills the device once (grid-stride loops cover the rest), and the device
// name for messages.
struct Launch {
  cudaStream_t stream;
  int64_t max_blocks;
  const char *device;
};

// An elementwise input: device memory, or (data == nullptr) one value given
// by the operator's scalar attribute, converted to the input's dtype.
struct InputArg {
  const void *data;
  double scalar;
};

// MAX_POOL, AVG_POOL and their gradients (since 1.6): the window on three
// spatial axes (g: its strides those of the unpooled view, x or dx, and the
// pooled one, y or dy), each view's (n, c) strides and the indices'
// spatial strides, the channels, and `n` elements walked (the pooled view's
// for the forward, dx's for the gradients).
struct PoolShape {
  bp_kernels::PoolGeometry g;
  int64_t full_plane[2], pooled_plane[2], index_plane[2], index_stride[3];
  int64_t channels, n;
};

}  // namespace bp_cuda
