#include "ops.hpp"

#include "backplane/types.h"
#include "dtype.hpp"

namespace bp_cuda {

namespace {

constexpr uint32_t bit(int32_t dtype) { return 1u << dtype; }
constexpr uint32_t kFloat = bit(BP_FLOAT32) | bit(BP_FLOAT64);
constexpr uint32_t kNumeric = kFloat | bit(BP_INT32) | bit(BP_INT64);
constexpr uint32_t kAll = kNumeric | bit(BP_BOOL);

struct Table {
  OpInfo entries[BP_OP_LIMIT] = {};
  constexpr Table() {
    entries[BP_OP_ADD] = {"add", OpKind::binary, kNumeric};
    entries[BP_OP_SUB] = {"sub", OpKind::binary, kNumeric};
    entries[BP_OP_MUL] = {"mul", OpKind::binary, kNumeric};
    entries[BP_OP_DIV] = {"div", OpKind::binary, kFloat};
    entries[BP_OP_POW] = {"pow", OpKind::binary, kNumeric};
    entries[BP_OP_MAXIMUM] = {"maximum", OpKind::binary, kNumeric};
    entries[BP_OP_MINIMUM] = {"minimum", OpKind::binary, kNumeric};
    entries[BP_OP_EQ] = {"eq", OpKind::compare, kAll};
    entries[BP_OP_NE] = {"ne", OpKind::compare, kAll};
    entries[BP_OP_LT] = {"lt", OpKind::compare, kAll};
    entries[BP_OP_LE] = {"le", OpKind::compare, kAll};
    entries[BP_OP_GT] = {"gt", OpKind::compare, kAll};
    entries[BP_OP_GE] = {"ge", OpKind::compare, kAll};
    entries[BP_OP_WHERE] = {"where", OpKind::where, kAll};
    entries[BP_OP_NEG] = {"neg", OpKind::unary, kNumeric};
    entries[BP_OP_ABS] = {"abs", OpKind::unary, kNumeric};
    entries[BP_OP_EXP] = {"exp", OpKind::unary, kFloat};
    entries[BP_OP_LOG] = {"log", OpKind::unary, kFloat};
    entries[BP_OP_SQRT] = {"sqrt", OpKind::unary, kFloat};
    entries[BP_OP_TANH] = {"tanh", OpKind::unary, kFloat};
    entries[BP_OP_SIGMOID] = {"sigmoid", OpKind::unary, kFloat};
    entries[BP_OP_RELU] = {"relu", OpKind::unary, kNumeric};
    entries[BP_OP_SUM] = {"sum", OpKind::reduce, kAll};
    entries[BP_OP_MEAN] = {"mean", OpKind::reduce, kFloat};
    entries[BP_OP_MAX] = {"max", OpKind::reduce, kNumeric};
    entries[BP_OP_MIN] = {"min", OpKind::reduce, kNumeric};
    entries[BP_OP_ARGMAX] = {"argmax", OpKind::reduce, kNumeric};
    entries[BP_OP_NORM] = {"norm", OpKind::reduce, kFloat};
    entries[BP_OP_MATMUL] = {"matmul", OpKind::matmul, kNumeric};
    entries[BP_OP_COPY] = {"copy", OpKind::copy, kAll};
    entries[BP_OP_FILL] = {"fill", OpKind::create, kAll};
    entries[BP_OP_ARANGE] = {"arange", OpKind::create, kNumeric};
    entries[BP_OP_RANDOM_UNIFORM] = {"random_uniform", OpKind::create, kFloat};
    entries[BP_OP_RANDOM_NORMAL] = {"random_normal", OpKind::create, kFloat};
  }
};
constexpr Table kTable;

bool valid_dtype(int32_t dtype) { return dtype >= BP_FLOAT32 && dtype <= BP_BOOL; }

// SUM of integers and bool, and ARGMAX, write int64; the rest keep the dtype.
int32_t reduce_out_dtype(int32_t op, int32_t dtype) {
  if (op == BP_OP_ARGMAX) return BP_INT64;
  if (op == BP_OP_SUM && !(bit(dtype) & kFloat)) return BP_INT64;
  return dtype;
}

}  // namespace

const OpInfo *find_op(int32_t op) {
  if (op < 0 || op >= BP_OP_LIMIT || !kTable.entries[op].name) return nullptr;
  return &kTable.entries[op];
}

bool op_supports(int32_t op, int32_t dtype, int32_t out_dtype) {
  const OpInfo *info = find_op(op);
  if (!info || !valid_dtype(dtype) || !valid_dtype(out_dtype)) return false;
  const bool in = (info->dtypes & bit(dtype)) != 0;
  switch (info->kind) {
    case OpKind::binary:
    case OpKind::unary:
    case OpKind::matmul:
    case OpKind::create: return in && out_dtype == dtype;
    case OpKind::compare: return in && out_dtype == BP_BOOL;
    case OpKind::where: return in && out_dtype == dtype;  // dtype: the values', not the condition's
    case OpKind::reduce: return in && out_dtype == reduce_out_dtype(op, dtype);
    case OpKind::copy: return true;
  }
  return false;
}

std::string kernel_name(int32_t op, int32_t dtype) {
  const OpInfo *info = find_op(op);
  return std::string(info ? info->name : "operator") + " (" + dtype_name(dtype) + ")";
}

}  // namespace bp_cuda
