// matmul_clblast.cpp — float MATMUL through CLBlast: float32 and float64
// directly, float16 and bfloat16 through float32 copies.
//
// CLBlast takes each matrix as an offset, a leading dimension and a
// transpose flag, so any operand whose matrix axes are row- or column-major
// with unit stride in one of them (plain, transposed, sliced) goes in with no
// copy; others are first copied into a dense scratch buffer. Batches use one
// GemmStridedBatched call when the batch axes collapse to one (a stride 0
// broadcast included), else one such call per index of the outer axes.
#include <clblast.h>

#include <string>

#include "backplane/sdk/coalesce.h"
#include "buffer.hpp"
#include "dtype.hpp"
#include "errors.hpp"
#include "ops.hpp"
#include "temporaries.hpp"

namespace bp_ocl {

namespace {

using clblast::StatusCode;
using clblast::Transpose;

// One operand in CLBlast's row-major terms: a rows x cols matrix at
// mem[offset + i * s_row + j * s_col] for each batch index.
struct Matrix {
  cl_mem mem;
  int64_t offset;
  int64_t rows, cols, s_row, s_col;
  const int64_t *batch_strides;  // per batch axis of the output
};

// How CLBlast can read m, if it can: row-major is kNo with ld = row stride,
// column-major is kYes with ld = column stride. An axis of extent 1 has no
// meaningful stride, so it never disqualifies a layout.
bool blas_form(const Matrix &m, Transpose *trans, size_t *ld) {
  if ((m.cols == 1 || m.s_col == 1) && (m.rows == 1 || m.s_row >= m.cols)) {
    *trans = Transpose::kNo;
    *ld = static_cast<size_t>(m.rows == 1 ? m.cols : m.s_row);
    return true;
  }
  if ((m.rows == 1 || m.s_row == 1) && (m.cols == 1 || m.s_col >= m.rows)) {
    *trans = Transpose::kYes;
    *ld = static_cast<size_t>(m.cols == 1 ? m.rows : m.s_col);
    return true;
  }
  return false;
}

Matrix transposed(const Matrix &m) { return {m.mem, m.offset, m.cols, m.rows, m.s_col, m.s_row,
                                             m.batch_strides}; }

const char *clblast_status_name(StatusCode status) {
  switch (status) {
    case StatusCode::kNotImplemented: return "kNotImplemented";
    case StatusCode::kInvalidMatrixA: return "kInvalidMatrixA";
    case StatusCode::kInvalidMatrixB: return "kInvalidMatrixB";
    case StatusCode::kInvalidMatrixC: return "kInvalidMatrixC";
    case StatusCode::kInvalidDimension: return "kInvalidDimension";
    case StatusCode::kInvalidLeadDimA: return "kInvalidLeadDimA";
    case StatusCode::kInvalidLeadDimB: return "kInvalidLeadDimB";
    case StatusCode::kInvalidLeadDimC: return "kInvalidLeadDimC";
    case StatusCode::kInsufficientMemoryA: return "kInsufficientMemoryA";
    case StatusCode::kInsufficientMemoryB: return "kInsufficientMemoryB";
    case StatusCode::kInsufficientMemoryC: return "kInsufficientMemoryC";
    case StatusCode::kInvalidBatchCount: return "kInvalidBatchCount";
    case StatusCode::kInvalidLocalMemUsage: return "kInvalidLocalMemUsage";
    case StatusCode::kNoDoublePrecision: return "kNoDoublePrecision";
    case StatusCode::kDatabaseError: return "kDatabaseError";
    case StatusCode::kUnknownError: return "kUnknownError";
    case StatusCode::kUnexpectedError: return "kUnexpectedError";
    default:  // the others share OpenCL's codes
      return cl_error_name(static_cast<cl_int>(status));
  }
}

// Everything one CLBlast call needs, in row-major terms.
struct GemmCall {
  Transpose ta = Transpose::kNo, tb = Transpose::kNo;
  size_t m = 0, n = 0, k = 0;
  cl_mem a = nullptr, b = nullptr, c = nullptr;
  size_t a_off = 0, b_off = 0, c_off = 0, lda = 0, ldb = 0, ldc = 0;
  // Batch axes after dropping extent 1 and merging neighbours.
  int rank = 0;
  int64_t shape[BP_MAX_RANK] = {};
  int64_t stride[3][BP_MAX_RANK] = {};  // c, a, b
  size_t count = 1;
};

void collapse_batch(GemmCall &g, const Matrix &c, const Matrix &a, const Matrix &b,
                    const View &out) {
  const int64_t *const batch_strides[3] = {c.batch_strides, a.batch_strides, b.batch_strides};
  int64_t *const strides[3] = {g.stride[0], g.stride[1], g.stride[2]};
  for (int d = 0; d < out.rank - 2; ++d) g.count *= static_cast<size_t>(out.shape[d]);
  g.rank = bp_sdk_coalesce(out.rank - 2, out.shape, 3, batch_strides, g.shape, strides);
}

template <class T>
StatusCode issue(const GemmCall &g, cl_command_queue *queue, cl_event *event) {
  const auto layout = clblast::Layout::kRowMajor;
  if (g.count == 1)
    return clblast::Gemm<T>(layout, g.ta, g.tb, g.m, g.n, g.k, T(1), g.a, g.a_off, g.lda, g.b,
                            g.b_off, g.ldb, T(0), g.c, g.c_off, g.ldc, queue, event);
  // One strided batch over the last batch axis (a stride of 0, a broadcast
  // batch, is fine: the matrix is reread), once per index of the others.
  // Not GemmBatched: each CLBlast routine costs a long compile on first use.
  const int inner = g.rank - 1;
  const size_t inner_count = static_cast<size_t>(g.shape[inner]);
  const size_t outer_count = g.count / inner_count;
  StatusCode status = StatusCode::kSuccess;
  for (size_t i = 0; i < outer_count && status == StatusCode::kSuccess; ++i) {
    size_t rest = i;
    int64_t off[3] = {0, 0, 0};
    for (int d = inner - 1; d >= 0; --d) {
      const int64_t e = static_cast<int64_t>(rest % static_cast<size_t>(g.shape[d]));
      rest /= static_cast<size_t>(g.shape[d]);
      for (int k = 0; k < 3; ++k) off[k] += e * g.stride[k][d];
    }
    if (*event) {  // only the last call's event is kept
      clReleaseEvent(*event);
      *event = nullptr;
    }
    status = clblast::GemmStridedBatched<T>(
        layout, g.ta, g.tb, g.m, g.n, g.k, T(1), g.a, g.a_off + static_cast<size_t>(off[1]), g.lda,
        static_cast<size_t>(g.stride[1][inner]), g.b, g.b_off + static_cast<size_t>(off[2]), g.ldb,
        static_cast<size_t>(g.stride[2][inner]), T(0), g.c, g.c_off + static_cast<size_t>(off[0]),
        g.ldc, static_cast<size_t>(g.stride[0][inner]), inner_count, queue, event);
  }
  return status;
}

}  // namespace

void run_gemm_clblast(Device &device, const Device::Lock &lock, const View &a_in,
                      const View &b_in, const View &out) {
  const int r = out.rank;
  const int64_t M = out.shape[r - 2], N = out.shape[r - 1], K = a_in.shape[r - 1];
  if (K == 0) {  // an empty sum: zeros (CLBlast rejects k = 0)
    run_create(device, lock, BP_OP_FILL, bp_plugin::Attrs{}, out);
    return;
  }
  auto matrix = [&](const View &v, int64_t rows, int64_t cols) {
    return Matrix{v.mem, v.offset, rows, cols, v.strides[r - 2], v.strides[r - 1], v.strides};
  };
  Transpose t = Transpose::kNo;
  size_t ld = 0;
  Temporaries scratch;
  const View a = blas_form(matrix(a_in, M, K), &t, &ld) ? a_in
                                                        : scratch.dense_like(device, lock, a_in, true);
  const View b = blas_form(matrix(b_in, K, N), &t, &ld) ? b_in
                                                        : scratch.dense_like(device, lock, b_in, true);
  const bool out_direct = blas_form(matrix(out, M, N), &t, &ld);
  const View c = out_direct ? out : scratch.dense_like(device, lock, out, false);

  Matrix A = matrix(a, M, K), B = matrix(b, K, N), C = matrix(c, M, N);
  blas_form(C, &t, &ld);
  if (t == Transpose::kYes) {
    // A column-major C is a row-major C^T = B^T A^T.
    const Matrix old_a = A;
    A = transposed(B);
    B = transposed(old_a);
    C = transposed(C);
  }
  GemmCall g;
  g.m = static_cast<size_t>(C.rows);
  g.n = static_cast<size_t>(C.cols);
  g.k = static_cast<size_t>(K);
  g.a = A.mem;
  g.b = B.mem;
  g.c = C.mem;
  g.a_off = static_cast<size_t>(A.offset);
  g.b_off = static_cast<size_t>(B.offset);
  g.c_off = static_cast<size_t>(C.offset);
  blas_form(A, &g.ta, &g.lda);
  blas_form(B, &g.tb, &g.ldb);
  blas_form(C, &t, &g.ldc);
  collapse_batch(g, C, A, B, c);

  cl_command_queue queue = device.queue(lock);
  cl_event event = nullptr;
  const StatusCode status = out.dtype == BP_FLOAT32 ? issue<float>(g, &queue, &event)
                                                    : issue<double>(g, &queue, &event);
  if (status != StatusCode::kSuccess) {
    if (event) clReleaseEvent(event);
    const bool memory = status == StatusCode::kTempBufferAllocFailure ||
                        status == StatusCode::kOpenCLOutOfHostMemory;
    fail(memory ? BP_ERR_OUT_OF_MEMORY : BP_ERR_BACKEND, "CLBlast %sgemm failed on %s: %s (%d)",
         out.dtype == BP_FLOAT32 ? "S" : "D", device.name().c_str(), clblast_status_name(status),
         static_cast<int>(status));
  }
  device.enqueued(lock, event);
  if (!out_direct) run_copy(device, lock, c, out);
}

// CLBlast's half GEMM (HGEMM) accumulates in half precision, where plugin.h
// asks for float32 or wider, and bfloat16 it has none: both go through
// float32, widened exactly, multiplied by SGEMM and rounded once at the end.
void run_gemm_halves(Device &device, const Device::Lock &lock, const View &a, const View &b,
                     const View &out) {
  if (a.numel == 0) {  // K = 0 (out has elements): an empty sum, and no scratch to make
    run_create(device, lock, BP_OP_FILL, bp_plugin::Attrs{}, out);
    return;
  }
  Temporaries scratch;
  const View a32 = scratch.dense_like(device, lock, a, true, BP_FLOAT32);
  const View b32 = scratch.dense_like(device, lock, b, true, BP_FLOAT32);
  const View c32 = scratch.dense_like(device, lock, out, false, BP_FLOAT32);
  run_gemm_clblast(device, lock, a32, b32, c32);
  run_copy(device, lock, c32, out);
}

}  // namespace bp_ocl
