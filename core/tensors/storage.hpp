// A block of device memory owned by one backend, shared by every view of it.
// Reference counted by hand (intrusive) so that views cost one atomic add.
//
// A storage may take part in deferred elementwise work (fusion/fusion.hpp):
// as the not yet computed result of a recorded operator (its buffer is
// allocated only if someone still holds it when the work runs) or as an
// input the recorded work reads. Either way it is "pending", and every
// access to its memory (buffer(), host()) first runs that work, so code
// outside the fusion layer never sees the difference. A storage whose
// deferred computation failed keeps the error and throws it on access.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "backplane/plugin.h"

namespace bp::core {

struct Device;
class Error;

namespace fusion {
class Group;
}

class Storage {
 public:
  // Allocates `bytes` on the device through its backend (throws on failure).
  static Storage *allocate(Device &device, uint64_t bytes);
  // A storage over host memory someone else owns (bp_wrap_host): the
  // backend's wrap_host makes the buffer, and calls release(context) once
  // the buffer is freed. Throws, without calling release, on failure.
  static Storage *wrap(Device &device, void *data, uint64_t bytes, void (*release)(void *),
                       void *context);
  // A storage of `bytes` without memory yet, the result of recorded work
  // of `group` (fusion layer only).
  static Storage *deferred(Device &device, uint64_t bytes, fusion::Group *group);

  void retain() { refs_.fetch_add(1, std::memory_order_relaxed); }
  // Whether the caller's reference is the only one (no view elsewhere).
  bool unique() const { return refs_.load(std::memory_order_acquire) == 1; }
  int64_t use_count() const { return refs_.load(std::memory_order_acquire); }
  void release();

  Device &device() const { return *device_; }
  // The memory, after any pending work on this storage has run (which may
  // throw that work's error).
  bp_buffer buffer() const {
    settle();
    return buffer_;
  }
  uint64_t bytes() const { return bytes_; }
  // Host address of byte 0 for host-memory backends, else nullptr; after
  // any pending work, as buffer().
  void *host() const {
    settle();
    return host_;
  }

  // Counts the writes into existing tensors of this storage (the _out
  // functions, assign, scatter): autograd compares it with the count it
  // saw when it saved a tensor for a backward pass.
  uint64_t version() const { return version_.load(std::memory_order_acquire); }
  void bump_version() { version_.fetch_add(1, std::memory_order_acq_rel); }

  // ---- for the fusion layer only, under its per-device lock ----
  fusion::Group *pending() const { return pending_.load(std::memory_order_acquire); }
  void set_pending(fusion::Group *group) { pending_.store(group, std::memory_order_release); }
  bp_buffer raw_buffer() const { return buffer_; }
  // Allocates the memory of a deferred storage (throws on failure).
  void allocate_memory();
  // Marks the storage failed: every later access throws `error`.
  void fail_with(std::shared_ptr<const Error> error, fusion::Group *failed_marker);
  const std::shared_ptr<const Error> &failure() const { return failure_; }

 private:
  Storage(Device *device, bp_buffer buffer, uint64_t bytes, void *host)
      : device_(device), buffer_(buffer), bytes_(bytes), host_(host), allocated_(true) {}

  void settle() const {
    if (__builtin_expect(pending_.load(std::memory_order_acquire) != nullptr, 0)) settle_slow();
  }
  void settle_slow() const;

  std::atomic<int64_t> refs_{1};
  std::atomic<uint64_t> version_{0};
  // Set while deferred work writes or reads this storage; cleared (release)
  // once it ran, after buffer_ and host_ were set.
  std::atomic<fusion::Group *> pending_{nullptr};
  Device *device_;
  bp_buffer buffer_;
  uint64_t bytes_;
  void *host_;
  bool allocated_;
  std::shared_ptr<const Error> failure_;
};

// Runs the deferred work `storage` is pending on, or throws the error that
// work left it (Storage::buffer's slow path). The layer that defers work
// installs it: tensors/ sits below that layer and does not include it.
using PendingWorkHook = void (*)(Storage &storage);
void set_pending_work_hook(PendingWorkHook hook);

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
