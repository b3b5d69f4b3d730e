#include "ops.hpp"

#include <array>

namespace cpu_backend {

namespace {

constexpr uint32_t bit(int32_t dtype) { return 1u << dtype; }
constexpr uint32_t kFloat = bit(BP_FLOAT32) | bit(BP_FLOAT64);
constexpr uint32_t kNumeric = kFloat | bit(BP_INT32) | bit(BP_INT64);
constexpr uint32_t kAll = kNumeric | bit(BP_BOOL);

// The output dtype `op` of `kind` writes for input dtype `dtype` (plugin.h):
// comparisons write bool; SUM of integers and bool, and ARGMAX, write int64;
// COPY writes anything (-1); everything else keeps the dtype.
constexpr int32_t out_dtype_of(int32_t op, OpKind kind, int32_t dtype) {
  if (kind == OpKind::compare) return BP_BOOL;
  if (kind == OpKind::copy) return -1;
  if (op == BP_OP_ARGMAX || (op == BP_OP_SUM && !(bit(dtype) & kFloat))) return BP_INT64;
  return dtype;
}

// An entry whose input dtypes are `dtypes` (for creation ops: the output's).
constexpr OpInfo entry(int32_t op, const char *name, OpKind kind, uint32_t dtypes) {
  uint64_t pairs = 0;
  for (int32_t in = BP_FLOAT32; in <= BP_BOOL; ++in) {
    if (!(dtypes & bit(in))) continue;
    for (int32_t out = BP_FLOAT32; out <= BP_BOOL; ++out) {
      const int32_t wanted = out_dtype_of(op, kind, in);
      if (wanted == -1 || wanted == out) pairs |= uint64_t(1) << (in * 8 + out);
    }
  }
  return OpInfo{name, kind, pairs};
}

// The whole table, computed at compile time.
constexpr std::array<OpInfo, BP_OP_LIMIT> make_table() {
  std::array<OpInfo, BP_OP_LIMIT> t{};
  auto add = [&t](int32_t op, const char *name, OpKind kind, uint32_t dtypes) {
    t[op] = entry(op, name, kind, dtypes);
  };
  add(BP_OP_ADD, "add", OpKind::binary, kNumeric);
  add(BP_OP_SUB, "sub", OpKind::binary, kNumeric);
  add(BP_OP_MUL, "mul", OpKind::binary, kNumeric);
  add(BP_OP_DIV, "div", OpKind::binary, kFloat);
  add(BP_OP_POW, "pow", OpKind::binary, kNumeric);
  add(BP_OP_MAXIMUM, "maximum", OpKind::binary, kNumeric);
  add(BP_OP_MINIMUM, "minimum", OpKind::binary, kNumeric);
  add(BP_OP_EQ, "eq", OpKind::compare, kAll);
  add(BP_OP_NE, "ne", OpKind::compare, kAll);
  add(BP_OP_LT, "lt", OpKind::compare, kAll);
  add(BP_OP_LE, "le", OpKind::compare, kAll);
  add(BP_OP_GT, "gt", OpKind::compare, kAll);
  add(BP_OP_GE, "ge", OpKind::compare, kAll);
  add(BP_OP_WHERE, "where", OpKind::where, kAll);
  add(BP_OP_NEG, "neg", OpKind::unary, kNumeric);
  add(BP_OP_ABS, "abs", OpKind::unary, kNumeric);
  add(BP_OP_EXP, "exp", OpKind::unary, kFloat);
  add(BP_OP_LOG, "log", OpKind::unary, kFloat);
  add(BP_OP_SQRT, "sqrt", OpKind::unary, kFloat);
  add(BP_OP_TANH, "tanh", OpKind::unary, kFloat);
  add(BP_OP_SIGMOID, "sigmoid", OpKind::unary, kFloat);
  add(BP_OP_RELU, "relu", OpKind::unary, kNumeric);
  add(BP_OP_SUM, "sum", OpKind::reduce, kAll);
  add(BP_OP_MEAN, "mean", OpKind::reduce, kFloat);
  add(BP_OP_MAX, "max", OpKind::reduce, kNumeric);
  add(BP_OP_MIN, "min", OpKind::reduce, kNumeric);
  add(BP_OP_ARGMAX, "argmax", OpKind::reduce, kNumeric);
  add(BP_OP_NORM, "norm", OpKind::reduce, kFloat);
  add(BP_OP_MATMUL, "matmul", OpKind::matmul, kNumeric);
  add(BP_OP_COPY, "copy", OpKind::copy, kAll);
  add(BP_OP_FILL, "fill", OpKind::create, kAll);
  add(BP_OP_ARANGE, "arange", OpKind::create, kNumeric);
  add(BP_OP_RANDOM_UNIFORM, "random_uniform", OpKind::create, kFloat);
  add(BP_OP_RANDOM_NORMAL, "random_normal", OpKind::create, kFloat);
  return t;
}

}  // namespace

constexpr std::array<OpInfo, BP_OP_LIMIT> kOps = make_table();

}  // namespace cpu_backend
