/*
 * tensor.c — reaching the elements of a bp_plugin_tensor (a strided view
 * into a buffer).
 *
 * execute.c has every view checked first (bp_sdk_check_view, through
 * bp_sdk_check_execute): a known dtype, extents and strides >= 0, and every
 * element the view reaches inside its live buffer. That check is what makes
 * the reference safe to point a buggy core at; the code here can then
 * address elements without any test of its own.
 */
#include <stddef.h>

#include "reference.h"

int64_t ref_numel(const bp_plugin_tensor *tensor) {
  int64_t numel = 1;
  int32_t d;
  for (d = 0; d < tensor->rank; ++d) numel *= tensor->shape[d];
  return numel;
}

/* Address of the element at `index`: the view's byte offset plus, per axis,
 * index times stride elements. The bounds were checked once for the whole
 * view, so no index inside the shape can leave the buffer. */
static unsigned char *element_address(const bp_plugin_tensor *tensor, const int64_t *index) {
  int64_t element = 0;
  int32_t d;
  for (d = 0; d < tensor->rank; ++d) element += index[d] * tensor->strides[d];
  return tensor->buffer->data + tensor->offset + (uint64_t)element * (uint64_t)bp_vocab_dtype_size(tensor->dtype);
}

ref_value ref_get(const bp_plugin_tensor *tensor, const int64_t *index) {
  return ref_load(tensor->dtype, element_address(tensor, index));
}

void ref_set(const bp_plugin_tensor *tensor, const int64_t *index, ref_value value) {
  ref_store(tensor->dtype, element_address(tensor, index), value);
}
