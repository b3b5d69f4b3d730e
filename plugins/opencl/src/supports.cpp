// supports.cpp — the capability table.
#include "supports.hpp"

#include "backplane/types.h"
#include "backplane/plugin_sdk.hpp"
#include "dtype.hpp"

namespace bp_ocl {

OpKind op_kind(int32_t op) {
  switch (op) {
    case BP_OP_ADD: case BP_OP_SUB: case BP_OP_MUL: case BP_OP_DIV: case BP_OP_POW:
    case BP_OP_MAXIMUM: case BP_OP_MINIMUM:
      return OpKind::Binary;
    case BP_OP_EQ: case BP_OP_NE: case BP_OP_LT: case BP_OP_LE: case BP_OP_GT: case BP_OP_GE:
      return OpKind::Compare;
    case BP_OP_WHERE:
      return OpKind::Where;
    case BP_OP_NEG: case BP_OP_ABS: case BP_OP_EXP: case BP_OP_LOG: case BP_OP_SQRT:
    case BP_OP_TANH: case BP_OP_SIGMOID: case BP_OP_RELU:
      return OpKind::Unary;
    case BP_OP_SUM: case BP_OP_MEAN: case BP_OP_MAX: case BP_OP_MIN: case BP_OP_ARGMAX:
    case BP_OP_NORM:
      return OpKind::Reduce;
    case BP_OP_MATMUL:
      return OpKind::Matmul;
    case BP_OP_COPY:
      return OpKind::Copy;
    case BP_OP_FILL: case BP_OP_ARANGE: case BP_OP_RANDOM_UNIFORM: case BP_OP_RANDOM_NORMAL:
      return OpKind::Create;
    default:
      return OpKind::Unknown;
  }
}

const char *op_name(int32_t op) { return bp_plugin::op_name(op); }

namespace {

bool numeric(int32_t dtype) { return dtype_is_float(dtype) || dtype_is_integer(dtype); }

// Transcendental unary ops are float-only: the core turns integers into
// float64 before it asks (backplane.h).
bool float_only_unary(int32_t op) {
  return op == BP_OP_EXP || op == BP_OP_LOG || op == BP_OP_SQRT || op == BP_OP_TANH ||
         op == BP_OP_SIGMOID;
}

}  // namespace

bool implements(int32_t op, int32_t dtype, int32_t out_dtype, bool fp64) {
  if (!dtype_valid(dtype) || !dtype_valid(out_dtype)) return false;
  // Nothing float64 runs on a device without it, conversions included.
  if (!fp64 && (dtype == BP_FLOAT64 || out_dtype == BP_FLOAT64)) return false;
  switch (op_kind(op)) {
    case OpKind::Binary:
      // Arithmetic on bool is computed in int32 by the core; DIV is float only.
      if (out_dtype != dtype) return false;
      return op == BP_OP_DIV ? dtype_is_float(dtype) : numeric(dtype);
    case OpKind::Compare:
      return out_dtype == BP_BOOL;
    case OpKind::Where:  // dtype is that of the two value inputs (input 0 is bool)
      return dtype == out_dtype;
    case OpKind::Unary:
      if (out_dtype != dtype) return false;
      return float_only_unary(op) ? dtype_is_float(dtype) : numeric(dtype);
    case OpKind::Reduce:
      switch (op) {
        case BP_OP_SUM:
          return out_dtype == (dtype_is_float(dtype) ? dtype : BP_INT64);
        case BP_OP_MEAN:
        case BP_OP_NORM:
          return dtype_is_float(dtype) && out_dtype == dtype;
        case BP_OP_ARGMAX:
          return numeric(dtype) && out_dtype == BP_INT64;
        default:  // MAX, MIN
          return numeric(dtype) && out_dtype == dtype;
      }
    case OpKind::Matmul:
      return numeric(dtype) && out_dtype == dtype;
    case OpKind::Copy:
      return true;
    case OpKind::Create:
      if (out_dtype != dtype) return false;
      if (op == BP_OP_RANDOM_UNIFORM || op == BP_OP_RANDOM_NORMAL) return dtype_is_float(dtype);
      // ARANGE is defined as a float64 computation: without float64 on the
      // device it could not give the values the other backends give.
      if (op == BP_OP_ARANGE) return fp64 && numeric(dtype);
      return true;
    case OpKind::Unknown:
      break;
  }
  return false;
}

}  // namespace bp_ocl
