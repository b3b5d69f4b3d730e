#include "tensors/storage.hpp"

#include <cstdio>
#include <memory>

#include "devices/registry.hpp"
#include "errors/error.hpp"
#include "loader/backend.hpp"
#include "loader/plugin_strings.hpp"

namespace bp::core {

namespace {

// Set once, at load time, by the fusion layer, before any storage can be
// pending: only that layer marks storages pending.
PendingWorkHook g_pending_work = nullptr;

// The backend's buffer of `bytes` on device and its host address, if any.
void allocate_buffer(Device &device, uint64_t bytes, bp_buffer &buffer, void *&host) {
  Backend &b = *device.backend;
  buffer = nullptr;
  host = nullptr;
  {
    auto lock = b.call_lock();
    b.check(b.api().alloc(device.index, bytes, &buffer), "alloc");
    auto host_address =
        b.optional(&bp_plugin_api::host_address);
    if (host_address && host_address(buffer, &host) != BP_OK) host = nullptr;
  }
  // The core writes through a host address (copies across backends, the
  // host fallback, bp_tensor_host_address): one from a plugin that is not
  // built in is checked before it is trusted.
  if (host && !b.builtin() && !memory_accessible(host, bytes, true)) {
    {
      auto lock = b.call_lock();
      b.api().free(buffer);
    }
    char address[32];
    std::snprintf(address, sizeof address, "%p", host);
    fail(BP_ERR_BACKEND, "backend " + b.name() + ": host_address gave " + address + " for a " +
                             std::to_string(bytes) + "-byte buffer, memory this process cannot write");
  }
  b.counters.allocations.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

Storage *Storage::allocate(Device &device, uint64_t bytes) {
  bp_buffer buffer;
  void *host;
  allocate_buffer(device, bytes, buffer, host);
  try {
    return new Storage(&device, buffer, bytes, host);
  } catch (...) {
    Backend &b = *device.backend;
    auto lock = b.call_lock();
    b.api().free(buffer);
    throw;
  }
}

Storage *Storage::wrap(Device &device, void *data, uint64_t bytes, void (*release)(void *),
                       void *context) {
  Backend &b = *device.backend;
  const auto wrap_host = b.optional(&bp_plugin_api::wrap_host);
  if (!wrap_host)
    fail(BP_ERR_UNSUPPORTED, "bp_wrap_host: backend " + b.name() + " of " + device.name +
                                 " cannot use memory it did not allocate (it has no wrap_host entry); "
                                 "copy the data with bp_from_host");
  // Made before the buffer: once the plugin has it, a failure here would
  // release memory the caller still believes is theirs.
  std::unique_ptr<Storage> s(new Storage(&device, nullptr, bytes, data));
  {
    auto lock = b.call_lock();
    b.check(wrap_host(device.index, data, bytes, release, context, &s->buffer_), "wrap_host");
  }
  return s.release();
}

Storage *Storage::deferred(Device &device, uint64_t bytes, fusion::Group *group) {
  Storage *s = new Storage(&device, nullptr, bytes, nullptr);
  s->allocated_ = false;
  s->pending_.store(group, std::memory_order_relaxed);
  return s;
}

void Storage::allocate_memory() {
  allocate_buffer(*device_, bytes_, buffer_, host_);
  allocated_ = true;
}

void Storage::fail_with(std::shared_ptr<const Error> error, fusion::Group *failed_marker) {
  failure_ = std::move(error);
  pending_.store(failed_marker, std::memory_order_release);
}

void set_pending_work_hook(PendingWorkHook hook) { g_pending_work = hook; }

void Storage::settle_slow() const { g_pending_work(const_cast<Storage &>(*this)); }

void Storage::release() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (allocated_) {
    Backend &b = *device_->backend;
    auto lock = b.call_lock();
    b.api().free(buffer_);  // a failure to free cannot be reported to anyone: the owner is gone
  }
  delete this;
}

}  // namespace bp::core
