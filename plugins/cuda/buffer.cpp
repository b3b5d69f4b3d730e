#include "buffer.hpp"

#include <cinttypes>
#include <memory>

#include "backplane/sdk/live_buffers.hpp"
#include "device.hpp"
#include "device_registry.hpp"
#include "errors.hpp"

namespace bp_cuda {

namespace {

bp_plugin::LiveBuffers<bp_buffer_s> &live_buffers() {
  static auto *const live = new bp_plugin::LiveBuffers<bp_buffer_s>("cuda", "cuda: ");  // never destroyed, like the registry
  return *live;
}

}  // namespace

bp_buffer_s &checked_buffer(bp_buffer buffer, const char *entry, const char *what) {
  return live_buffers().checked(buffer, entry, what);
}

int32_t live_buffer_bytes(void *, bp_buffer buffer, uint64_t *bytes) {
  return live_buffers().bytes(buffer, bytes, [](const bp_buffer_s &b) { return b.bytes; });
}

void check_range(const bp_buffer_s &buffer, uint64_t offset, uint64_t bytes, const char *entry, const char *what) {
  if (offset > buffer.bytes || bytes > buffer.bytes - offset)
    fail(BP_ERR_INVALID_ARGUMENT,
         "cuda: %s: %" PRIu64 " bytes at offset %" PRIu64 " do not fit in %s, which holds %" PRIu64 " bytes", entry,
         bytes, offset, what, buffer.bytes);
}

bp_buffer buffer_alloc(int32_t device_index, uint64_t bytes) {
  Device &device = device_at(device_index, "alloc");
  auto buffer = std::make_unique<bp_buffer_s>();
  buffer->device = &device;
  buffer->bytes = bytes;
  if (bytes > 0) {  // an empty buffer needs no memory (and no CUDA context)
    Device::Lock lock = device.lock();
    buffer->block = device.allocator(lock).allocate(lock, bytes);
  }
  device.bytes_in_use() += bytes;
  live_buffers().insert(buffer.get());
  return buffer.release();
}

void buffer_free(bp_buffer handle) {
  bp_buffer_s &buffer = live_buffers().take(handle, "free", "buffer");
  Device &device = *buffer.device;
  device.bytes_in_use() -= buffer.bytes;
  if (buffer.block.ptr) {
    Device::Lock lock = device.lock();
    device.allocator(lock).release(lock, buffer.block);
  }
  delete &buffer;
}

}  // namespace bp_cuda
