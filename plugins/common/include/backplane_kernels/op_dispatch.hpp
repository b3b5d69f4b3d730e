/*
 * backplane_kernels/op_dispatch.hpp — from an operator of op_table.h to
 * its functor and to the element types its kernel is instantiated for (the
 * vocabulary's dtype set of the operator, as a list of C++ types), at
 * compile time. Host code of the C++ and CUDA backends.
 */
#ifndef BACKPLANE_KERNELS_OP_DISPATCH_HPP
#define BACKPLANE_KERNELS_OP_DISPATCH_HPP

#include <stdint.h>

#include "backplane/plugin_sdk.hpp"
#include "backplane_kernels/elementwise.hpp"
#include "backplane_kernels/op_table.h"

/* dispatch<...> lists of every dtype of each of the vocabulary's sets, the
 * 1.4 ones (the SDK's BP_HALF_TYPES, BP_SMALL_INT_TYPES) included. */
#define BP_KERNEL_FLOAT_TYPES BP_FLOAT_TYPES, BP_HALF_TYPES
#define BP_KERNEL_NUMERIC_TYPES BP_NUMERIC_TYPES, BP_HALF_TYPES, BP_SMALL_INT_TYPES
#define BP_KERNEL_ALL_TYPES BP_ALL_TYPES, BP_HALF_TYPES, BP_SMALL_INT_TYPES
#define BP_KERNEL_INTEGRAL_TYPES int32_t, int64_t, ::bp_plugin::boolean, BP_SMALL_INT_TYPES

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

/* f(type_tag<T>{}) for the T of `dtype`, T ranging over the dtype set
 * `set`. */
template <int32_t set, class F>
void dispatch_set(int32_t dtype, F &&f) {
  static_assert(set == BP_DTYPE_SET_FLOAT || set == BP_DTYPE_SET_NUMERIC || set == BP_DTYPE_SET_ALL ||
                    set == BP_DTYPE_SET_INTEGRAL,
                "a dtype set of the vocabulary");
  if constexpr (set == BP_DTYPE_SET_FLOAT)
    bp_plugin::dispatch<BP_KERNEL_FLOAT_TYPES>(dtype, f);
  else if constexpr (set == BP_DTYPE_SET_NUMERIC)
    bp_plugin::dispatch<BP_KERNEL_NUMERIC_TYPES>(dtype, f);
  else if constexpr (set == BP_DTYPE_SET_ALL)
    bp_plugin::dispatch<BP_KERNEL_ALL_TYPES>(dtype, f);
  else
    bp_plugin::dispatch<BP_KERNEL_INTEGRAL_TYPES>(dtype, f);
}

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
