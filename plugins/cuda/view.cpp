#include "view.hpp"

#include <cinttypes>

#include "device.hpp"
#include "dtype.hpp"
#include "errors.hpp"

namespace bp_cuda {

View check_view(const bp_plugin_tensor *t, const Device &device, const char *op, const char *role, bool is_output) {
  if (!t) fail(BP_ERR_INVALID_ARGUMENT, "cuda: %s: %s is NULL", op, role);
  const int64_t size = dtype_size(t->dtype);
  if (size == 0) fail(BP_ERR_INVALID_ARGUMENT, "cuda: %s: %s has invalid dtype %d", op, role, t->dtype);
  if (t->rank < 0 || t->rank > BP_MAX_RANK)
    fail(BP_ERR_SHAPE, "cuda: %s: %s has rank %d (0..%d allowed)", op, role, t->rank, BP_MAX_RANK);
  // numel, and the offset of the last element, both overflow-checked.
  int64_t numel = 1;
  uint64_t last = 0;
  bool overflow = false;
  int repeated_axis = -1;  // an axis of extent > 1 and stride 0
  for (int d = 0; d < t->rank; ++d) {
    const int64_t extent = t->shape[d], stride = t->strides[d];
    if (extent < 0) fail(BP_ERR_SHAPE, "cuda: %s: %s has extent %" PRId64 " on axis %d", op, role, extent, d);
    if (stride < 0)
      fail(BP_ERR_INVALID_ARGUMENT, "cuda: %s: %s has stride %" PRId64 " on axis %d", op, role, stride, d);
    if (stride == 0 && extent > 1) repeated_axis = d;
    uint64_t span;
    overflow |= __builtin_mul_overflow(numel, extent, &numel);
    overflow |=
        __builtin_mul_overflow(static_cast<uint64_t>(extent ? extent - 1 : 0), static_cast<uint64_t>(stride), &span);
    overflow |= __builtin_add_overflow(last, span, &last);
  }
  // An output whose elements share memory would be written by several
  // threads at once; an empty one has no elements to share.
  if (is_output && repeated_axis >= 0 && numel > 0)
    fail(BP_ERR_INVALID_ARGUMENT, "cuda: %s: %s has stride 0 on axis %d of extent %" PRId64, op, role, repeated_axis,
         t->shape[repeated_axis]);
  View v{nullptr, t->dtype, t->rank, numel, t->shape, t->strides, nullptr, 0, 0};
  if (numel == 0 && !t->buffer) return v;
  const bp_buffer_s &buffer = checked_buffer(t->buffer, op, role);
  if (buffer.device != &device)
    fail(BP_ERR_DEVICE_MISMATCH, "cuda: %s: %s is on %s, but the operator runs on %s", op, role, buffer.device->name(),
         device.name());
  v.buffer = &buffer;
  if (numel == 0) return v;
  uint64_t end;  // one past the last byte addressed
  overflow |= __builtin_add_overflow(last, uint64_t(1), &end);
  overflow |= __builtin_mul_overflow(end, static_cast<uint64_t>(size), &end);
  overflow |= __builtin_add_overflow(end, t->offset, &end);
  if (overflow)
    fail(BP_ERR_INVALID_ARGUMENT, "cuda: %s: %s has more elements or a larger extent than can be addressed", op, role);
  if (end > buffer.bytes)
    fail(BP_ERR_INVALID_ARGUMENT, "cuda: %s: %s addresses bytes beyond its buffer of %" PRIu64 " bytes", op, role,
         buffer.bytes);
  if (t->offset % static_cast<uint64_t>(size) != 0)
    fail(BP_ERR_INVALID_ARGUMENT, "cuda: %s: %s has offset %" PRIu64 ", not a multiple of the %s size", op, role,
         t->offset, dtype_name(t->dtype));
  v.base = buffer.data() + t->offset;
  v.first_byte = t->offset;
  v.end_byte = end;
  return v;
}

bool may_overlap(const View &a, const View &b) {
  return a.numel > 0 && b.numel > 0 && a.buffer == b.buffer && a.first_byte < b.end_byte && b.first_byte < a.end_byte;
}

}  // namespace bp_cuda
