// A block of device memory owned by one backend, shared by every view of it.
// Reference counted by hand (intrusive) so that views cost one atomic add.
#pragma once

#include <atomic>
#include <cstdint>

#include "backplane/plugin.h"

namespace bp::core {

struct Device;

class Storage {
 public:
  // Allocates `bytes` on the device through its backend (throws on failure).
  static Storage *allocate(Device &device, uint64_t bytes);

  void retain() { refs_.fetch_add(1, std::memory_order_relaxed); }
  // Whether the caller's reference is the only one (no view elsewhere).
  bool unique() const { return refs_.load(std::memory_order_acquire) == 1; }
  void release();

  Device &device() const { return *device_; }
  bp_buffer buffer() const { return buffer_; }
  uint64_t bytes() const { return bytes_; }
  // Host address of byte 0 for host-memory backends, else nullptr.
  void *host() const { return host_; }

  // Counts the writes into existing tensors of this storage (the _out
  // functions, assign, scatter): autograd compares it with the count it
  // saw when it saved a tensor for a backward pass.
  uint64_t version() const { return version_.load(std::memory_order_acquire); }
  void bump_version() { version_.fetch_add(1, std::memory_order_acq_rel); }

 private:
  Storage(Device *device, bp_buffer buffer, uint64_t bytes, void *host)
      : device_(device), buffer_(buffer), bytes_(bytes), host_(host) {}

  std::atomic<int64_t> refs_{1};
  std::atomic<uint64_t> version_{0};
  Device *device_;
  bp_buffer buffer_;
  uint64_t bytes_;
  void *host_;
};

// Owning pointer to a Storage.
class StorageRef {
 public:
  StorageRef() = default;
  explicit StorageRef(Storage *adopt) : p_(adopt) {}
  StorageRef(const StorageRef &o) : p_(o.p_) {
    if (p_) p_->retain();
  }
  StorageRef(StorageRef &&o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  StorageRef &operator=(StorageRef o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~StorageRef() {
    if (p_) p_->release();
  }
  Storage *get() const { return p_; }
  Storage *operator->() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  Storage *p_ = nullptr;
};

}  // namespace bp::core
