// Carries out a GemmPlan (gemm_plan.hpp): dense copies where the plan asks
// for them, then one cuBLAS strided-batched call per outer batch: sgemm and
// dgemm, and for float16 and bfloat16 cublasGemmEx's strided form with
// float32 compute (CUBLAS_COMPUTE_32F: tensor cores, products and sums in
// float32, the result rounded once to the dtype; Device::blas forbids
// reductions in the output's precision).
#include "matmul_cublas.hpp"

#include <cstdint>

#include "dense_copy.hpp"
#include "dtype.hpp"
#include "errors.hpp"
#include "gemm_plan.hpp"
#include "scratch.hpp"

namespace bp_cuda {

namespace {

cublasStatus_t gemm(cublasHandle_t handle, const GemmPlan &plan, const float *p, const float *q, float *c) {
  const float one = 1, zero = 0;  // beta 0: C is only written
  return cublasSgemmStridedBatched_64(handle, plan.p.op, plan.q.op, plan.m, plan.n, plan.k, &one, p, plan.p.ld,
                                      plan.stride[1], q, plan.q.ld, plan.stride[2], &zero, c, plan.c.ld, plan.stride[0],
                                      plan.count);
}

cublasStatus_t gemm(cublasHandle_t handle, const GemmPlan &plan, const double *p, const double *q, double *c) {
  const double one = 1, zero = 0;
  return cublasDgemmStridedBatched_64(handle, plan.p.op, plan.q.op, plan.m, plan.n, plan.k, &one, p, plan.p.ld,
                                      plan.stride[1], q, plan.q.ld, plan.stride[2], &zero, c, plan.c.ld, plan.stride[0],
                                      plan.count);
}

// The halves, as their bits: `type` is CUDA_R_16F or CUDA_R_16BF.
cublasStatus_t gemm(cublasHandle_t handle, const GemmPlan &plan, const uint16_t *p, const uint16_t *q, uint16_t *c,
                    cudaDataType type) {
  const float one = 1, zero = 0;
  return cublasGemmStridedBatchedEx_64(handle, plan.p.op, plan.q.op, plan.m, plan.n, plan.k, &one, p, type, plan.p.ld,
                                       plan.stride[1], q, type, plan.q.ld, plan.stride[2], &zero, c, type, plan.c.ld,
                                       plan.stride[0], plan.count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

// T is float, double or uint16_t (a half's bits, of cuBLAS type `half`).
template <class T>
void run_gemm(const Device &device, cublasHandle_t handle, const GemmPlan &plan, const View &p, const View &q,
              const View &c, cudaDataType half = CUDA_R_16F) {
  const char *call = sizeof(T) == 2   ? "cublasGemmStridedBatchedEx_64"
                     : sizeof(T) == 4 ? "cublasSgemmStridedBatched_64"
                                      : "cublasDgemmStridedBatched_64";
  for (int64_t o = 0; o < plan.outer; ++o) {
    int64_t offset[3];
    gemm_call_offsets(plan, o, offset);
    const T *p_at = reinterpret_cast<const T *>(p.base) + offset[1];
    const T *q_at = reinterpret_cast<const T *>(q.base) + offset[2];
    T *c_at = reinterpret_cast<T *>(c.base) + offset[0];
    if constexpr (sizeof(T) == 2)
      check_cublas(gemm(handle, plan, p_at, q_at, c_at, half), call, device.name());
    else
      check_cublas(gemm(handle, plan, p_at, q_at, c_at), call, device.name());
  }
}

// The view an operand is read from: the view itself or its dense copy.
const View &operand_view(const Launch &launch, Scratch &scratch, const GemmOperand &operand, const View &view,
                         DenseView &copy) {
  if (!operand.dense_copy) return view;
  make_dense(scratch, view, copy);
  copy_view(launch, view, copy.view);
  return copy.view;
}

}  // namespace

void matmul_cublas(Device &device, const Device::Lock &lock, const View &a, const View &b, const View &out,
                   bool allow_tf32) {
  const GemmPlan plan = plan_gemm(a, b, out);
  const Launch launch = device.launch(lock);
  cublasHandle_t handle = device.blas(lock, allow_tf32);
  Scratch scratch(device, lock);
  DenseView p_copy, q_copy, c_copy;
  const View &p = operand_view(launch, scratch, plan.p, plan.transposed ? b : a, p_copy);
  const View &q = operand_view(launch, scratch, plan.q, plan.transposed ? a : b, q_copy);
  if (plan.c.dense_copy) make_dense(scratch, out, c_copy);
  const View &c = plan.c.dense_copy ? c_copy.view : out;
  switch (out.dtype) {
    case BP_FLOAT32: run_gemm<float>(device, handle, plan, p, q, c); break;
    case BP_FLOAT64: run_gemm<double>(device, handle, plan, p, q, c); break;
    case BP_FLOAT16: run_gemm<uint16_t>(device, handle, plan, p, q, c, CUDA_R_16F); break;
    case BP_BFLOAT16: run_gemm<uint16_t>(device, handle, plan, p, q, c, CUDA_R_16BF); break;
    default: fail(BP_ERR_INTERNAL, "cuda: cuBLAS has no %s MATMUL here", dtype_name(out.dtype));
  }
  if (plan.c.dense_copy) copy_view(launch, c, out);
}

}  // namespace bp_cuda
