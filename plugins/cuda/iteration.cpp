#include "iteration.hpp"

#include "backplane/sdk/coalesce.h"
#include "errors.hpp"

namespace bp_cuda {

IterShape make_iter_shape(int32_t rank, const int64_t *shape, std::initializer_list<const int64_t *> strides) {
  const int n = static_cast<int>(strides.size());
  if (n < 1 || n > kMaxOperands) fail(BP_ERR_INTERNAL, "cuda: %d operands for one elementwise kernel", n);
  IterShape it{};
  it.numel = 1;
  for (int32_t d = 0; d < rank; ++d) it.numel *= shape[d];
  int64_t *out_strides[kMaxOperands];
  for (int k = 0; k < n; ++k) out_strides[k] = it.strides[k];
  it.rank = bp_sdk_coalesce(rank, shape, n, strides.begin(), it.shape, out_strides);
  // Dense in C order for every operand with memory: base[i] addresses element i.
  bool contiguous = it.rank <= 1;
  int k = 0;
  for (const int64_t *s : strides) {
    if (s && it.rank == 1) contiguous = contiguous && it.strides[k][0] == 1;
    ++k;
  }
  it.contiguous = contiguous ? 1 : 0;
  return it;
}

ReducePlan make_reduce_plan(const View &in, const View &out) {
  ReducePlan p{};
  p.outputs = out.numel;
  p.count = 1;
  int64_t *const kept_strides[2] = {p.kept_in_strides, p.kept_out_strides};
  int64_t *const reduced_strides[1] = {p.reduced_strides};
  for (int32_t d = 0; d < in.rank; ++d) {
    if (out.shape[d] == 1 && in.shape[d] != 1) {
      p.count *= in.shape[d];
      bp_sdk_push_axis(&p.reduced_rank, p.reduced_shape, reduced_strides, 1, in.shape[d], &in.strides[d]);
    } else {
      const int64_t axis_strides[2] = {in.strides[d], out.strides[d]};
      bp_sdk_push_axis(&p.kept_rank, p.kept_shape, kept_strides, 2, out.shape[d], axis_strides);
    }
  }
  p.divisor = p.count;
  return p;
}

namespace {
// Below this many elements per output, a thread per output.
constexpr int64_t kThreadReduceLimit = 64;
// Elements a block should have at least before an output is split further.
constexpr int64_t kSplitGrain = 4096;
}  // namespace

ReduceSchedule schedule_reduce(const ReducePlan &plan, int64_t max_blocks) {
  // A thread per output also when outputs are plenty and adjacent in the
  // input (a reduction over outer axes): neighbouring threads then read
  // neighbouring elements, where a block per output would read strided.
  const bool outputs_adjacent = plan.kept_rank > 0 && plan.kept_in_strides[plan.kept_rank - 1] == 1 &&
                                plan.outputs >= max_blocks * (kThreads / 4);
  if (plan.count <= kThreadReduceLimit || outputs_adjacent) return ReduceSchedule{true, 1, plan.count};
  // Split only while there are fewer outputs than blocks the device runs at
  // once, and never into pieces below kSplitGrain elements.
  int64_t splits = 1;
  if (plan.outputs < max_blocks) {
    const int64_t to_fill = (max_blocks + plan.outputs - 1) / plan.outputs;
    const int64_t by_size = (plan.count + kSplitGrain - 1) / kSplitGrain;
    splits = to_fill < by_size ? to_fill : by_size;
  }
  const int64_t per_split = (plan.count + splits - 1) / splits;
  return ReduceSchedule{false, (plan.count + per_split - 1) / per_split, per_split};  // no empty splits
}

MatmulShape make_matmul_shape(const View &a, const View &b, const View &out) {
  const int32_t r = out.rank;
  MatmulShape s{};
  s.rank = r;
  s.numel = out.numel;
  s.k = a.shape[r - 1];
  s.a_k_stride = a.strides[r - 1];
  s.b_k_stride = b.strides[r - 2];
  for (int32_t d = 0; d < r; ++d) {
    s.shape[d] = out.shape[d];
    s.out_strides[d] = out.strides[d];
    s.a_strides[d] = d == r - 1 ? 0 : a.strides[d];  // a does not move along N
    s.b_strides[d] = d == r - 2 ? 0 : b.strides[d];  // b does not move along M
  }
  return s;
}

ScanShape make_scan_shape(const View &in, const View &out) {
  const int32_t last = out.rank - 1;
  ScanShape s{};
  s.lines = make_iter_shape(last, out.shape, {out.strides, in.strides});
  s.length = out.shape[last];
  s.out_stride = out.strides[last];
  s.in_stride = in.strides[last];
  return s;
}

IndexShape make_index_shape(const View &index, const View &indexed, const View &rows) {
  IndexShape s{};
  s.rows = index.shape[0];
  s.k = static_cast<int32_t>(index.shape[1]);
  s.index_strides[0] = index.strides[0];
  s.index_strides[1] = index.strides[1];
  for (int32_t j = 0; j < s.k; ++j) {
    s.indexed_shape[j] = indexed.shape[j];
    s.indexed_strides[j] = indexed.strides[j];
  }
  s.rows_stride = rows.strides[0];
  s.slice = make_iter_shape(rows.rank - 1, rows.shape + 1, {rows.strides + 1, indexed.strides + s.k});
  return s;
}

}  // namespace bp_cuda
