// Tensor handles: 64-bit values (generation << 32 | slot + 1) into a table of
// slots that is never freed. A zero, released, stale or invented handle is
// detected by a bounds and generation check, so using one is an error, not a
// crash, and the check costs a few loads on every operator call. A released
// slot keeps its view until no thread inside the API can still be using it
// (reclamation.hpp): get() is only valid on a pinned thread, which every C
// API call is (capi/guard.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "backplane/backplane.h"
#include "tensors/spin_lock.hpp"
#include "tensors/view.hpp"

namespace bp::core {

class HandleTable {
 public:
  // The view behind a live handle, or nullptr.
  View *get(bp_tensor h) const {
    uint32_t slot1 = uint32_t(h);
    uint32_t gen = uint32_t(h >> 32);
    if (slot1 == 0 || (gen & 1u) == 0) return nullptr;
    uint32_t slot = slot1 - 1;
    if (slot / kChunk >= kMaxChunks) return nullptr;
    Slot *chunk = chunks_[slot / kChunk].load(std::memory_order_acquire);
    if (!chunk) return nullptr;
    Slot &s = chunk[slot % kChunk];
    if (s.gen.load(std::memory_order_acquire) != gen) return nullptr;
    return &s.view;
  }

  // A new handle with one reference owning the view.
  bp_tensor insert(View &&view);
  // False when h is not live (also when another thread released it first).
  bool retain(bp_tensor h);
  bool release(bp_tensor h);
  // Destroys the retired views no other thread can still see. Called with
  // the calling thread holding no view (it may be pinned, in bp_release).
  void reclaim() noexcept { reclaim(kNoSlot); }

  int64_t live() const { return live_.load(std::memory_order_relaxed); }

 private:
  static constexpr uint32_t kChunk = 4096;
  static constexpr uint32_t kMaxChunks = 16384;

  struct Slot {
    std::atomic<uint32_t> gen{0};  // odd while live; changed under the lock only
    std::atomic<int64_t> refs{0};
    View view;
  };
  struct Retired {
    uint32_t slot;
    uint64_t epoch;
  };
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  Slot *slot_of(bp_tensor h) const;
  Slot &slot_at(uint32_t slot) const;
  // Retires `retiring` (unless kNoSlot), then reclaims what it can: one
  // trip through the lock for a release.
  void reclaim(uint32_t retiring) noexcept;
  // live_ changes only under the lock, and is read without it.
  void bump_live(int64_t delta) {
    live_.store(live_.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
  }

  SpinLock lock_;
  std::atomic<Slot *> chunks_[kMaxChunks] = {};
  uint32_t next_ = 0;
  std::vector<uint32_t> free_;
  std::vector<Retired> retired_;  // in epoch order, from retired_head_ on
  size_t retired_head_ = 0;
  std::atomic<int64_t> live_{0};
};

// The process's table. Created by a dynamic initialiser of libbackplane (so
// before any caller's code runs) and never destroyed: handles stay checkable
// even from other libraries' static destructors.
extern HandleTable *const g_handle_table;
inline HandleTable &handles() { return *g_handle_table; }

// The view behind a handle, or an Error(BP_ERR_INVALID_HANDLE) naming it.
View &view_or_throw(bp_tensor h, const char *what = "tensor");
[[noreturn]] void invalid_handle(bp_tensor h, const char *what);

}  // namespace bp::core
