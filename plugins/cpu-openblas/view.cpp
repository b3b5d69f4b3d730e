#include "view.hpp"

#include <cinttypes>

#include "errors.hpp"

namespace cpu_backend {

int32_t live_buffer_bytes(void *, bp_buffer buffer, uint64_t *bytes) {
  if (buffer->magic != MemoryPool::kLiveMagic) return 0;
  *bytes = buffer->bytes;
  return 1;
}

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

}  // namespace cpu_backend
