// The unary operators of backplane/kernels/op_table.h (the predicates with a bool output), each
// for its vocabulary dtype set, in the dtype's compute type (narrow_types.hpp).
#include <string>
#include <type_traits>

#include "backplane/kernels/op_dispatch.hpp"
#include "dtype.hpp"
#include "elementwise.cuh"
#include "kernels.hpp"
#include "ops.hpp"

namespace bp_cuda {

namespace {

// The output has the input's dtype, or bool for a predicate (ISNAN, ISINF).
template <int32_t op, class F, bool predicate>
void unary(const Launch &launch, int32_t dtype, const IterShape &it, void *out, const void *in) {
  const std::string name = kernel_name(op, dtype);
  bp_kernels::dispatch_op<op>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Out = std::conditional_t<predicate, boolean, T>;
    map<Out>(launch, it, out, InCompute<F>{}, operand<T>(in), name.c_str());
  });
}

}  // namespace

void launch_unary(const Launch &launch, int32_t op, int32_t dtype, const IterShape &it, void *out, const void *in) {
  switch (op) {
#define BP_CUDA_UNARY_(id, functor, ...) \
  case BP_OP_##id: return unary<BP_OP_##id, bp_kernels::functor, false>(launch, dtype, it, out, in);
    BP_KERNEL_UNARY_OPS(BP_CUDA_UNARY_)
#undef BP_CUDA_UNARY_
#define BP_CUDA_UNARY_BOOL_(id, functor) \
  case BP_OP_##id: return unary<BP_OP_##id, bp_kernels::functor, true>(launch, dtype, it, out, in);
    BP_KERNEL_UNARY_BOOL_OPS(BP_CUDA_UNARY_BOOL_)
#undef BP_CUDA_UNARY_BOOL_
    default: fail(BP_ERR_INTERNAL, "cuda: operator %d is not a unary operator", op);
  }
}

}  // namespace bp_cuda
