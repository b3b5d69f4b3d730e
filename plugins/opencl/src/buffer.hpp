// buffer.hpp — device memory handed to the core (bp_buffer): allocation,
// release, and the three ways data moves: write (host->device), read
// (device->host) and copy (device->device).
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>

#include "backplane/plugin.h"

namespace bp_ocl {
class Device;
}

// The definition behind the ABI's opaque handle. A buffer belongs to one
// device; its cl_mem lives in the context of that device's platform.
struct bp_buffer_s {
  bp_ocl::Device *device;
  cl_mem mem;     // NULL for a 0-byte buffer (OpenCL has no empty buffers)
  uint64_t size;  // bytes
};

namespace bp_ocl {

// The live buffer behind `buffer`, or BP_ERR_INVALID_ARGUMENT naming `entry`
// and `what` (NULL, freed, or never made by this plugin).
bp_buffer_s &checked_buffer(bp_buffer buffer, const char *entry, const char *what);
// For the SDK's validation of execute(): 1 and the buffer's size when
// `buffer` is a live buffer of this plugin (on any device), else 0.
int32_t live_buffer_bytes(void *context, bp_buffer buffer, uint64_t *bytes);
size_t live_buffer_count();

// A cl_mem of `bytes` (> 0) on `device`, or BP_ERR_OUT_OF_MEMORY naming the
// device and size. The limits are checked up front because some drivers
// (PoCL among them) only allocate on first use, when failing is too late.
cl_mem create_memory(Device &device, uint64_t bytes, const char *entry);

bp_buffer buffer_alloc(int32_t device, uint64_t bytes);
void buffer_free(bp_buffer buffer);
void buffer_write(bp_buffer dst, uint64_t offset, const void *src, uint64_t bytes);
void buffer_read(bp_buffer src, uint64_t offset, void *dst, uint64_t bytes);
void buffer_copy(bp_buffer src, uint64_t src_offset, bp_buffer dst, uint64_t dst_offset,
                 uint64_t bytes);

// What the three do once the arguments are checked, on any cl_mem of a
// device (a buffer's or a temporary one), bytes > 0. write_memory may return
// before the data is on the device (src is free to reuse at once);
// read_memory waits for all earlier work on the device; copy_memory is
// ordered after earlier work on both devices, later work on both is ordered
// after it, and the two ranges may overlap (memmove).
void write_memory(Device &device, cl_mem mem, uint64_t offset, const void *src, uint64_t bytes);
void read_memory(Device &device, cl_mem mem, uint64_t offset, void *dst, uint64_t bytes);
void copy_memory(Device &from, cl_mem src, uint64_t src_offset, Device &to, cl_mem dst,
                 uint64_t dst_offset, uint64_t bytes);

}  // namespace bp_ocl
