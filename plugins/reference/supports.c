/*
 * supports.c — which (op, dtype, out_dtype) triples this backend implements.
 *
 * The reference implements every operator of the ABI for every dtype pair
 * the ABI defines, so the answer is the vocabulary's own rule,
 * bp_vocab_allows() (types.h): no table of its own that could drift from
 * plugin.h. execute() asks the same rule through bp_sdk_check_execute(),
 * so supports() and execute() can never disagree.
 *
 * `dtype` and `out_dtype` mean what plugin.h says for supports(): the input
 * dtype (for WHERE the dtype of the two value inputs, for creation ops the
 * output dtype) and the output dtype. A plugin that implements less keeps
 * its own table here and refuses the rest in execute with
 * BP_ERR_UNSUPPORTED.
 */
#include "reference.h"

bp_status ref_supports(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype,
                       int32_t *answer) {
  bp_status status = ref_check_device("supports", device);
  if (status != BP_OK) return status;
  if (answer == NULL) return ref_fail(BP_ERR_INVALID_ARGUMENT, "supports: answer is NULL");
  /* An op or dtype number this plugin does not know (one a newer core
   * added) is a question with the answer "no", not an error: the
   * vocabulary's lookups answer 0 for it. */
  *answer = bp_vocab_allows(op, dtype, out_dtype);
  return BP_OK;
}
