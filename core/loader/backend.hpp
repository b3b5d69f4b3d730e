// One loaded plugin: its ABI table, its lazy start, its capability cache and
// its counters. Every call into a plugin goes through here, so the plugin's
// status codes and messages become core Errors in one place.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "backplane/backplane.h"
#include "backplane/plugin.h"

namespace bp::core {

struct Device;

struct BackendCounters {
  std::atomic<uint64_t> ops{0};
  std::atomic<uint64_t> allocations{0};
  std::atomic<uint64_t> bytes_host_to_device{0};
  std::atomic<uint64_t> bytes_device_to_host{0};
  std::atomic<uint64_t> bytes_device_to_device{0};
  std::atomic<uint64_t> staged_copies{0};
};

using BackendOptions = std::vector<std::pair<std::string, std::string>>;

class Backend {
 public:
  Backend(const Backend &) = delete;
  Backend &operator=(const Backend &) = delete;

  // The one Backend of the plugin whose table this is, made on first use and
  // kept for the life of the process: plugins have no shutdown (ABI 1.x), so
  // a plugin's init runs at most once per process, whichever runtime asks.
  // A runtime restarted for tests (backplane/testing.h) gets the same object
  // back, with its own options: start() fails with BP_ERR_CONFIG when they
  // are not those init ran with. Keyed by the table's init function, the
  // code that holds the plugin's state.
  static Backend *adopt(std::string path, const bp_plugin_api *api, uint32_t api_size, BackendOptions options,
                        bool builtin);
  // When a runtime stops (a restart, or a start that failed), the registry
  // forgets every device: each backend's next start() lists them again,
  // without a second init.
  static void unlist_all();

  const std::string &path() const { return path_; }
  const std::string &name() const { return name_; }
  const std::string &version() const { return version_; }
  const std::string &prefix() const { return prefix_; }
  // From the directory beside libbackplane.so (plugin_loader.hpp).
  bool builtin() const { return builtin_; }
  const bp_plugin_api &api() const { return *api_; }

  // An optional entry, or nullptr when the plugin's table (built against an
  // older minor version) ends before it. The entry's end offset comes from
  // the member itself, so a 1.1 entry is never read from a 1.0 table.
  template <class Fn>
  Fn optional(Fn bp_plugin_api::*member) const {
    static const bp_plugin_api layout{};
    const size_t end = size_t(reinterpret_cast<const char *>(&(layout.*member)) -
                              reinterpret_cast<const char *>(&layout)) +
                       sizeof(Fn);
    return api_size_ >= end ? api_->*member : nullptr;
  }

  // Calls init and enumerates devices once; false when either failed (the
  // reason is start_error()). Thread-safe.
  bool start();
  bool started() const { return started_.load(std::memory_order_acquire); }
  const std::string &start_error() const { return start_error_; }
  // The status of the failed start (BP_ERR_CONFIG: init refused an option).
  bp_status start_status() const { return start_status_; }
  const std::string &why_no_devices() const { return why_none_; }
  const std::vector<Device *> &devices() const { return devices_; }

  // The ABI minor version that brought `dtype` (the five of 1.4: 4). A
  // plugin built for an older one cannot know the number: the core never
  // asks it about such a dtype nor hands it one.
  static uint32_t dtype_since(int32_t dtype) { return dtype >= BP_FLOAT16 ? 4 : 0; }
  bool knows_dtype(int32_t dtype) const { return api_->abi_minor >= dtype_since(dtype); }
  // Whether the plugin can know `op`: its abi_minor is at least the one that
  // brought the operator (the vocabulary's group, bp_vocab_op_since).
  bool knows_op(int32_t op) const { return api_->abi_minor >= bp_vocab_op_since(op); }

  // Cached answer of the plugin's `supports`; on every operator's path.
  bool supports(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype) {
    // Range checks as unsigned compares.
    if (uint32_t(op) >= uint32_t(BP_OP_LIMIT) || uint32_t(dtype - 1) >= BP_DTYPE_COUNT - 1 ||
        uint32_t(out_dtype - 1) >= BP_DTYPE_COUNT - 1)
      return false;
    size_t index = size_t(device) * kCapsPerDevice +
                   (size_t(op) * BP_DTYPE_COUNT + size_t(dtype)) * BP_DTYPE_COUNT +
                   size_t(out_dtype);
    uint8_t known = caps_[index].load(std::memory_order_relaxed);
    if (known) return known == 2;
    return ask_supports(index, device, op, dtype, out_dtype);
  }

  // What a status other than BP_OK from one of this plugin's entries comes
  // to for the core's caller. Every status a plugin returns reaches the
  // caller through here: `status` is a documented bp_status (a code outside
  // the enum becomes BP_ERR_BACKEND), `code` names it ("BP_ERR_SHAPE", or
  // "BP_ERR_BACKEND, its code 12345 is no bp_status"), `message` is the
  // plugin's last_error, copied with a bound, or "no message". Call it under
  // the call lock, right after the failed call: last_error is the calling
  // thread's.
  struct Failure {
    bp_status status;
    std::string code, message;
  };
  Failure failure(bp_status raw) const;

  // The plugin's description of one of its devices, filled in a guarded
  // scratch area (plugin_scratch.hpp), its model NUL-terminated; throws
  // when device_info failed or wrote past the struct.
  bp_plugin_device_info device_info(int32_t device);

  // Throws an Error built from failure(s) when s != BP_OK:
  // "backend <name>: <call> failed (<code>): <message>".
  void check(bp_status s, const char *call) const;

  // Serialises calls into plugins that did not declare thread safety.
  std::unique_lock<std::mutex> call_lock() {
    return thread_safe_ ? std::unique_lock<std::mutex>() : std::unique_lock<std::mutex>(mutex_);
  }

  BackendCounters counters;

 private:
  static constexpr size_t kCapsPerDevice = size_t(BP_OP_LIMIT) * BP_DTYPE_COUNT * BP_DTYPE_COUNT;

  Backend(std::string path, const bp_plugin_api *api, uint32_t api_size, BackendOptions options, bool builtin);

  void enumerate();
  // Asks the plugin once and caches the answer.
  [[gnu::noinline]] bool ask_supports(size_t index, int32_t device, int32_t op, int32_t dtype,
                                      int32_t out_dtype);

  std::string path_, name_, version_, prefix_;
  const bp_plugin_api *api_;
  uint32_t api_size_;
  bool thread_safe_;
  bool builtin_;
  BackendOptions options_;

  std::mutex start_mutex_;
  std::atomic<bool> started_{false};
  bool initialised_ = false;  // init succeeded (once per process)...
  BackendOptions init_options_;  // ...with these options
  bool start_failed_ = false;
  bp_status start_status_ = BP_OK;
  std::string start_error_, why_none_;
  std::vector<Device *> devices_;

  std::mutex mutex_;
  // capability cache, one flat table for all devices, per (device, op,
  // dtype, out_dtype): 0 unknown, 1 no, 2 yes. Read on every operator.
  std::unique_ptr<std::atomic<uint8_t>[]> caps_;
};

}  // namespace bp::core
