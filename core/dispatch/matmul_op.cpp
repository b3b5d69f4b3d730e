// Matrix product with NumPy semantics (1-D operands, batch broadcasting),
// turned into the one form every backend implements: a[..., M, K] @
// b[..., K, N] of equal rank, transposes as swapped strides.
#include <algorithm>

#include "dispatch/dtype_rules.hpp"
#include "dispatch/op_support.hpp"
#include "dispatch/operators.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"

namespace bp::core::dispatch {

namespace {

// The operand as a matrix stack: 1-D becomes a row (a) or column (b).
View as_matrix(const View &v, bool is_a, bool transpose) {
  View m = v;
  if (m.rank == 1) {
    m.rank = 2;
    if (is_a) {
      m.shape[1] = m.shape[0];
      m.strides[1] = m.strides[0];
      m.shape[0] = 1;
      m.strides[0] = 0;
    } else {
      m.shape[1] = 1;
      m.strides[1] = 0;
    }
  } else if (transpose) {
    std::swap(m.shape[m.rank - 1], m.shape[m.rank - 2]);
    std::swap(m.strides[m.rank - 1], m.strides[m.rank - 2]);
  }
  return m;
}

// Axes 0..axis of t merged into one (its extent and stride) when their
// elements are evenly spaced along it; extent-1 axes merge with anything.
bool merged_rows(const bp_plugin_tensor &t, int32_t axis, int64_t &extent, int64_t &stride) {
  extent = t.shape[axis];
  stride = t.strides[axis];
  for (int32_t d = axis - 1; d >= 0; --d) {
    if (t.shape[d] == 1) continue;
    if (extent == 1) {
      extent = t.shape[d];
      stride = t.strides[d];
    } else if (t.strides[d] == extent * stride) {
      extent *= t.shape[d];
    } else {
      return false;
    }
  }
  return true;
}

// t as the matrix [rows, t's last extent] (rows of stride row_stride).
void as_rows(bp_plugin_tensor &t, int32_t rank, int64_t rows, int64_t row_stride) {
  const int64_t cols = t.shape[rank - 1], col_stride = t.strides[rank - 1];
  for (int32_t d = 0; d < BP_MAX_RANK; ++d) t.shape[d] = t.strides[d] = 0;
  t.rank = 2;
  t.shape[0] = rows, t.strides[0] = row_stride;
  t.shape[1] = cols, t.strides[1] = col_stride;
}

// A batch whose items share b (a Linear layer's weight, broadcast) and
// whose rows of a and of the result are evenly spaced across the items is
// one product [items * M, K] @ [K, N], as PyTorch's linear() folds it: one
// large GEMM runs near the BLAS's peak where a batch of small ones pays
// each call's packing (a small GPT's projections: 8 calls of 64 rows each,
// 1.7x the time of one of 512 rows). Each result element is the same dot
// product over K either way. Empty problems are left as they are.
void fold_shared_b(bp_plugin_tensor &a, bp_plugin_tensor &b, bp_plugin_tensor &o, int32_t batch_rank) {
  const int32_t rank = batch_rank + 2;
  if (batch_rank == 0) return;
  for (int32_t d = 0; d < rank; ++d)
    if (o.shape[d] == 0 || a.shape[d] == 0 || b.shape[d] == 0) return;
  for (int32_t d = 0; d < batch_rank; ++d)
    if (b.shape[d] != 1 && b.strides[d] != 0) return;
  int64_t rows_a, stride_a, rows_o, stride_o;
  if (!merged_rows(a, batch_rank, rows_a, stride_a) || !merged_rows(o, batch_rank, rows_o, stride_o)) return;
  as_rows(a, rank, rows_a, stride_a);
  as_rows(o, rank, rows_o, stride_o);
  as_rows(b, rank, b.shape[batch_rank], b.strides[batch_rank]);
}

Error matmul_error(bp_status s, const std::string &msg) {
  Error e(s, "matmul: " + msg);
  e.op = "matmul";
  return e;
}

}  // namespace

View matmul(const View &a, const View &b, bool transpose_a, bool transpose_b, const View *out) {
  const int32_t op = BP_OP_MATMUL;
  check_devices(op, {&a, &b}, out);
  if (a.rank < 1 || b.rank < 1)
    throw matmul_error(BP_ERR_SHAPE, "operands must have rank >= 1, got " +
                                         shape_string(a.rank, a.shape) + " and " +
                                         shape_string(b.rank, b.shape));
  int32_t dtype = promote(a.dtype, b.dtype);
  if (!bp_vocab_dtype_in_set(dtype, bp_vocab_op_dtypes(op)))
    throw matmul_error(BP_ERR_DTYPE, std::string(dtype_name(dtype)) +
                                         " operands are not supported (cast them first)");
  View ta, tb;
  const View &A0 = a.dtype == dtype ? a : (ta = cast_view(a, dtype), ta);
  const View &B0 = b.dtype == dtype ? b : (tb = cast_view(b, dtype), tb);
  View A = as_matrix(A0, true, transpose_a);
  View B = as_matrix(B0, false, transpose_b);
  int64_t M = A.shape[A.rank - 2], K = A.shape[A.rank - 1];
  int64_t K2 = B.shape[B.rank - 2], N = B.shape[B.rank - 1];
  if (K != K2)
    throw matmul_error(BP_ERR_SHAPE, "inner extents differ: a is " +
                                         shape_string(a.rank, a.shape) + (transpose_a ? " (transposed)" : "") +
                                         ", b is " + shape_string(b.rank, b.shape) +
                                         (transpose_b ? " (transposed)" : "") + ": " +
                                         std::to_string(K) + " vs " + std::to_string(K2));
  // Broadcast the batch axes.
  View batch_a = A, batch_b = B;
  batch_a.rank -= 2;
  batch_b.rank -= 2;
  int32_t batch_rank;
  int64_t shape[BP_MAX_RANK];
  broadcast_shapes(op, {&batch_a, &batch_b}, batch_rank, shape);
  int32_t rank = batch_rank + 2;
  if (rank > BP_MAX_RANK) throw matmul_error(BP_ERR_SHAPE, "result rank exceeds BP_MAX_RANK");

  // The user's result shape drops the axes of 1-D operands.
  int64_t user_shape[BP_MAX_RANK];
  int32_t user_rank = batch_rank;
  std::copy(shape, shape + batch_rank, user_shape);
  if (a.rank > 1) user_shape[user_rank++] = M;
  if (b.rank > 1) user_shape[user_rank++] = N;
  View result = prepare_output(op, A.device(), dtype, user_rank, user_shape, out);
  const View &target = out ? *out : result;

  bp_plugin_tensor in[2], o;
  int64_t full_a[BP_MAX_RANK], full_b[BP_MAX_RANK];
  std::copy(shape, shape + batch_rank, full_a);
  std::copy(shape, shape + batch_rank, full_b);
  full_a[batch_rank] = M;
  full_a[batch_rank + 1] = K;
  full_b[batch_rank] = K;
  full_b[batch_rank + 1] = N;
  broadcast_view(A, rank, full_a, in[0]);
  broadcast_view(B, rank, full_b, in[1]);
  target.to_plugin(o);
  o.rank = rank;
  for (int32_t d = 0; d < batch_rank; ++d) {
    o.shape[d] = target.shape[d];
    o.strides[d] = target.strides[d];
  }
  int32_t k = batch_rank;
  o.shape[batch_rank] = M;
  o.strides[batch_rank] = a.rank > 1 ? target.strides[k++] : 0;
  o.shape[batch_rank + 1] = N;
  o.strides[batch_rank + 1] = b.rank > 1 ? target.strides[k] : 0;
  for (int32_t d = rank; d < BP_MAX_RANK; ++d) o.shape[d] = o.strides[d] = 0;
  if (out) check_overlap(op, target, o, {{&A, &in[0]}, {&B, &in[1]}}, false);
  fold_shared_b(in[0], in[1], o, batch_rank);
  run(A.device(), op, dtype, dtype, make_attrs(), in, 2, o);
  return result;
}

}  // namespace bp::core::dispatch
