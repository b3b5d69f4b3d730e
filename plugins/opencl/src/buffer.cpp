// buffer.cpp — allocation, host transfers and device-to-device copies.
//
// Ordering: every command that touches a buffer goes to the in-order queue
// of the buffer's device, except that a copy between two devices also waits
// for (and then holds back) the source device's queue; see buffer_copy.
// Release: clReleaseMemObject only drops our reference. OpenCL deletes the
// memory once the commands already enqueued on it have finished, which is
// exactly "free after pending work" (plugin.h) with no bookkeeping of ours.
#include "buffer.hpp"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "backplane/sdk/live_buffers.hpp"
#include "backplane/sdk/unique_handle.hpp"
#include "device.hpp"
#include "errors.hpp"
#include "platform.hpp"

namespace bp_ocl {

namespace {

bp_plugin::LiveBuffers<bp_buffer_s> g_live("opencl", "");

void check_range(const char *entry, const char *what, const bp_buffer_s &b, uint64_t offset,
                 uint64_t bytes) {
  if (offset > b.size || bytes > b.size - offset)
    fail(BP_ERR_INVALID_ARGUMENT,
         "%s: %llu bytes at offset %llu do not fit in %s, which holds %llu bytes", entry,
         static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(offset), what,
         static_cast<unsigned long long>(b.size));
}

// Owns one reference to an event.
struct ReleaseEvent {
  void operator()(cl_event event) const { clReleaseEvent(event); }
};
using Event = bp_plugin::UniqueHandle<cl_event, ReleaseEvent>;

void CL_CALLBACK free_staging(cl_event, cl_int, void *staging) { std::free(staging); }

void enqueue_copy(Device &device, const Device::Lock &lock, cl_mem src, uint64_t src_offset,
                  cl_mem dst, uint64_t dst_offset, uint64_t bytes) {
  Event done;
  check_cl(clEnqueueCopyBuffer(device.queue(lock), src, dst, src_offset, dst_offset, bytes, 0,
                               nullptr, done.ptr()),
           "clEnqueueCopyBuffer", device.name());
  device.enqueued(lock, done.release());
}

}  // namespace

bp_buffer_s &checked_buffer(bp_buffer buffer, const char *entry, const char *what) {
  return g_live.checked(buffer, entry, what);
}

int32_t live_buffer_bytes(void *, bp_buffer buffer, uint64_t *bytes) {
  return g_live.bytes(buffer, bytes, [](const bp_buffer_s &b) { return b.size; });
}

size_t live_buffer_count() { return g_live.size(); }

cl_mem create_memory(Device &device, uint64_t bytes, const char *entry) {
  const DeviceInfo &info = device.info();
  const std::string what = std::string(entry) + ": cannot allocate " + std::to_string(bytes) +
                           " bytes on " + device.name() + ": ";
  if (bytes > info.max_alloc)
    fail(BP_ERR_OUT_OF_MEMORY,
         "%sthe largest single allocation is %llu bytes (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
         what.c_str(), static_cast<unsigned long long>(info.max_alloc));
  const uint64_t used = device.bytes_in_use().load();
  if (bytes > info.global_mem || used > info.global_mem - bytes)
    fail(BP_ERR_OUT_OF_MEMORY, "%s%llu of its %llu bytes (CL_DEVICE_GLOBAL_MEM_SIZE) are in use",
         what.c_str(), static_cast<unsigned long long>(used),
         static_cast<unsigned long long>(info.global_mem));
  cl_int err = CL_SUCCESS;
  // In whole 32-bit words: an atomic update of an 8- or 16-bit element
  // swaps the word that holds it (SCATTER_ADD_ND), which must not reach
  // past the memory object.
  const uint64_t words = (bytes + 3) / 4 * 4;
  cl_mem mem = clCreateBuffer(device.context(), CL_MEM_READ_WRITE, words, nullptr, &err);
  if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
      err == CL_OUT_OF_HOST_MEMORY || err == CL_INVALID_BUFFER_SIZE)
    fail(BP_ERR_OUT_OF_MEMORY, "%sclCreateBuffer: %s", what.c_str(), cl_error_name(err));
  check_cl(err, "clCreateBuffer", device.name());
  return mem;
}

bp_buffer buffer_alloc(int32_t device_index, uint64_t bytes) {
  Device &device = backend("alloc").device(device_index, "alloc");
  auto buffer = std::make_unique<bp_buffer_s>();
  buffer->device = &device;
  buffer->size = bytes;
  buffer->mem = bytes ? create_memory(device, bytes, "alloc") : nullptr;
  device.bytes_in_use() += bytes;
  g_live.insert(buffer.get());
  return buffer.release();
}

void buffer_free(bp_buffer buffer) {
  bp_buffer_s &b = g_live.take(buffer, "free", "buffer");
  b.device->bytes_in_use() -= b.size;
  // Deferred by OpenCL until pending commands on it finish (see the top).
  const cl_int err = b.mem ? clReleaseMemObject(b.mem) : CL_SUCCESS;
  const std::string where = b.device->name();
  delete &b;
  check_cl(err, "clReleaseMemObject", where);
}

void buffer_write(bp_buffer dst, uint64_t offset, const void *src, uint64_t bytes) {
  bp_buffer_s &b = checked_buffer(dst, "write", "dst");
  check_range("write", "dst", b, offset, bytes);
  if (bytes == 0) return;
  if (!src) fail(BP_ERR_INVALID_ARGUMENT, "write: src is NULL");
  write_memory(*b.device, b.mem, offset, src, bytes);
}

