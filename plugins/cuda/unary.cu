// NEG, ABS, RELU, SQUARE (numeric dtypes), EXP, LOG, SQRT, TANH, SIGMOID, SIN, COS (float) and
// BITWISE_NOT (integer and bool), each in the dtype's compute type (narrow_types.hpp).
#include <string>

#include "dtype.hpp"
#include "elementwise.cuh"
#include "kernels.hpp"
#include "ops.hpp"

namespace bp_cuda {

namespace {

template <class... Ts, class F>
void unary(const Launch &launch, int32_t op, int32_t dtype, const IterShape &it, void *out, const void *in, F) {
  const std::string name = kernel_name(op, dtype);
  dispatch<Ts...>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map<T>(launch, it, out, InCompute<F>{}, operand<T>(in), name.c_str());
  });
}

}  // namespace

void launch_unary(const Launch &launch, int32_t op, int32_t dtype, const IterShape &it, void *out, const void *in) {
  namespace k = bp_kernels;
  switch (op) {
    case BP_OP_NEG: return unary<BP_CUDA_NUMERIC_TYPES>(launch, op, dtype, it, out, in, k::Neg{});
    case BP_OP_ABS: return unary<BP_CUDA_NUMERIC_TYPES>(launch, op, dtype, it, out, in, k::Abs{});
    case BP_OP_RELU: return unary<BP_CUDA_NUMERIC_TYPES>(launch, op, dtype, it, out, in, k::Relu{});
    case BP_OP_SQUARE: return unary<BP_CUDA_NUMERIC_TYPES>(launch, op, dtype, it, out, in, k::Square{});
    case BP_OP_SIN: return unary<BP_CUDA_FLOAT_TYPES>(launch, op, dtype, it, out, in, k::Sin{});
    case BP_OP_COS: return unary<BP_CUDA_FLOAT_TYPES>(launch, op, dtype, it, out, in, k::Cos{});
    case BP_OP_EXP: return unary<BP_CUDA_FLOAT_TYPES>(launch, op, dtype, it, out, in, k::Exp{});
    case BP_OP_LOG: return unary<BP_CUDA_FLOAT_TYPES>(launch, op, dtype, it, out, in, k::Log{});
    case BP_OP_SQRT: return unary<BP_CUDA_FLOAT_TYPES>(launch, op, dtype, it, out, in, k::Sqrt{});
    case BP_OP_TANH: return unary<BP_CUDA_FLOAT_TYPES>(launch, op, dtype, it, out, in, k::Tanh{});
    case BP_OP_SIGMOID: return unary<BP_CUDA_FLOAT_TYPES>(launch, op, dtype, it, out, in, k::Sigmoid{});
    case BP_OP_BITWISE_NOT: return unary<BP_CUDA_INTEGRAL_TYPES>(launch, op, dtype, it, out, in, k::BitwiseNot{});
    default: fail(BP_ERR_INTERNAL, "cuda: operator %d is not a unary operator", op);
  }
}

}  // namespace bp_cuda
