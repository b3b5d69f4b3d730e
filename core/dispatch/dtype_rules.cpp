#include "dispatch/dtype_rules.hpp"

#include <cmath>
#include <string>

#include "errors/error.hpp"
#include "errors/names.hpp"

namespace bp::core {

namespace {

// The dtype `op` computes in for an input of `dtype`: the dtype itself when
// the ABI defines the operator for it (vocabulary.h), else float64 for
// operators defined on floats only and int32 for bool into arithmetic.
BinaryTypes derive(int32_t op, int32_t dtype) {
  int32_t compute = dtype;
  const int32_t set = bp_vocab_op_dtypes(op);
  if (!bp_vocab_dtype_in_set(dtype, set)) {
    // Floats have no bits to combine: no conversion makes a bitwise operator
    // meaningful for them (the caller reports BP_ERR_DTYPE).
    if (set == BP_DTYPE_SET_INTEGRAL) return {BP_DTYPE_INVALID, BP_DTYPE_INVALID};
    compute = set == BP_DTYPE_SET_FLOAT ? BP_FLOAT64 : BP_INT32;
  }
  return {compute, bp_vocab_out_dtype(op, compute)};
}

// derive() for every (op, dtype), computed once at load: every operator
// call resolves its dtypes, and a table read is a few instructions.
struct RuleTable {
  BinaryTypes rules[BP_OP_LIMIT][BP_DTYPE_COUNT];
  RuleTable() {
    for (int32_t op = 0; op < BP_OP_LIMIT; ++op)
      for (int32_t dtype = 0; dtype < BP_DTYPE_COUNT; ++dtype) rules[op][dtype] = derive(op, dtype);
  }
};
const RuleTable kRules;

BinaryTypes resolve(int32_t op, int32_t dtype) {
  if (uint32_t(op) < uint32_t(BP_OP_LIMIT) && uint32_t(dtype) < uint32_t(BP_DTYPE_COUNT))
    return kRules.rules[op][dtype];
  return derive(op, dtype);
}

}  // namespace

bool is_float(int32_t dtype) { return bp_vocab_dtype_kind(dtype) == BP_DTYPE_KIND_FLOAT; }

bool is_family(int32_t op, int32_t family) { return bp_vocab_op_family(op) == family; }

int32_t promote(int32_t a, int32_t b) { return bp_vocab_promote(a, b); }

BinaryTypes binary_types(int32_t op, int32_t a, int32_t b) { return resolve(op, promote(a, b)); }

BinaryTypes scalar_types(int32_t op, int32_t a, int32_t scalar_kind, bool integral) {
  int32_t compute = a;
  switch (scalar_kind) {
    case BP_SCALAR_KIND_FLOAT:
      if (!is_float(a)) compute = BP_FLOAT64;
      break;
    case BP_SCALAR_KIND_INT:
      if (a == BP_BOOL) compute = BP_INT64;
      break;
    case BP_SCALAR_KIND_BOOL: break;
    default:  // bp_binary_scalar's value-based rule of 1.0
      if (!is_float(a) && !integral) compute = BP_FLOAT64;
      // A scalar compared with a bool tensor compares numbers, not truth values.
      if (is_family(op, BP_OP_FAMILY_COMPARE) && compute == BP_BOOL) compute = BP_INT32;
      // Likewise a number's bits combined with a bool tensor (true & 2 is 0).
      if (bp_vocab_op_dtypes(op) == BP_DTYPE_SET_INTEGRAL && compute == BP_BOOL) compute = BP_INT32;
  }
  return resolve(op, compute);
}

bool integer_holds(int32_t dtype, double value) {
  const int32_t kind = bp_vocab_dtype_kind(dtype);
  const int bits = 8 * bp_vocab_dtype_size(dtype);
  if (kind == BP_DTYPE_KIND_SIGNED_INT)
    return value >= -std::ldexp(1.0, bits - 1) && value < std::ldexp(1.0, bits - 1);
  if (kind == BP_DTYPE_KIND_UNSIGNED_INT) return value >= 0 && value < std::ldexp(1.0, bits);
  return false;
}

BinaryTypes unary_types(int32_t op, int32_t a) { return resolve(op, a); }

BinaryTypes reduce_types(int32_t op, int32_t a) { return resolve(op, a); }

void require_defined(int32_t op, const BinaryTypes &types, int32_t dtype) {
  if (types.compute != BP_DTYPE_INVALID) return;
  Error e(BP_ERR_DTYPE, std::string(op_name(op)) + ": defined for integer and bool tensors, not " +
                            dtype_name(dtype));
  e.op = op_name(op);
  throw e;
}

}  // namespace bp::core
