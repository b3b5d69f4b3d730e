// The dtype rules of every operator, decided once in the core so that every
// backend sees the same, already resolved problem (see backplane.h). They
// follow from each operator's dtype set and output rule in vocabulary.h.
#pragma once

#include <cstdint>

#include "backplane/backplane.h"

namespace bp::core {

bool is_float(int32_t dtype);
// Whether the vocabulary puts op in the bp_op_family `family`.
bool is_family(int32_t op, int32_t family);
// Two tensor operands' common dtype: bp_vocab_promote's table (types.h).
int32_t promote(int32_t a, int32_t b);

struct BinaryTypes {
  int32_t compute;  // dtype both inputs are cast to
  int32_t result;   // dtype of the output
};
// compute and result are BP_DTYPE_INVALID when no conversion makes op
// defined for the input (a float into a bitwise operator): see require_defined.
BinaryTypes binary_types(int32_t op, int32_t a, int32_t b);
// A scalar operand with a tensor of dtype a. scalar_kind is a bp_scalar_kind
// (backplane.h's table), or 0 for bp_binary_scalar's value-based rule of 1.0,
// where integral says the scalar is an integer the tensor's dtype holds.
BinaryTypes scalar_types(int32_t op, int32_t a, int32_t scalar_kind, bool integral);
// The scalar_kind of bp_binary_scalar's value-based rule of 1.0 (no
// bp_scalar_kind is 0).
inline constexpr int32_t kScalarByValue = 0;
// Whether the integer dtype holds value exactly (false for other dtypes).
bool integer_holds(int32_t dtype, double value);
BinaryTypes unary_types(int32_t op, int32_t a);
BinaryTypes reduce_types(int32_t op, int32_t a);

// Error(BP_ERR_DTYPE) naming op and the input dtype when types is undefined.
void require_defined(int32_t op, const BinaryTypes &types, int32_t dtype);

}  // namespace bp::core
