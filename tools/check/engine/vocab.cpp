#include "vocab.hpp"

#include <cstdio>

namespace bpcheck {

namespace {

// `name`, or "<what> <number>" in a per-thread buffer for a number the
// vocabulary does not know.
const char *name_or_number(const char *name, const char *what, int32_t number) {
  if (name) return name;
  static thread_local char text[48];
  std::snprintf(text, sizeof text, "%s %d", what, int(number));
  return text;
}

}  // namespace

const std::vector<int32_t> &vocab_ops() {
#define BPCHECK_OP_(id, value, name, family, dtypes, out) value,
  static const std::vector<int32_t> ops = {BP_OP_LIST(BPCHECK_OP_)};
#undef BPCHECK_OP_
  return ops;
}

const std::vector<int32_t> &vocab_dtypes() {
#define BPCHECK_DTYPE_(id, value, name, size, kind) value,
  static const std::vector<int32_t> dtypes = {BP_DTYPE_LIST(BPCHECK_DTYPE_)};
#undef BPCHECK_DTYPE_
  return dtypes;
}

const char *op_name(int32_t op) { return name_or_number(bp_vocab_op_name(op), "op", op); }
const char *dtype_name(int32_t dtype) { return name_or_number(bp_vocab_dtype_name(dtype), "dtype", dtype); }
const char *status_name(int32_t status) {
  return name_or_number(bp_vocab_status_name(status), "status", status);
}

std::string combo_name(int32_t op, int32_t dtype, int32_t out_dtype) {
  std::string text = std::string(op_name(op)) + " " + dtype_name(dtype);
  if (out_dtype != dtype) text += std::string(" -> ") + dtype_name(out_dtype);
  return text;
}

}  // namespace bpcheck
