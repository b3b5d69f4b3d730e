// EQ, NE, LT, LE, GT, GE (bool output; the halves compared as floats) and
// WHERE (a choice between stored elements: no compute type), for every dtype.
#include <string>

#include "binary_map.cuh"
#include "kernels.hpp"

namespace bp_cuda {

void launch_compare(const Launch &launch, int32_t op, int32_t dtype, const IterShape &it, void *out, InputArg a,
                    InputArg b) {
  switch (op) {
#define BP_CUDA_COMPARE_(id, functor) \
  case BP_OP_##id: return map_binary<BP_OP_##id, bp_kernels::functor, true>(launch, dtype, it, out, a, b);
    BP_KERNEL_COMPARE_OPS(BP_CUDA_COMPARE_)
#undef BP_CUDA_COMPARE_
    default: fail(BP_ERR_INTERNAL, "cuda: operator %d is not a comparison", op);
  }
}

void launch_where(const Launch &launch, int32_t dtype, const IterShape &it, void *out, const void *cond, const void *a,
                  const void *b) {
  const std::string name = kernel_name(BP_OP_WHERE, dtype);
  dispatch_set<BP_DTYPE_SET_ALL>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map<T>(launch, it, out, bp_kernels::Where{}, operand<boolean>(cond), operand<T>(a), operand<T>(b), name.c_str());
  });
}

}  // namespace bp_cuda
