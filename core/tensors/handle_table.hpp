// Tensor handles: 64-bit values (generation << 32 | slot + 1) into a table of
// slots that is never freed. A zero, released, stale or invented handle is
// detected by a bounds and generation check, so using one is an error, not a
// crash, and the check costs a few loads on every operator call. A released
// slot keeps its view until no thread inside the API can still be using it
// (reclamation.hpp): get() is only valid on a pinned thread, which every C
// API call is (capi/guard.hpp).
//
// Nothing here takes a lock or waits for another thread. A thread that waits
// inside the API stays pinned and holds back every release after its pin, so
// a lock there turns one preempted holder into a table that only grows (the
// stall of issue 33: spinning waiters, a reclaimer that could not reclaim,
// lists copied under the lock as they grew). Instead: slots live in chunks
// that never move; free slots form a lock-free stack; a release pushes its
// slot on a lock-free stack of retired slots; and one thread at a time (a
// try-flag that nobody waits on) moves those to a queue in retirement order
// and recycles a bounded batch of them.
#pragma once

#include <atomic>
#include <cstdint>

#include "backplane/backplane.h"
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
  // Dropping the last reference retires the slot; the view is destroyed by
  // a later reclaim().
  bool release(bp_tensor h);
  // Destroys up to a batch of retired views that no thread can still see.
  // Only on a thread outside the API (unpinned, as ~Pin calls it): a pinned
  // caller could hold a view this frees.
  void reclaim() noexcept;

  int64_t live() const { return live_.load(std::memory_order_relaxed); }

 private:
  static constexpr uint32_t kChunk = 4096;
  static constexpr uint32_t kMaxChunks = 16384;
  static constexpr uint32_t kNone = UINT32_MAX;
  // Views one reclaim() destroys at most: the latency it adds to one call
  // stays bounded, yet a backlog that a long pinned call (a wait, a
  // collective) held back is freed within a few calls, not 16 a call while
  // the memory it holds is wanted.
  static constexpr int kReclaimBatch = 1024;

  struct Slot {
    std::atomic<uint32_t> gen{0};  // odd while live; written by the slot's owner only
    std::atomic<int64_t> refs{0};
    // The next slot on the list that holds this one (free stack, retired
    // stack or reclaim queue). Atomic because a thread popping the free stack
    // may read it from a slot another thread has already taken (its tagged
    // compare-exchange then fails).
    std::atomic<uint32_t> next{kNone};
    uint64_t retired_in = 0;  // epoch of the release; set before the push
    View view;
  };
  Slot &slot_at(uint32_t slot) const {
    return chunks_[slot / kChunk].load(std::memory_order_acquire)[slot % kChunk];
  }
  Slot *slot_of(bp_tensor h) const {
    return get(h) ? &slot_at(uint32_t(h) - 1) : nullptr;
  }
  uint32_t pop_free() noexcept;
  void push_free(uint32_t slot) noexcept;
  uint32_t new_slot();
  // Moves what releases pushed since the last call to the queue's tail.
  void take_retired() noexcept;

  std::atomic<Slot *> chunks_[kMaxChunks] = {};
  // Slots ever handed out; 64 bits so that failing inserts past the end
  // cannot wrap it.
  std::atomic<uint64_t> next_{0};
  // Free stack: a tag (bumped by every change, against ABA) << 32 | the top
  // slot, kNone when empty.
  std::atomic<uint64_t> free_{kNone};
  std::atomic<uint32_t> retired_{kNone};
  // Held by the one thread reclaiming; the others skip, never wait.
  std::atomic<bool> reclaiming_{false};
  // Retired slots, oldest first (only with reclaiming_ held).
  uint32_t queue_head_ = kNone;
  uint32_t queue_tail_ = kNone;
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
