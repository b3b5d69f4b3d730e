// SUM (every dtype; integers and bool into int64), PROD (numeric; integers
// into int64), MEAN, NORM and LOGSUMEXP (float). The halves accumulate in
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
  switch (op) {
    case BP_OP_SUM:
      return dispatch_set<BP_DTYPE_SET_ALL>(dtype, [&](auto tag) {
        reduce<sum_like_t<k::SumReducer, typename decltype(tag)::type>>(launch, plan, out, in, scratch, name.c_str());
      });
    case BP_OP_MEAN:
      return dispatch_set<BP_DTYPE_SET_FLOAT>(dtype, [&](auto tag) {
        reduce<sum_like_t<k::MeanReducer, typename decltype(tag)::type>>(launch, plan, out, in, scratch, name.c_str());
      });
    case BP_OP_NORM:
      return dispatch_set<BP_DTYPE_SET_FLOAT>(dtype, [&](auto tag) {
        reduce<sum_like_t<k::NormReducer, typename decltype(tag)::type>>(launch, plan, out, in, scratch, name.c_str());
      });
    case BP_OP_PROD:
      return dispatch_set<BP_DTYPE_SET_NUMERIC>(dtype, [&](auto tag) {
        reduce<sum_like_t<k::ProdReducer, typename decltype(tag)::type>>(launch, plan, out, in, scratch, name.c_str());
      });
    case BP_OP_LOGSUMEXP:
      return dispatch_set<BP_DTYPE_SET_FLOAT>(dtype, [&](auto tag) {
        reduce<sum_like_t<k::LogSumExpReducer, typename decltype(tag)::type>>(launch, plan, out, in, scratch,
                                                                             name.c_str());
      });
    default: fail(BP_ERR_INTERNAL, "cuda: operator %d is not SUM, MEAN, NORM, PROD or LOGSUMEXP", op);
  }
}

}  // namespace bp_cuda
