// MAX, MIN (numeric dtypes, NaN propagates), ARGMAX and ARGMIN (int64
// position of the first maximum or minimum; a NaN counts as either). The
// 8- and 16-bit dtypes compare in their compute type (reducers.cuh).
#include <string>

#include "dtype.hpp"
#include "kernels.hpp"
#include "ops.hpp"
#include "reduce.cuh"
#include "reducers.cuh"

namespace bp_cuda {

void launch_reduce_extreme(const Launch &launch, int32_t op, int32_t dtype, const ReducePlan &plan, void *out,
                           const void *in, Scratch &scratch) {
  namespace k = bp_kernels;
  const std::string name = kernel_name(op, dtype);
  const char *n = name.c_str();
  switch (op) {
    case BP_OP_MAX:
      return reduce_dtype<BP_DTYPE_SET_NUMERIC, extreme_t, k::MaxReducer>(dtype, launch, plan, out, in, scratch, n);
    case BP_OP_MIN:
      return reduce_dtype<BP_DTYPE_SET_NUMERIC, extreme_t, k::MinReducer>(dtype, launch, plan, out, in, scratch, n);
    case BP_OP_ARGMAX:
      return reduce_dtype<BP_DTYPE_SET_NUMERIC, arg_t, k::ArgmaxReducer>(dtype, launch, plan, out, in, scratch, n);
    case BP_OP_ARGMIN:
      return reduce_dtype<BP_DTYPE_SET_NUMERIC, arg_t, k::ArgminReducer>(dtype, launch, plan, out, in, scratch, n);
    default: fail(BP_ERR_INTERNAL, "cuda: operator %d is not MAX, MIN, ARGMAX or ARGMIN", op);
  }
}

}  // namespace bp_cuda
