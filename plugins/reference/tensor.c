/*
 * tensor.c — checking a bp_plugin_tensor (a strided view into a buffer) and
 * reaching its elements.
 *
 * The check is what makes the reference safe to point a buggy core at: no
 * view can make a kernel read or write outside the buffer it names.
 */
#include <inttypes.h>
#include <stddef.h>

#include "reference.h"

/* Unsigned arithmetic that sticks at UINT64_MAX instead of wrapping, so a
 * view with absurd extents compares as "too big" rather than overflowing
 * into a small number that would pass the bounds check. */
static uint64_t saturating_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t saturating_mul(uint64_t a, uint64_t b) {
  return (b != 0 && a > UINT64_MAX / b) ? UINT64_MAX : a * b;
}

bp_status ref_check_tensor(const bp_plugin_tensor *tensor, const char *role, int32_t device,
                           int is_output) {
  int32_t d;
  int64_t numel = 1;
  uint64_t element_size, span_elements, span_bytes, end;
  bp_status status;

  if (tensor == NULL) return ref_fail(BP_ERR_INVALID_ARGUMENT, "execute: %s is NULL", role);
  if (!ref_dtype_is_valid(tensor->dtype))
    return ref_fail(BP_ERR_INVALID_ARGUMENT, "execute: %s has dtype %d, which is not a bp_dtype",
                    role, (int)tensor->dtype);
  if (tensor->rank < 0 || tensor->rank > BP_MAX_RANK)
    return ref_fail(BP_ERR_SHAPE, "execute: %s has rank %d; ranks go from 0 to %d", role,
                    (int)tensor->rank, BP_MAX_RANK);

  for (d = 0; d < tensor->rank; ++d) {
    if (tensor->shape[d] < 0)
      return ref_fail(BP_ERR_SHAPE, "execute: %s has extent %" PRId64 " on axis %d", role,
                      tensor->shape[d], (int)d);
    if (tensor->strides[d] < 0)
      return ref_fail(BP_ERR_INVALID_ARGUMENT,
                      "execute: %s has stride %" PRId64 " on axis %d; strides must be >= 0",
                      role, tensor->strides[d], (int)d);
  }
  for (d = 0; d < tensor->rank; ++d) {
    if (tensor->shape[d] == 0) return BP_OK; /* no element: the buffer may be NULL */
    if (numel > INT64_MAX / tensor->shape[d])
      return ref_fail(BP_ERR_SHAPE, "execute: %s has more than 2^63 elements", role);
    numel *= tensor->shape[d];
  }
  /* Two output elements in one memory location would make the result
   * depend on the order of writes: that is always a caller's bug. (Checked
   * only for views that have elements: dense strides of a zero-size shape
   * legitimately contain zeros.) */
  for (d = 0; is_output && d < tensor->rank; ++d)
    if (tensor->strides[d] == 0 && tensor->shape[d] > 1)
      return ref_fail(BP_ERR_INVALID_ARGUMENT,
                      "execute: %s has stride 0 on axis %d of extent %" PRId64
                      ", so its elements would overlap", role, (int)d, tensor->shape[d]);

  status = ref_check_buffer("execute", role, tensor->buffer);
  if (status != BP_OK) return status;
  if (tensor->buffer->device != device)
    return ref_fail(BP_ERR_DEVICE_MISMATCH,
                    "execute: %s lives on " REF_NAME ":%d but the operator runs on " REF_NAME
                    ":%d", role, (int)tensor->buffer->device, (int)device);

  /* The elements of a view with non-negative strides span from element
   * [0,...,0] to element [shape-1,...]: 1 + sum((shape[d]-1) * stride[d])
   * elements, starting at the byte offset. All of it must be in the buffer. */
  element_size = ref_dtype_size(tensor->dtype);
  span_elements = 1;
  for (d = 0; d < tensor->rank; ++d)
    span_elements = saturating_add(
        span_elements, saturating_mul((uint64_t)(tensor->shape[d] - 1), (uint64_t)tensor->strides[d]));
  span_bytes = saturating_mul(span_elements, element_size);
  end = saturating_add(tensor->offset, span_bytes);
  if (end > tensor->buffer->size)
    return ref_fail(BP_ERR_INVALID_ARGUMENT,
                    "execute: %s reaches past the end of its buffer: it starts at byte %" PRIu64
                    " and spans %" PRIu64 " bytes, but the buffer holds %" PRIu64 " bytes",
                    role, tensor->offset, span_bytes, tensor->buffer->size);
  return BP_OK;
}

int64_t ref_numel(const bp_plugin_tensor *tensor) {
  int64_t numel = 1;
  int32_t d;
  for (d = 0; d < tensor->rank; ++d) numel *= tensor->shape[d];
  return numel;
}

int ref_same_shape(const bp_plugin_tensor *a, const bp_plugin_tensor *b) {
  int32_t d;
  if (a->rank != b->rank) return 0;
  for (d = 0; d < a->rank; ++d)
    if (a->shape[d] != b->shape[d]) return 0;
  return 1;
}

/* Address of the element at `index`: the view's byte offset plus, per axis,
 * index times stride elements. The bounds were checked once for the whole
 * view, so no index inside the shape can leave the buffer. */
static unsigned char *element_address(const bp_plugin_tensor *tensor, const int64_t *index) {
  int64_t element = 0;
  int32_t d;
  for (d = 0; d < tensor->rank; ++d) element += index[d] * tensor->strides[d];
  return tensor->buffer->data + tensor->offset + (uint64_t)element * ref_dtype_size(tensor->dtype);
}

ref_value ref_get(const bp_plugin_tensor *tensor, const int64_t *index) {
  return ref_load(tensor->dtype, element_address(tensor, index));
}

void ref_set(const bp_plugin_tensor *tensor, const int64_t *index, ref_value value) {
  ref_store(tensor->dtype, element_address(tensor, index), value);
}
