/*
 * backplane/kernels/op_dispatch.hpp — from an operator of op_table.h to
 * its functor and to the element types its kernel is instantiated for (the
 * vocabulary's dtype set of the operator, as a list of C++ types), at
 * compile time. Host code of the C++ and CUDA backends.
 */
#ifndef BACKPLANE_KERNELS_OP_DISPATCH_HPP
#define BACKPLANE_KERNELS_OP_DISPATCH_HPP

#include <stdint.h>

#include "backplane/plugin_sdk.hpp"
#include "backplane/kernels/elementwise.hpp"
#include "backplane/kernels/op_table.h"

namespace bp_kernels {

/* The BP_DTYPE_SET_* of `op`'s inputs (bp_vocab_op_dtypes), as a constant
 * expression. */
constexpr int32_t op_dtypes(int32_t op) {
#define BP_KERNELS_OP_DTYPES_(id, value, name, family, dtypes, out) \
  if (op == value) return dtypes;
  BP_OP_LIST(BP_KERNELS_OP_DTYPES_)
#undef BP_KERNELS_OP_DTYPES_
  return 0;
}

/* f(type_tag<T>{}) for the T of `dtype`, T ranging over a dtype set of
 * the vocabulary (the SDK's, generated from BP_DTYPE_LIST). */
using bp_plugin::dispatch_set;

/* functor_of<BP_OP_ADD> is bp_kernels::Add: op_table.h's functor column. */
template <int32_t op>
struct functor_of_op;
#define BP_KERNELS_FUNCTOR_OF_(id, functor) \
  template <>                               \
  struct functor_of_op<BP_OP_##id> {        \
    using type = functor;                   \
  };
#define BP_KERNELS_FUNCTOR_OF_ROW_(id, functor, ...) BP_KERNELS_FUNCTOR_OF_(id, functor)
BP_KERNEL_UNARY_OPS(BP_KERNELS_FUNCTOR_OF_ROW_)
BP_KERNEL_UNARY_BOOL_OPS(BP_KERNELS_FUNCTOR_OF_)
BP_KERNEL_BINARY_OPS(BP_KERNELS_FUNCTOR_OF_ROW_)
BP_KERNEL_COMPARE_OPS(BP_KERNELS_FUNCTOR_OF_)
#undef BP_KERNELS_FUNCTOR_OF_ROW_
#undef BP_KERNELS_FUNCTOR_OF_
template <int32_t op>
using functor_of = typename functor_of_op<op>::type;

/* dispatch_set over the dtypes `op` takes. */
template <int32_t op, class F>
void dispatch_op(int32_t dtype, F &&f) {
  dispatch_set<op_dtypes(op)>(dtype, f);
}

}  // namespace bp_kernels

#endif /* BACKPLANE_KERNELS_OP_DISPATCH_HPP */
