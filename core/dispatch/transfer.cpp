// Moving data: host <-> device, and device -> device within a backend (the
// backend's copy) or across backends (staged through host memory, or read or
// written in place when one side's memory is host memory).
#include <algorithm>
#include <cstring>
#include <vector>

#include "devices/registry.hpp"
#include "dispatch/creation.hpp"
#include "dispatch/operators.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "fusion/fusion.hpp"
#include "loader/backend.hpp"
#include "trace/trace.hpp"

namespace bp::core {

namespace {

uint64_t nbytes(const View &v) { return uint64_t(v.numel()) * uint64_t(dtype_size(v.dtype)); }

void read_dense(const View &v, void *dst, uint64_t bytes) {
  if (!bytes) return;
  Backend &b = *v.device().backend;
  // Before the lock: pending work runs first, and calls the backend itself.
  bp_buffer buffer = v.storage->buffer();
  auto lock = b.call_lock();
  b.check(b.api().read(buffer, v.offset, dst, bytes), "read");
  b.counters.bytes_device_to_host.fetch_add(bytes, std::memory_order_relaxed);
}

void write_dense(const View &v, const void *src, uint64_t bytes) {
  if (!bytes) return;
  Backend &b = *v.device().backend;
  bp_buffer buffer = v.storage->buffer();  // before the lock, as in read_dense
  auto lock = b.call_lock();
  b.check(b.api().write(buffer, v.offset, src, bytes), "write");
  b.counters.bytes_host_to_device.fetch_add(bytes, std::memory_order_relaxed);
}

void check_host_buffer(const char *fn, const View &v, const void *data, uint64_t bytes) {
  uint64_t need = nbytes(v);
  if (bytes != need)
    fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": the tensor holds " + std::to_string(need) +
                                      " bytes (" + std::to_string(v.numel()) + " x " +
                                      dtype_name(v.dtype) + ") but the buffer is " +
                                      std::to_string(bytes) + " bytes");
  if (need && !data) fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": data is NULL");
}

// Bool storage holds only 0 and 1 (plugin.h), so every backend reads, sums
// and compares the same values: a caller's other nonzero bytes mean true and
// are normalised here, once for every backend.
const void *normalised(int32_t dtype, const void *data, uint64_t bytes,
                       std::vector<uint8_t> &scratch) {
  if (dtype != BP_BOOL || !data) return data;
  const auto *p = static_cast<const uint8_t *>(data);
  if (std::all_of(p, p + bytes, [](uint8_t b) { return b <= 1; })) return data;
  scratch.resize(bytes);
  std::transform(p, p + bytes, scratch.begin(), [](uint8_t b) { return uint8_t(b != 0); });
  return scratch.data();
}

}  // namespace

View from_host(Device &device, int32_t dtype, int32_t rank, const int64_t *shape,
               const void *data) {
  View v = allocate_view(device, dtype, rank, shape);
  uint64_t bytes = nbytes(v);
  if (bytes && !data) fail(BP_ERR_INVALID_ARGUMENT, "from_host: data is NULL");
  std::vector<uint8_t> scratch;
  write_dense(v, normalised(dtype, data, bytes, scratch), bytes);
  return v;
}

