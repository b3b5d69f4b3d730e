#include "view.hpp"

#include <cinttypes>
#include <string>

#include "dtype.hpp"
#include "errors.hpp"
#include "memory_pool.hpp"

namespace cpu_backend {

bp_buffer_s *check_buffer(bp_buffer buffer, const char *what) {
  if (!buffer) fail(BP_ERR_INVALID_ARGUMENT, "%s: the buffer is NULL", what);
  if (buffer->magic != MemoryPool::kLiveMagic)
    fail(BP_ERR_INVALID_ARGUMENT, "%s: the buffer is not a live buffer of cpu-openblas (freed already?)", what);
  return buffer;
}

void check_range(const bp_buffer_s *buffer, uint64_t offset, uint64_t bytes, const char *what) {
  if (offset > buffer->bytes || bytes > buffer->bytes - offset)
    fail(BP_ERR_INVALID_ARGUMENT,
         "%s: %" PRIu64 " bytes at offset %" PRIu64 " lie outside the buffer of %" PRIu64 " bytes", what,
         bytes, offset, buffer->bytes);
}

void fail_view(const bp_plugin_tensor *t, const char *op, const char *role, bool is_output) {
  if (!t) fail(BP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", op, role);
  if (dtype_size(t->dtype) == 0) fail(BP_ERR_INVALID_ARGUMENT, "%s: %s has invalid dtype %d", op, role, t->dtype);
  if (t->rank < 0 || t->rank > BP_MAX_RANK)
    fail(BP_ERR_SHAPE, "%s: %s has rank %d (0..%d allowed)", op, role, t->rank, BP_MAX_RANK);
  bool empty = false;
  for (int d = 0; d < t->rank; ++d) {
    if (t->shape[d] < 0) fail(BP_ERR_SHAPE, "%s: %s has extent %" PRId64 " on axis %d", op, role, t->shape[d], d);
    if (t->strides[d] < 0)
      fail(BP_ERR_INVALID_ARGUMENT, "%s: %s has stride %" PRId64 " on axis %d", op, role, t->strides[d], d);
    empty |= t->shape[d] == 0;
  }
  const bp_buffer_s *buffer = check_buffer(t->buffer, op);  // NULL or not live
  if (!empty) {
    if (is_output)
      for (int d = 0; d < t->rank; ++d)
        if (t->strides[d] == 0 && t->shape[d] > 1)
          fail(BP_ERR_INVALID_ARGUMENT, "%s: the output has stride 0 on axis %d of extent %" PRId64
               ", so its elements would overlap", op, d, t->shape[d]);
    const uint64_t size = static_cast<uint64_t>(dtype_size(t->dtype));
    if (t->offset % size != 0)
      fail(BP_ERR_INVALID_ARGUMENT, "%s: %s has offset %" PRIu64 ", not a multiple of the %s size", op, role,
           t->offset, dtype_name(t->dtype));
  }
  fail(BP_ERR_INVALID_ARGUMENT, "%s: %s addresses more elements or bytes than its buffer of %" PRIu64 " bytes holds",
       op, role, buffer->bytes);
}

std::string shape_text(int32_t rank, const int64_t *shape) {
  std::string s = "[";
  for (int d = 0; d < rank; ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + "]";
}

void fail_shape(const bp_plugin_tensor *t, const View &out, const char *op, const char *role) {
  fail(BP_ERR_SHAPE, "%s: %s has shape %s but the output has %s", op, role, shape_text(t->rank, t->shape).c_str(),
       shape_text(out.rank, out.shape).c_str());
}

}  // namespace cpu_backend
