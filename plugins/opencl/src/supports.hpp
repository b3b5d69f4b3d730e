// supports.hpp — what this backend implements: the one table that supports(),
// execute() and the kernel generator all consult, so they cannot disagree.
#pragma once

#include <cstdint>

namespace bp_ocl {

// How an operator uses its inputs (its vocabulary family; picks its kernels).
enum class OpKind { Unknown, Binary, Compare, Where, Unary, Reduce, Matmul, Copy, Create };

OpKind op_kind(int32_t op);
const char *op_name(int32_t op);  // "add", ... (the vocabulary's)

// True when a device with (fp64 ? float64 : no float64) implements op for
// (dtype, out_dtype) as plugin.h defines those for supports(); for WHERE,
// dtype is that of the two value inputs (input 0 is always bool).
bool implements(int32_t op, int32_t dtype, int32_t out_dtype, bool fp64);

}  // namespace bp_ocl
