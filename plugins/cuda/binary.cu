// ADD, SUB, MUL, DIV, POW, MAXIMUM, MINIMUM, FLOOR_DIVIDE, REMAINDER and the BITWISE ones: one kernel per
// operator and dtype, the math from backplane_kernels/elementwise.hpp in the dtype's compute type
// (narrow_types.hpp: the halves in float, the small integers in int32, each result narrowed once).
#include <string>

#include "dtype.hpp"
#include "elementwise.cuh"
#include "kernels.hpp"
#include "ops.hpp"

namespace bp_cuda {

namespace {

// Instantiates F only for the dtypes the operator table allows (Ts).
template <class... Ts, class F>
void binary(const Launch &launch, int32_t op, int32_t dtype, const IterShape &it, void *out, InputArg a, InputArg b,
            F) {
  const std::string name = kernel_name(op, dtype);
  dispatch<Ts...>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map<T>(launch, it, out, InCompute<F>{}, operand<T>(a), operand<T>(b), name.c_str());
  });
}

}  // namespace

void launch_binary(const Launch &launch, int32_t op, int32_t dtype, const IterShape &it, void *out, InputArg a,
                   InputArg b) {
  namespace k = bp_kernels;
  switch (op) {
    case BP_OP_ADD: return binary<BP_CUDA_NUMERIC_TYPES>(launch, op, dtype, it, out, a, b, k::Add{});
    case BP_OP_SUB: return binary<BP_CUDA_NUMERIC_TYPES>(launch, op, dtype, it, out, a, b, k::Sub{});
    case BP_OP_MUL: return binary<BP_CUDA_NUMERIC_TYPES>(launch, op, dtype, it, out, a, b, k::Mul{});
    case BP_OP_DIV: return binary<BP_CUDA_FLOAT_TYPES>(launch, op, dtype, it, out, a, b, k::Div{});
    case BP_OP_POW: return binary<BP_CUDA_NUMERIC_TYPES>(launch, op, dtype, it, out, a, b, k::Pow{});
    case BP_OP_MAXIMUM: return binary<BP_CUDA_NUMERIC_TYPES>(launch, op, dtype, it, out, a, b, k::Maximum{});
    case BP_OP_MINIMUM: return binary<BP_CUDA_NUMERIC_TYPES>(launch, op, dtype, it, out, a, b, k::Minimum{});
    case BP_OP_FLOOR_DIVIDE: return binary<BP_CUDA_NUMERIC_TYPES>(launch, op, dtype, it, out, a, b, k::FloorDivide{});
    case BP_OP_REMAINDER: return binary<BP_CUDA_NUMERIC_TYPES>(launch, op, dtype, it, out, a, b, k::Remainder{});
    case BP_OP_BITWISE_AND: return binary<BP_CUDA_INTEGRAL_TYPES>(launch, op, dtype, it, out, a, b, k::BitwiseAnd{});
    case BP_OP_BITWISE_OR: return binary<BP_CUDA_INTEGRAL_TYPES>(launch, op, dtype, it, out, a, b, k::BitwiseOr{});
    case BP_OP_BITWISE_XOR: return binary<BP_CUDA_INTEGRAL_TYPES>(launch, op, dtype, it, out, a, b, k::BitwiseXor{});
    default: fail(BP_ERR_INTERNAL, "cuda: operator %d is not a binary operator", op);
  }
}

}  // namespace bp_cuda
