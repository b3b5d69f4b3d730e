// The kernels of the two-operand operators of backplane/kernels/op_table.h
// (binary and comparison): F over two operands of one dtype, in its compute
// type (narrow_types.hpp), for the dtypes the vocabulary allows the operator.
#pragma once

#include <string>
#include <type_traits>

#include "backplane/kernels/op_dispatch.hpp"
#include "dtype.hpp"
#include "elementwise.cuh"
#include "ops.hpp"

namespace bp_cuda {

// The output has the operands' dtype, or bool for a comparison.
template <int32_t op, class F, bool compares>
void map_binary(const Launch &launch, int32_t dtype, const IterShape &it, void *out, InputArg a, InputArg b) {
  const std::string name = kernel_name(op, dtype);
  bp_kernels::dispatch_op<op>(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Out = std::conditional_t<compares, boolean, T>;
    map<Out>(launch, it, out, InCompute<F>{}, operand<T>(a), operand<T>(b), name.c_str());
  });
}

}  // namespace bp_cuda
