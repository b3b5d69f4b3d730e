// The operator table: what each operator is, its name, and exactly which
// dtypes this backend implements. supports() and execute() both read it, so
// what is declared is what runs.
#pragma once

#include <cstdint>
#include <string>

namespace bp_cuda {

enum class OpKind { binary, compare, where, unary, reduce, matmul, copy, create };

struct OpInfo {
  const char *name;  // as in messages: "add", "matmul", ...
  OpKind kind;
  uint32_t dtypes;  // bit (1 << dtype) per input dtype implemented (creation: output dtype)
};

// The entry of `op`, or nullptr when this backend has no such operator.
const OpInfo *find_op(int32_t op);

// Whether `op` is implemented for input dtype `dtype` writing `out_dtype`
// (for WHERE, `dtype` is that of the two value inputs; for creation ops,
// the output's).
bool op_supports(int32_t op, int32_t dtype, int32_t out_dtype);

// How messages name a kernel: "add (float32)".
std::string kernel_name(int32_t op, int32_t dtype);

}  // namespace bp_cuda
