// backplane/sdk/live_buffers.hpp — the set of buffers a plugin has handed
// out and not yet taken back (since 1.5), so that a NULL, freed, foreign
// or garbage bp_buffer is an error message rather than a crash inside a
// driver. C++17, header-only; thread safe (one mutex).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_set>

#include "backplane/plugin_sdk.hpp"

namespace bp_plugin {

// Buffer is the plugin's struct behind bp_buffer; the set holds addresses
// only and owns nothing: the plugin allocates a buffer, inserts it, and
// deletes it after take() has removed it. An instance must outlive every
// call that may use it (a plugin typically keeps one for its whole life).
template <class Buffer>
class LiveBuffers {
 public:
  // `backend` names the backend in messages; `prefix` starts them ("cuda: "
  // or "").
  LiveBuffers(const char *backend, const char *prefix) : backend_(backend), prefix_(prefix) {}
  LiveBuffers(const LiveBuffers &) = delete;
  LiveBuffers &operator=(const LiveBuffers &) = delete;

  // After allocation, before the handle reaches the core (std::bad_alloc
  // when the set cannot grow).
  void insert(const Buffer *buffer) {
    std::lock_guard<std::mutex> guard(mutex_);
    set_.insert(buffer);
  }

  // *buffer when it is live; else Error(BP_ERR_INVALID_ARGUMENT) naming
  // `entry` ("write") and `what` ("dst"). The reference stays valid until
  // the buffer is taken.
  Buffer &checked(Buffer *buffer, const char *entry, const char *what) const {
    if (!buffer) fail(BP_ERR_INVALID_ARGUMENT, "%s%s: %s is NULL", prefix_, entry, what);
    std::lock_guard<std::mutex> guard(mutex_);
    if (!set_.count(buffer)) not_live(entry, what);
    return *buffer;
  }

  // checked(), and the buffer leaves the set in the same step: of two
  // threads freeing one buffer, one gets it and the other an error. The
  // caller deletes it.
  Buffer &take(Buffer *buffer, const char *entry, const char *what) {
    if (!buffer) fail(BP_ERR_INVALID_ARGUMENT, "%s%s: %s is NULL", prefix_, entry, what);
    std::lock_guard<std::mutex> guard(mutex_);
    if (set_.erase(buffer) == 0) not_live(entry, what);
    return *buffer;
  }

  // The answer of a bp_sdk_buffer_bytes_fn: 1 and *bytes = size_of(*buffer)
  // when `buffer` is live, else 0.
  template <class SizeOf>
  int32_t bytes(const Buffer *buffer, uint64_t *bytes, SizeOf &&size_of) const {
    std::lock_guard<std::mutex> guard(mutex_);
    if (!set_.count(buffer)) return 0;
    *bytes = size_of(*buffer);
    return 1;
  }

  std::size_t size() const {
    std::lock_guard<std::mutex> guard(mutex_);
    return set_.size();
  }

 private:
  [[noreturn]] void not_live(const char *entry, const char *what) const {
    fail(BP_ERR_INVALID_ARGUMENT, "%s%s: %s is not a live buffer of the %s backend (freed, or made by another plugin?)",
         prefix_, entry, what, backend_);
  }

  const char *backend_;
  const char *prefix_;
  mutable std::mutex mutex_;
  std::unordered_set<const Buffer *> set_;
};

}  // namespace bp_plugin
