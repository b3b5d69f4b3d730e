#include "dispatch/dtype_rules.hpp"

namespace bp::core {

namespace {
int rank_of(int32_t dtype) {
  switch (dtype) {
    case BP_BOOL: return 0;
    case BP_INT32: return 1;
    case BP_INT64: return 2;
    case BP_FLOAT32: return 3;
    case BP_FLOAT64: return 4;
  }
  return -1;
}

bool is_arithmetic(int32_t op) {
  return op == BP_OP_ADD || op == BP_OP_SUB || op == BP_OP_MUL || op == BP_OP_POW ||
         op == BP_OP_MAXIMUM || op == BP_OP_MINIMUM;
}

BinaryTypes resolve(int32_t op, int32_t compute) {
  if (is_comparison(op)) return {compute, BP_BOOL};
  if (op == BP_OP_DIV && !is_float(compute)) compute = BP_FLOAT64;
  if (is_arithmetic(op) && compute == BP_BOOL) compute = BP_INT32;
  return {compute, compute};
}
}  // namespace

bool is_float(int32_t dtype) { return dtype == BP_FLOAT32 || dtype == BP_FLOAT64; }

bool is_comparison(int32_t op) { return op >= BP_OP_EQ && op <= BP_OP_GE; }

int32_t promote(int32_t a, int32_t b) { return rank_of(a) >= rank_of(b) ? a : b; }

BinaryTypes binary_types(int32_t op, int32_t a, int32_t b) { return resolve(op, promote(a, b)); }

BinaryTypes scalar_types(int32_t op, int32_t a, bool integral) {
  int32_t compute = a;
  if (!is_float(a) && !integral) compute = BP_FLOAT64;
  // A scalar compared with a bool tensor compares numbers, not truth values.
  if (is_comparison(op) && compute == BP_BOOL) compute = BP_INT32;
  return resolve(op, compute);
}

BinaryTypes unary_types(int32_t op, int32_t a) {
  switch (op) {
    case BP_OP_EXP:
    case BP_OP_LOG:
    case BP_OP_SQRT:
    case BP_OP_TANH:
    case BP_OP_SIGMOID:
      return is_float(a) ? BinaryTypes{a, a} : BinaryTypes{BP_FLOAT64, BP_FLOAT64};
    default:  // NEG, ABS, RELU
      return a == BP_BOOL ? BinaryTypes{BP_INT32, BP_INT32} : BinaryTypes{a, a};
  }
}

BinaryTypes reduce_types(int32_t op, int32_t a) {
  switch (op) {
    case BP_OP_SUM:
      return is_float(a) ? BinaryTypes{a, a} : BinaryTypes{a, BP_INT64};
    case BP_OP_MEAN:
    case BP_OP_NORM:
      return is_float(a) ? BinaryTypes{a, a} : BinaryTypes{BP_FLOAT64, BP_FLOAT64};
    case BP_OP_ARGMAX:
      return {a == BP_BOOL ? BP_INT32 : a, BP_INT64};
    default:  // MAX, MIN
      return a == BP_BOOL ? BinaryTypes{BP_INT32, BP_INT32} : BinaryTypes{a, a};
  }
}

}  // namespace bp::core
