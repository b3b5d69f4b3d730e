// Indexing by data: gather_nd, scatter_nd and scatter_add_nd (the plugin
// families GATHER and SCATTER) and nonzero, which the core composes from
// operators every backend has. A plugin sees an int64 index of shape [N, k]
// whose values are inside their axes: the core converts the caller's index,
// checks its range (two small reads, of its per-column minimum and maximum) and
// turns negative entries into positive ones, so no backend has to report a
// bad index itself.
#include <algorithm>
#include <string>

#include "dispatch/creation.hpp"
#include "dispatch/dtype_rules.hpp"
#include "dispatch/op_support.hpp"
#include "dispatch/operators.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "tensors/view_ops.hpp"

namespace bp::core::dispatch {

namespace {

[[noreturn]] void index_fail(int32_t op, bp_status status, const std::string &what) {
  Error e(status, std::string(op_name(op)) + ": " + what);
  e.op = op_name(op);
  throw e;
}

// The caller's index [..., k] as a fresh dense int64 [N, k]; k is checked
// against the indexed tensor's rank. Fresh storage: the index never aliases
// the tensor a scatter writes.
View index_rows(int32_t op, const View &index, int32_t indexed_rank, int32_t &k) {
  const int32_t kind = bp_vocab_dtype_kind(index.dtype);
  if (kind != BP_DTYPE_KIND_SIGNED_INT && kind != BP_DTYPE_KIND_UNSIGNED_INT)
    index_fail(op, BP_ERR_DTYPE,
               std::string("the index must be an integer tensor, not ") + dtype_name(index.dtype) +
                   (index.dtype == BP_BOOL ? " (turn a mask into indices with bp_nonzero)" : ""));
  if (index.rank < 1)
    index_fail(op, BP_ERR_SHAPE, "the index must have rank >= 1: its last axis holds k indices");
  const int64_t last = index.shape[index.rank - 1];
  if (last < 1 || last > indexed_rank)
    index_fail(op, BP_ERR_SHAPE,
               "the index's last axis has " + std::to_string(last) +
                   " entries, but each row names 1 to " + std::to_string(indexed_rank) +
                   " indices of the tensor (its rank)");
  k = int32_t(last);
  const int64_t shape[2] = {index.numel() / last, last};
  View dense = cast_view(index, BP_INT64);
  View rows;
  reshape_view(dense, 2, shape, rows);
  return rows;
}

// Checks every index row against extents[0..k-1] and returns the rows with
// negative entries counted from the end (NumPy's rule).
View checked_rows(int32_t op, const View &rows, const int64_t *extents) {
  const int32_t k = int32_t(rows.shape[1]);
  if (rows.shape[0] == 0) return rows;
  int64_t low[BP_MAX_RANK], high[BP_MAX_RANK];
  to_host(reduce(BP_OP_MIN, rows, 0, false, nullptr), low, uint64_t(k) * sizeof(int64_t));
  to_host(reduce(BP_OP_MAX, rows, 0, false, nullptr), high, uint64_t(k) * sizeof(int64_t));
  bool negative = false;
  for (int32_t j = 0; j < k; ++j) {
    const int64_t bad = low[j] < -extents[j] ? low[j] : high[j] >= extents[j] ? high[j] : 0;
    if (low[j] < -extents[j] || high[j] >= extents[j])
      index_fail(op, BP_ERR_INDEX,
                 "index " + std::to_string(bad) + " is out of range for axis " +
                     std::to_string(j) + " of extent " + std::to_string(extents[j]));
    negative |= low[j] < 0;
  }
  if (!negative) return rows;
  const int64_t row_shape[1] = {k};
  View extent_row = from_host(rows.device(), BP_INT64, 1, row_shape, extents);
  View wrapped = binary(BP_OP_ADD, rows, extent_row, nullptr);
  View is_negative = binary_scalar(BP_OP_LT, rows, 0.0, false, nullptr);
  return where(is_negative, wrapped, rows, nullptr);
}

// The shape index.shape[:-1] + t.shape[k:], checked against BP_MAX_RANK.
int32_t rows_shape(int32_t op, const View &index, const View &t, int32_t k, int64_t *shape) {
  const int32_t rank = index.rank - 1 + t.rank - k;
  if (rank > BP_MAX_RANK)
    index_fail(op, BP_ERR_SHAPE,
               "the result would have rank " + std::to_string(rank) + " (at most " +
                   std::to_string(BP_MAX_RANK) + ")");
  std::copy(index.shape, index.shape + index.rank - 1, shape);
  std::copy(t.shape + k, t.shape + t.rank, shape + index.rank - 1);
  return rank;
}

// `rows` (dense, of shape rows_shape) seen as [N, t.shape[k:]].
void as_rows(const View &rows, int64_t n, const View &t, int32_t k, bp_plugin_tensor &p) {
  View flat;
  int64_t shape[BP_MAX_RANK] = {n};
  std::copy(t.shape + k, t.shape + t.rank, shape + 1);
  reshape_view(rows, 1 + t.rank - k, shape, flat);
  flat.to_plugin(p);
}

void run_scatter(int32_t op, const View &dst, const View &rows, const View &values_nk) {
  bp_plugin_tensor in[2], o;
  rows.to_plugin(in[0]);
  values_nk.to_plugin(in[1]);
  dst.to_plugin(o);
  run(dst.device(), op, dst.dtype, dst.dtype, make_attrs(), in, 2, o);
}

}  // namespace

View gather_nd(const View &a, const View &index) {
  const int32_t op = BP_OP_GATHER_ND;
  check_devices(op, {&a, &index}, nullptr);
  int32_t k = 0;
  View rows = checked_rows(op, index_rows(op, index, a.rank, k), a.shape);
  int64_t shape[BP_MAX_RANK];
  const int32_t rank = rows_shape(op, index, a, k, shape);
  View result = allocate_view(a.device(), a.dtype, rank, shape);
  bp_plugin_tensor in[2], o;
  a.to_plugin(in[0]);
  rows.to_plugin(in[1]);
  as_rows(result, rows.shape[0], a, k, o);
  run(a.device(), op, a.dtype, a.dtype, make_attrs(), in, 2, o);
  return result;
}

namespace {

// scatter_nd and scatter_add_nd: the index checked, the values converted
// and broadcast into a fresh tensor of the rows' shape, then one plugin call.
void scatter(int32_t op, const View &dst, const View &index, const View &values) {
  check_devices(op, {&index, &values}, &dst);
  int32_t k = 0;
  View rows = checked_rows(op, index_rows(op, index, dst.rank, k), dst.shape);
  int64_t shape[BP_MAX_RANK];
  const int32_t rank = rows_shape(op, index, dst, k, shape);
  // A fresh dense copy: it converts and broadcasts the values, and never
  // aliases dst (c[i] = c is a read of c before any write).
  View dense = allocate_view(dst.device(), dst.dtype, rank, shape);
  assign(dense, values);
  View flat;
  int64_t nk_shape[BP_MAX_RANK] = {rows.shape[0]};
  std::copy(dst.shape + k, dst.shape + dst.rank, nk_shape + 1);
  reshape_view(dense, 1 + dst.rank - k, nk_shape, flat);
  run_scatter(op, dst, rows, flat);
}

}  // namespace

void scatter_nd(const View &dst, const View &index, const View &values) {
  scatter(BP_OP_SCATTER_ND, dst, index, values);
}

// dst is written in place, so its dtype cannot be converted: adding into
// bool (which has no sum) is refused before anything runs.
void scatter_add_nd(const View &dst, const View &index, const View &values) {
  const int32_t op = BP_OP_SCATTER_ADD_ND;
  if (!bp_vocab_dtype_in_set(dst.dtype, bp_vocab_op_dtypes(op)))
    index_fail(op, BP_ERR_DTYPE, std::string("adds into numeric tensors, not ") + dtype_name(dst.dtype));
  scatter(op, dst, index, values);
}

// The C-order positions of the true elements come from one scatter: each
// true element goes to slot (its running count - 1), each false one to a
// spare slot past the end that is then dropped. The multi-indices are those
// positions divided out by the shape.
View nonzero(const View &a) {
  View mask = a.dtype == BP_BOOL ? a : binary_scalar(BP_OP_NE, a, 0.0, false, nullptr);
  const int64_t numel = mask.numel();
  int64_t count = 0;
  to_host(reduce(BP_OP_SUM, mask, BP_AXIS_ALL, false, nullptr), &count, sizeof count);
  const int64_t result_shape[2] = {count, a.rank};
  View result = allocate_view(a.device(), BP_INT64, 2, result_shape);
  if (count == 0 || a.rank == 0) return result;

  View flat_mask;
  View dense_mask = mask.contiguous() ? mask : contiguous_copy(mask);
  reshape_view(dense_mask, 1, &numel, flat_mask);
  View running = scan(BP_OP_CUMSUM, flat_mask, 0, nullptr);
  View slot = binary_scalar(BP_OP_SUB, running, 1.0, false, nullptr);
  View spare = fill(a.device(), BP_INT64, 0, nullptr, double(count));
  View target = where(flat_mask, slot, spare, nullptr);
  const int64_t target_shape[2] = {numel, 1};
  View target_rows;
  reshape_view(target, 2, target_shape, target_rows);
  const int64_t slots = count + 1;
  View positions = allocate_view(a.device(), BP_INT64, 1, &slots);
  run_scatter(BP_OP_SCATTER_ND, positions, target_rows,
              arange(a.device(), BP_INT64, 0.0, double(numel), 1.0));
  View kept = slice_view(positions, 0, 0, count, 1);

  int64_t stride = 1;
  for (int32_t d = a.rank - 1; d >= 0; --d) {
    View column = select_view(result, 1, d);
    View quotient = stride == 1 ? kept
                                : binary_scalar(BP_OP_FLOOR_DIVIDE, kept, double(stride), false, nullptr);
    if (d == 0)
      assign(column, quotient);
    else
      binary_scalar(BP_OP_REMAINDER, quotient, double(a.shape[d]), false, &column);
    stride *= a.shape[d];
  }
  return result;
}

}  // namespace bp::core::dispatch
