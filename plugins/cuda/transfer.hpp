// The ways data moves: write (host -> device), read (device -> host) and
// copy (device -> device, on one GPU or between two).
#pragma once

#include <cstdint>

#include "backplane/plugin.h"

namespace bp_cuda {

// Enqueued through pinned staging (staging_ring.hpp); src is free to reuse
// on return.
void buffer_write(bp_buffer dst, uint64_t offset, const void *src, uint64_t bytes);
// After all earlier work on the buffer's device; chunked through pinned
// staging, the copy of one chunk overlapping the memcpy of the previous.
void buffer_read(bp_buffer src, uint64_t offset, void *dst, uint64_t bytes);
// Enqueued; ordered after earlier work on both devices, and later work on
// both devices is ordered after it.
void buffer_copy(bp_buffer src, uint64_t src_offset, bp_buffer dst, uint64_t dst_offset, uint64_t bytes);

}  // namespace bp_cuda
