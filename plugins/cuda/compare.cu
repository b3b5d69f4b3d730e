// EQ, NE, LT, LE, GT, GE (bool output; the halves compared as floats) and
// WHERE (a choice between stored elements: no compute type), for every dtype.
#include <string>

#include "dtype.hpp"
#include "elementwise.cuh"
#include "kernels.hpp"
#include "ops.hpp"

namespace bp_cuda {

namespace {

template <class F>
void compare(const Launch &launch, int32_t op, int32_t dtype, const IterShape &it, void *out, InputArg a, InputArg b,
             F) {
  const std::string name = kernel_name(op, dtype);
  dispatch<BP_CUDA_ALL_TYPES>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map<boolean>(launch, it, out, InCompute<F>{}, operand<T>(a), operand<T>(b), name.c_str());
  });
}

}  // namespace

void launch_compare(const Launch &launch, int32_t op, int32_t dtype, const IterShape &it, void *out, InputArg a,
                    InputArg b) {
  namespace k = bp_kernels;
  switch (op) {
    case BP_OP_EQ: return compare(launch, op, dtype, it, out, a, b, k::Eq{});
    case BP_OP_NE: return compare(launch, op, dtype, it, out, a, b, k::Ne{});
    case BP_OP_LT: return compare(launch, op, dtype, it, out, a, b, k::Lt{});
    case BP_OP_LE: return compare(launch, op, dtype, it, out, a, b, k::Le{});
    case BP_OP_GT: return compare(launch, op, dtype, it, out, a, b, k::Gt{});
    case BP_OP_GE: return compare(launch, op, dtype, it, out, a, b, k::Ge{});
    default: fail(BP_ERR_INTERNAL, "cuda: operator %d is not a comparison", op);
  }
}

void launch_where(const Launch &launch, int32_t dtype, const IterShape &it, void *out, const void *cond, const void *a,
                  const void *b) {
  const std::string name = kernel_name(BP_OP_WHERE, dtype);
  dispatch<BP_CUDA_ALL_TYPES>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map<T>(launch, it, out, bp_kernels::Where{}, operand<boolean>(cond), operand<T>(a), operand<T>(b), name.c_str());
  });
}

}  // namespace bp_cuda
