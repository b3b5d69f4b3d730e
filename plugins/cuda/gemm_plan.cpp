#include "gemm_plan.hpp"

#include <algorithm>

#include "iteration.hpp"

namespace bp_cuda {

namespace {

// The rows x cols matrix whose element (r, c) lies at r * row_stride +
// c * col_stride: column-major (op N, ld = col_stride) or row-major (the
// transpose of a column-major one: op T, ld = row_stride), if either; ld
// must be at least the stored matrix's row count. The stride of an axis of
// extent 1 does not matter.
bool as_cublas(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride, GemmOperand *operand) {
  if ((rows == 1 || row_stride == 1) && (cols == 1 || col_stride >= std::max<int64_t>(1, rows))) {
    operand->op = CUBLAS_OP_N;
    operand->ld = cols == 1 ? std::max<int64_t>(1, rows) : col_stride;
    return true;
  }
  if ((cols == 1 || col_stride == 1) && (rows == 1 || row_stride >= std::max<int64_t>(1, cols))) {
    operand->op = CUBLAS_OP_T;
    operand->ld = rows == 1 ? std::max<int64_t>(1, cols) : row_stride;
    return true;
  }
  return false;
}

// An operand: the matrix of the last two axes of a view with `shape` and
// `strides` (or of its transpose), as is or, when cuBLAS cannot read it,
// from a dense copy, whose strides replace `strides`.
GemmOperand plan_operand(int32_t rank, const int64_t *shape, int64_t *strides, bool transposed) {
  GemmOperand operand{false, CUBLAS_OP_N, 1};
  auto fits = [&] {
    const int64_t rows = shape[rank - 2], cols = shape[rank - 1];
    const int64_t row_stride = strides[rank - 2], col_stride = strides[rank - 1];
    return transposed ? as_cublas(cols, rows, col_stride, row_stride, &operand)
                      : as_cublas(rows, cols, row_stride, col_stride, &operand);
  };
  if (fits()) return operand;
  int64_t stride = 1;  // dense C order, as make_dense lays it out
  for (int32_t d = rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= shape[d];
  }
  operand.dense_copy = true;
  fits();  // row-major: always fits
  return operand;
}

}  // namespace

GemmPlan plan_gemm(const View &a, const View &b, const View &out) {
  const int32_t r = out.rank;
  GemmPlan plan{};
  int64_t c_strides[BP_MAX_RANK], p_strides[BP_MAX_RANK], q_strides[BP_MAX_RANK];
  std::copy(out.strides, out.strides + r, c_strides);
  plan.c = plan_operand(r, out.shape, c_strides, false);
  plan.transposed = plan.c.op == CUBLAS_OP_T;
  if (plan.transposed) {  // cuBLAS writes the column-major C^T: as is
    plan.c.op = CUBLAS_OP_N;
    plan.m = out.shape[r - 1];
    plan.n = out.shape[r - 2];
  } else {
    plan.m = out.shape[r - 2];
    plan.n = out.shape[r - 1];
  }
  plan.k = a.shape[r - 1];
  const View &p = plan.transposed ? b : a, &q = plan.transposed ? a : b;
  std::copy(p.strides, p.strides + r, p_strides);
  std::copy(q.strides, q.strides + r, q_strides);
  plan.p = plan_operand(r, p.shape, p_strides, plan.transposed);
  plan.q = plan_operand(r, q.shape, q_strides, plan.transposed);

  plan.batch = make_iter_shape(r - 2, out.shape, {c_strides, p_strides, q_strides});
  plan.count = 1;
  plan.outer = 1;
  std::fill(plan.stride, plan.stride + 3, 0);
  if (plan.batch.rank > 0) {
    const int32_t inner = plan.batch.rank - 1;
    plan.count = plan.batch.shape[inner];
    for (int i = 0; i < 3; ++i) plan.stride[i] = plan.batch.strides[i][inner];
    for (int32_t d = 0; d < inner; ++d) plan.outer *= plan.batch.shape[d];
  }
  return plan;
}

void gemm_call_offsets(const GemmPlan &plan, int64_t o, int64_t (&offset)[3]) {
  offset[0] = offset[1] = offset[2] = 0;
  for (int32_t d = plan.batch.rank - 2; d >= 0; --d) {  // the outer batch axes
    const int64_t index = o % plan.batch.shape[d];
    o /= plan.batch.shape[d];
    for (int i = 0; i < 3; ++i) offset[i] += index * plan.batch.strides[i][d];
  }
}

}  // namespace bp_cuda
