// The core's names are the vocabulary's (backplane/vocabulary.h), with "?"
// for numbers it does not know, as the C API documents.
#include "errors/names.hpp"

namespace bp::core {

namespace {
const char *or_unknown(const char *name) { return name ? name : "?"; }
}  // namespace

const char *status_name(int32_t status) { return or_unknown(bp_vocab_status_name(status)); }
const char *dtype_name(int32_t dtype) { return or_unknown(bp_vocab_dtype_name(dtype)); }
const char *op_name(int32_t op) { return or_unknown(bp_vocab_op_name(op)); }
int32_t dtype_size(int32_t dtype) { return bp_vocab_dtype_size(dtype); }
bool valid_dtype(int32_t dtype) { return bp_vocab_dtype_size(dtype) != 0; }

}  // namespace bp::core