void write_memory(Device &device, cl_mem mem, uint64_t offset, const void *src, uint64_t bytes) {
  Device::Lock lock = device.lock();
  cl_command_queue queue = device.queue(lock);
  if (device.idle(lock)) {
    // Nothing runs before it, so waiting for this write costs nothing extra,
    // saves a host copy, and src is free to reuse when we return.
    check_cl(clEnqueueWriteBuffer(queue, mem, CL_TRUE, offset, bytes, src, 0, nullptr, nullptr),
             "clEnqueueWriteBuffer", device.name());
    return;
  }
  // Earlier work is still running: stay asynchronous by writing from a
  // private copy of src, freed by the driver's completion callback.
  void *staging = std::malloc(bytes);
  if (!staging)
    fail(BP_ERR_OUT_OF_MEMORY, "write: cannot allocate %llu bytes of host staging memory for %s",
         static_cast<unsigned long long>(bytes), device.name().c_str());
  std::memcpy(staging, src, bytes);
  Event done;
  cl_int err =
      clEnqueueWriteBuffer(queue, mem, CL_FALSE, offset, bytes, staging, 0, nullptr, done.ptr());
  if (err != CL_SUCCESS) std::free(staging);
  check_cl(err, "clEnqueueWriteBuffer", device.name());
  err = clSetEventCallback(done.get(), CL_COMPLETE, free_staging, staging);
  if (err != CL_SUCCESS) {
    clWaitForEvents(1, done.ptr());
    std::free(staging);
  }
  check_cl(err, "clSetEventCallback", device.name());
  device.enqueued(lock, done.release());
}

void buffer_read(bp_buffer src, uint64_t offset, void *dst, uint64_t bytes) {
  bp_buffer_s &b = checked_buffer(src, "read", "src");
  check_range("read", "src", b, offset, bytes);
  if (bytes == 0) return;
  if (!dst) fail(BP_ERR_INVALID_ARGUMENT, "read: dst is NULL");
  read_memory(*b.device, b.mem, offset, dst, bytes);
}

void read_memory(Device &device, cl_mem mem, uint64_t offset, void *dst, uint64_t bytes) {
  cl_command_queue queue;
  {
    Device::Lock lock = device.lock();
    queue = device.queue(lock);
  }
  // Blocking, on the in-order queue: it runs after all earlier work on the
  // device. The lock is not held, so other threads can keep issuing work.
  check_cl(clEnqueueReadBuffer(queue, mem, CL_TRUE, offset, bytes, dst, 0, nullptr, nullptr),
           "clEnqueueReadBuffer", device.name());
}

void buffer_copy(bp_buffer src, uint64_t src_offset, bp_buffer dst, uint64_t dst_offset,
                 uint64_t bytes) {
  bp_buffer_s &s = checked_buffer(src, "copy", "src");
  bp_buffer_s &d = checked_buffer(dst, "copy", "dst");
  check_range("copy", "src", s, src_offset, bytes);
  check_range("copy", "dst", d, dst_offset, bytes);
  if (bytes == 0) return;
  copy_memory(*s.device, s.mem, src_offset, *d.device, d.mem, dst_offset, bytes);
}

void copy_memory(Device &from, cl_mem src, uint64_t src_offset, Device &to, cl_mem dst,
                 uint64_t dst_offset, uint64_t bytes) {
  if (&from.platform() != &to.platform()) {
    // Different platforms share no context: through host memory. The read
    // waits for the source device, the write is ordered on the destination.
    std::vector<unsigned char> host(bytes);
    read_memory(from, src, src_offset, host.data(), bytes);
    write_memory(to, dst, dst_offset, host.data(), bytes);
    return;
  }

  if (&from == &to) {
    Device::Lock lock = from.lock();
    const bool overlap =
        src == dst && src_offset < dst_offset + bytes && dst_offset < src_offset + bytes;
    if (!overlap) {
      enqueue_copy(from, lock, src, src_offset, dst, dst_offset, bytes);
      return;
    }
    // clEnqueueCopyBuffer refuses overlapping ranges (CL_MEM_COPY_OVERLAP);
    // memmove semantics through a scratch buffer released when done.
    cl_mem scratch = create_memory(from, bytes, "copy");
    try {
      enqueue_copy(from, lock, src, src_offset, scratch, 0, bytes);
      enqueue_copy(from, lock, scratch, 0, dst, dst_offset, bytes);
    } catch (...) {
      clReleaseMemObject(scratch);
      throw;
    }
    clReleaseMemObject(scratch);
    return;
  }

  // Two devices of one context. The copy runs on the destination's queue
  // (so later work there sees the data) once the source's queue has done
  // everything issued before; then the source's queue waits for the copy, so
  // that later work there cannot overwrite src while it is being read.
  Device::Lock lock_from(from.mutex(), std::defer_lock), lock_to(to.mutex(), std::defer_lock);
  std::lock(lock_from, lock_to);
  Event ready(from.marker(lock_from)), done, after;
  check_cl(clEnqueueCopyBuffer(to.queue(lock_to), src, dst, src_offset, dst_offset, bytes, 1,
                               ready.ptr(), done.ptr()),
           "clEnqueueCopyBuffer", from.name() + " -> " + to.name());
  check_cl(clRetainEvent(done.get()), "clRetainEvent", to.name());
  to.enqueued(lock_to, done.get());
  check_cl(clEnqueueBarrierWithWaitList(from.queue(lock_from), 1, done.ptr(), after.ptr()),
           "clEnqueueBarrierWithWaitList", from.name());
  from.enqueued(lock_from, after.release());
}

}  // namespace bp_ocl
