// Host-side index planning: turns validated views into the iteration
// spaces kernels receive (kernel_args.hpp), with axes of extent 1 dropped
// and neighbouring axes merged wherever every operand allows. Merging an
// outer axis with the next inner one keeps the C order of the elements, so
// a linear index still is an element's C-order position.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "kernel_args.hpp"
#include "view.hpp"

namespace bp_cuda {

// The space of `shape` (the output's) walked by operands with the given
// strides, output first; a nullptr entry is a scalar operand (no memory,
// every stride 0). At most kMaxOperands operands.
IterShape make_iter_shape(int32_t rank, const int64_t *shape, std::initializer_list<const int64_t *> strides);

// A reduction of `in` into `out` (same rank; each axis kept or reduced to 1).
ReducePlan make_reduce_plan(const View &in, const View &out);

// How a reduction is spread over a device that runs max_blocks blocks at once.
struct ReduceSchedule {
  bool per_thread;    // one thread per output, walking its elements in order
  int64_t splits;     // else blocks per output; > 1: partial results, then a second pass
  int64_t per_split;  // positions each of those blocks combines
};
ReduceSchedule schedule_reduce(const ReducePlan &plan, int64_t max_blocks);

// out[..., M, N] = a[..., M, K] x b[..., K, N] (same rank >= 2, same batch extents).
MatmulShape make_matmul_shape(const View &a, const View &b, const View &out);

// A scan of `in` into `out` (one shape, rank >= 1) along the last axis.
ScanShape make_scan_shape(const View &in, const View &out);

// GATHER_ND (indexed = data, rows = output) or SCATTER_ND (indexed =
// output, rows = values) with an index of shape [N, k].
IndexShape make_index_shape(const View &index, const View &indexed, const View &rows);

}  // namespace bp_cuda
