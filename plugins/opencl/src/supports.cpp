// supports.cpp — the capability table, derived from the vocabulary.
#include "supports.hpp"

#include "backplane/plugin_sdk.hpp"
#include "dtype.hpp"

namespace bp_ocl {

OpKind op_kind(int32_t op) {
  switch (bp_vocab_op_family(op)) {
    case BP_OP_FAMILY_BINARY: return OpKind::Binary;
    case BP_OP_FAMILY_COMPARE: return OpKind::Compare;
    case BP_OP_FAMILY_WHERE: return OpKind::Where;
    case BP_OP_FAMILY_UNARY: return OpKind::Unary;
    case BP_OP_FAMILY_REDUCE: return OpKind::Reduce;
    case BP_OP_FAMILY_MATMUL: return OpKind::Matmul;
    case BP_OP_FAMILY_COPY: return OpKind::Copy;
    case BP_OP_FAMILY_CREATE: return OpKind::Create;
    default: return OpKind::Unknown;
  }
}

const char *op_name(int32_t op) { return bp_plugin::op_name(op); }

bool implements(int32_t op, int32_t dtype, int32_t out_dtype, bool fp64) {
  // The kernels cover every (dtype, out_dtype) pair the ABI defines...
  if (!bp_vocab_allows(op, dtype, out_dtype)) return false;
  // ...but nothing float64 runs on a device without it, conversions included,
  if (!fp64 && (dtype == BP_FLOAT64 || out_dtype == BP_FLOAT64)) return false;
  // and ARANGE is defined as a float64 computation: without float64 on the
  // device it could not give the values the other backends give.
  return op != BP_OP_ARANGE || fp64;
}

}  // namespace bp_ocl
