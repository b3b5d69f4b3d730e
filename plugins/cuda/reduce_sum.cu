// SUM (every dtype; integers and bool into int64), PROD (numeric; integers
// into int64), MEAN, NORM, LOGSUMEXP and VAR (float). The halves accumulate in
// float64 and round once, the small integers in int64 (reducers.cuh).
#include <string>

#include "dtype.hpp"
#include "kernels.hpp"
#include "ops.hpp"
#include "reduce.cuh"
#include "reducers.cuh"

namespace bp_cuda {

void launch_reduce_sum(const Launch &launch, int32_t op, int32_t dtype, const ReducePlan &plan, void *out,
                       const void *in, Scratch &scratch) {
  namespace k = bp_kernels;
  const std::string name = kernel_name(op, dtype);
  const char *n = name.c_str();
  switch (op) {
    case BP_OP_SUM:
      return reduce_dtype<BP_DTYPE_SET_ALL, sum_like_t, k::SumReducer>(dtype, launch, plan, out, in, scratch, n);
    case BP_OP_MEAN:
      return reduce_dtype<BP_DTYPE_SET_FLOAT, sum_like_t, k::MeanReducer>(dtype, launch, plan, out, in, scratch, n);
    case BP_OP_NORM:
      return reduce_dtype<BP_DTYPE_SET_FLOAT, sum_like_t, k::NormReducer>(dtype, launch, plan, out, in, scratch, n);
    case BP_OP_PROD:
      return reduce_dtype<BP_DTYPE_SET_NUMERIC, sum_like_t, k::ProdReducer>(dtype, launch, plan, out, in, scratch, n);
    case BP_OP_LOGSUMEXP:
      return reduce_dtype<BP_DTYPE_SET_FLOAT, sum_like_t, k::LogSumExpReducer>(dtype, launch, plan, out, in, scratch, n);
    case BP_OP_VAR:  // plan.divisor is the count less the correction
      return reduce_dtype<BP_DTYPE_SET_FLOAT, sum_like_t, k::VarReducer>(dtype, launch, plan, out, in, scratch, n);
    default: fail(BP_ERR_INTERNAL, "cuda: operator %d is not SUM, MEAN, NORM, PROD, LOGSUMEXP or VAR", op);
  }
}

}  // namespace bp_cuda
