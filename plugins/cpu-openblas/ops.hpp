// The operator table: what each operator is, its name, and exactly which
// dtype combinations this backend implements. supports() and execute() both
// read it, so what is declared is what runs.
#pragma once

#include <array>
#include <cstdint>

#include "backplane/types.h"

namespace cpu_backend {

enum class OpKind { binary, compare, where, unary, reduce, matmul, copy, create };

struct OpInfo {
  const char *name;  // as in messages: "add", "matmul", ...; nullptr: no such operator
  OpKind kind;
  uint64_t pairs;    // bit (dtype * 8 + out_dtype) for each implemented combination
};

// Indexed by bp_op (built in ops.cpp from the rules written there).
extern const std::array<OpInfo, BP_OP_LIMIT> kOps;

// The entry of `op`, or nullptr when this backend has no such operator.
inline const OpInfo *find_op(int32_t op) {
  return static_cast<uint32_t>(op) < BP_OP_LIMIT && kOps[op].name ? &kOps[op] : nullptr;
}

// Whether `info` is implemented for input dtype `dtype` writing `out_dtype`.
// For WHERE, `dtype` is that of the two value inputs; for creation ops, the
// output's. One bit test: execute asks on every call.
inline bool op_supports(const OpInfo &info, int32_t dtype, int32_t out_dtype) {
  return static_cast<uint32_t>(dtype) < 8u && static_cast<uint32_t>(out_dtype) < 8u &&
         ((info.pairs >> (dtype * 8 + out_dtype)) & 1u);
}

// The same for an operator number (supports()); false for unknown ones.
inline bool op_supports(int32_t op, int32_t dtype, int32_t out_dtype) {
  const OpInfo *info = find_op(op);
  return info && op_supports(*info, dtype, out_dtype);
}

}  // namespace cpu_backend
