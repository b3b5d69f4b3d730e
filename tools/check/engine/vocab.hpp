// The ABI's numbers as the kit walks and names them, all derived from the
// lists of backplane/vocabulary.h (through the lookups of types.h): an
// operator, dtype or status the lists gain is walked and named here without
// a change. Numbers the lists do not know (a plugin's garbage) are spelled
// out ("op 99") instead of failing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backplane/plugin.h"

namespace bpcheck {

// Every operator of BP_OP_LIST and every dtype of BP_DTYPE_LIST, in list order.
const std::vector<int32_t> &vocab_ops();
const std::vector<int32_t> &vocab_dtypes();

const char *op_name(int32_t op);          // "add", or "op 99"
const char *dtype_name(int32_t dtype);    // "float32", or "dtype 99"
const char *status_name(int32_t status);  // "BP_ERR_UNSUPPORTED", or "status 99"

// The operator's bp_op_family, 0 when unknown.
inline int32_t op_family(int32_t op) { return bp_vocab_op_family(op); }
inline bool is_float(int32_t dtype) { return bp_vocab_dtype_kind(dtype) == BP_DTYPE_KIND_FLOAT; }
inline bool is_bool(int32_t dtype) { return bp_vocab_dtype_kind(dtype) == BP_DTYPE_KIND_BOOL; }
// Signed or unsigned integers (not bool).
inline bool is_integer(int32_t dtype) {
  const int32_t kind = bp_vocab_dtype_kind(dtype);
  return kind == BP_DTYPE_KIND_SIGNED_INT || kind == BP_DTYPE_KIND_UNSIGNED_INT;
}

// "add float32", "copy int32 -> float64", "sum int32 -> int64".
std::string combo_name(int32_t op, int32_t dtype, int32_t out_dtype);

}  // namespace bpcheck