View wrap_host(Device &device, int32_t dtype, int32_t rank, const int64_t *shape, const int64_t *strides,
               void *data, void (*release)(void *), void *context) {
  if (!valid_dtype(dtype)) fail(BP_ERR_DTYPE, "bp_wrap_host: invalid dtype " + std::to_string(dtype));
  const int64_t n = checked_numel(rank, shape);
  const uint64_t size = uint64_t(dtype_size(dtype));
  // Elements from [0,...] to the farthest one the view reaches, inclusive.
  uint64_t span = n > 0 ? 1 : 0;
  for (int32_t d = 0; d < rank && n > 0; ++d) {
    const int64_t stride = strides ? strides[d] : 0;
    if (stride < 0)
      fail(BP_ERR_INVALID_ARGUMENT, "bp_wrap_host: stride " + std::to_string(stride) + " of axis " +
                                        std::to_string(d) + " is negative");
    uint64_t reach = 0;
    if (__builtin_mul_overflow(uint64_t(shape[d] - 1), uint64_t(stride), &reach) ||
        __builtin_add_overflow(span, reach, &span) || span > uint64_t(kMaxElements))
      fail(BP_ERR_SHAPE, "bp_wrap_host: strides reach past 2^56 elements");
  }
  if (!strides) span = uint64_t(n);
  const uint64_t bytes = span * size;
  if (bytes && !data) fail(BP_ERR_INVALID_ARGUMENT, "bp_wrap_host: data is NULL");
  if (reinterpret_cast<uintptr_t>(data) % size != 0)
    fail(BP_ERR_INVALID_ARGUMENT, "bp_wrap_host: data is not aligned to the " + std::to_string(size) +
                                      "-byte elements of " + dtype_name(dtype));
  View v(StorageRef(Storage::wrap(device, data, bytes, release, context)), dtype, rank, shape);
  if (strides) std::copy(strides, strides + rank, v.strides);
  return v;
}

void dispatch::from_host_into(const View &v, const void *data, uint64_t bytes) {
  check_host_buffer("from_host_into", v, data, bytes);
  if (v.contiguous()) {
    std::vector<uint8_t> scratch;
    write_dense(v, normalised(v.dtype, data, bytes, scratch), bytes);
  } else {
    View dense = from_host(v.device(), v.dtype, v.rank, v.shape, data);
    assign(v, dense);
  }
}

void to_host(const View &v, void *data, uint64_t bytes) {
  check_host_buffer("to_host", v, data, bytes);
  uint64_t need = bytes;
  if (v.contiguous()) {
    read_dense(v, data, need);
  } else {
    View dense = dispatch::contiguous_copy(v);
    read_dense(dense, data, need);
  }
}

View dispatch::copy_to(const View &v, Device &device) {
  View src = v.contiguous() ? v : contiguous_copy(v);
  View dst = allocate_view(device, src.dtype, src.rank, src.shape);
  uint64_t bytes = nbytes(src);
  Backend &from = *src.device().backend;
  Backend &to = *device.backend;
  auto copy = from.optional(&bp_plugin_api::copy);
  bool staged = false;
  if (bytes == 0) {
  } else if (&from == &to && copy) {
    const bp_buffer src_buffer = src.storage->buffer(), dst_buffer = dst.storage->buffer();  // as in read_dense
    auto lock = from.call_lock();
    from.check(copy(src_buffer, src.offset, dst_buffer, dst.offset, bytes), "copy");
    from.counters.bytes_device_to_device.fetch_add(bytes, std::memory_order_relaxed);
  } else if (dst.storage->host()) {
    // The destination is host memory: the source backend reads straight into it.
    read_dense(src, static_cast<char *>(dst.storage->host()) + dst.offset, bytes);
    staged = &from != &to;
  } else if (src.storage->host()) {
    wait(src);
    write_dense(dst, static_cast<const char *>(src.storage->host()) + src.offset, bytes);
    staged = &from != &to;
  } else {
    std::vector<unsigned char> host(bytes);
    read_dense(src, host.data(), bytes);
    write_dense(dst, host.data(), bytes);
    staged = true;
  }
  if (staged) from.counters.staged_copies.fetch_add(1, std::memory_order_relaxed);
  if (trace::on())
    trace::record("copy_to " + std::string(dtype_name(src.dtype)) + " " +
                  shape_string(src.rank, src.shape) + ": " + src.device().name + " -> " +
                  device.name + ", explicit copy of " + std::to_string(bytes) + " bytes" +
                  (staged ? " (through host memory)" : ""));
  return dst;
}

void wait(const View &v) {
  fusion::flush(v.device(), false);
  if (v.storage) v.storage->buffer();  // throws when its deferred computation failed
  Backend &b = *v.device().backend;
  auto lock = b.call_lock();
  b.check(b.api().synchronize(v.device().index), "synchronize");
}

}  // namespace bp::core
