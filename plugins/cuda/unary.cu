// The unary operators of backplane/kernels/op_table.h, each for its vocabulary dtype set, in the
// dtype's compute type (narrow_types.hpp).
#include <string>

#include "backplane/kernels/op_dispatch.hpp"
#include "dtype.hpp"
#include "elementwise.cuh"
#include "kernels.hpp"
#include "ops.hpp"

namespace bp_cuda {

namespace {

template <int32_t op, class F>
void unary(const Launch &launch, int32_t dtype, const IterShape &it, void *out, const void *in) {
  const std::string name = kernel_name(op, dtype);
  bp_kernels::dispatch_op<op>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map<T>(launch, it, out, InCompute<F>{}, operand<T>(in), name.c_str());
  });
}

}  // namespace

void launch_unary(const Launch &launch, int32_t op, int32_t dtype, const IterShape &it, void *out, const void *in) {
  switch (op) {
#define BP_CUDA_UNARY_(id, functor, ...) \
  case BP_OP_##id: return unary<BP_OP_##id, bp_kernels::functor>(launch, dtype, it, out, in);
    BP_KERNEL_UNARY_OPS(BP_CUDA_UNARY_)
#undef BP_CUDA_UNARY_
    default: fail(BP_ERR_INTERNAL, "cuda: operator %d is not a unary operator", op);
  }
}

}  // namespace bp_cuda
