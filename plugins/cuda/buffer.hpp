// Device memory handed to the core (bp_buffer): a block of one device's
// caching allocator, and the registry of live buffers that lets a freed,
// foreign or garbage handle be reported instead of crashing the driver.
#pragma once

#include <cstdint>

#include "backplane/plugin.h"
#include "caching_allocator.hpp"

namespace bp_cuda {
class Device;
}

struct bp_buffer_s {
  bp_cuda::Device *device;
  bp_cuda::CachingAllocator::Block block;  // no memory for a 0-byte buffer
  uint64_t bytes;                          // as requested
  char *data() const { return static_cast<char *>(block.ptr); }
};

namespace bp_cuda {

// The live buffer behind `buffer`, or BP_ERR_INVALID_ARGUMENT naming
// `entry` and `what` (NULL, freed, or not made by this plugin).
bp_buffer_s &checked_buffer(bp_buffer buffer, const char *entry, const char *what);

// For the SDK's validation of execute(): 1 and the buffer's size when
// `buffer` is a live buffer of this plugin (on any device), else 0.
int32_t live_buffer_bytes(void *context, bp_buffer buffer, uint64_t *bytes);

// BP_ERR_INVALID_ARGUMENT unless [offset, offset + bytes) lies in the buffer.
void check_range(const bp_buffer_s &buffer, uint64_t offset, uint64_t bytes, const char *entry, const char *what);

bp_buffer buffer_alloc(int32_t device, uint64_t bytes);
// The memory goes back to the device's cache at once; work already issued
// that uses it still runs first (see caching_allocator.hpp).
void buffer_free(bp_buffer buffer);

}  // namespace bp_cuda
