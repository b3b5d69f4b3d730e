// How a float MATMUL maps onto cuBLAS, decided on the host without any CUDA
// call (so it can be checked without a GPU); matmul_cublas.cpp carries it out.
//
// cuBLAS is column-major: it computes C = op(P) x op(Q) where each matrix
// is stored column by column with a leading dimension, and op is "as is"
// (N) or "transposed" (T). A row-major matrix is a transposed column-major
// one, so every operand that is row- or column-major in its last two axes
// goes in without a copy:
// - an output that is column-major: C = A x B, as is;
// - an output that is row-major: C^T = B^T x A^T, which cuBLAS writes as a
//   column-major C^T, that is a row-major C.
// Only an operand with neither layout (every other element, say) is first
// copied into dense (C-order) memory, and an output with neither is
// computed densely and then copied into place. Batch axes are merged where
// all three operands allow; the innermost remaining one becomes the batch
// of one strided-batched call (a broadcast input simply has stride 0), and
// any outer ones are looped over on the host.
#pragma once

#include <cublas_api.h>

#include <cstdint>

#include "kernel_args.hpp"
#include "view.hpp"

namespace bp_cuda {

struct GemmOperand {
  bool dense_copy;  // use a dense C-order copy of the view instead of the view
  cublasOperation_t op;
  int64_t ld;
};

struct GemmPlan {
  bool transposed;      // computing C^T = B^T x A^T: P is b, Q is a; else P is a, Q is b
  int64_t m, n, k;      // op(P) is m x k, op(Q) is k x n, C is m x n (column-major)
  GemmOperand c, p, q;  // c.op is always CUBLAS_OP_N
  // The batch axes with operands c, p, q (0, 1, 2), merged; the last one
  // (if any) is cuBLAS's batch: `count` matrices `stride[i]` elements
  // apart; the others are `outer` separate calls.
  IterShape batch;
  int64_t count, stride[3], outer;
};

// For validated float views with out.numel > 0 and K > 0.
GemmPlan plan_gemm(const View &a, const View &b, const View &out);

// Element offsets of c, p and q for outer call o (0 <= o < plan.outer).
void gemm_call_offsets(const GemmPlan &plan, int64_t o, int64_t (&offset)[3]);

}  // namespace bp_cuda
