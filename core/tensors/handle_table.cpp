#include "tensors/handle_table.hpp"

#include <memory>

#include "errors/error.hpp"
#include "tensors/reclamation.hpp"

namespace bp::core {

HandleTable *const g_handle_table = new HandleTable();

void reclamation::reclaim_pending() noexcept { handles().reclaim(); }

namespace {

// The free stack's head: a tag bumped by every push and pop, so that a pop
// that read a head, slept, and finds the same slot on top again after other
// pops and pushes fails its compare-exchange instead of installing a stale
// next.
uint64_t free_head(uint64_t old, uint32_t slot) {
  return (uint64_t(uint32_t(old >> 32) + 1) << 32) | slot;
}

}  // namespace

uint32_t HandleTable::pop_free() noexcept {
  uint64_t head = free_.load(std::memory_order_acquire);
  for (;;) {
    const uint32_t slot = uint32_t(head);
    if (slot == kNone) return kNone;
    const uint32_t next = slot_at(slot).next.load(std::memory_order_relaxed);
    if (free_.compare_exchange_weak(head, free_head(head, next), std::memory_order_acq_rel,
                                    std::memory_order_acquire))
      return slot;
  }
}

void HandleTable::push_free(uint32_t slot) noexcept {
  uint64_t head = free_.load(std::memory_order_relaxed);
  do {
    slot_at(slot).next.store(uint32_t(head), std::memory_order_relaxed);
  } while (!free_.compare_exchange_weak(head, free_head(head, slot), std::memory_order_acq_rel,
                                        std::memory_order_relaxed));
}

uint32_t HandleTable::new_slot() {
  const uint64_t n = next_.fetch_add(1, std::memory_order_relaxed);
  if (n >= uint64_t(kChunk) * kMaxChunks) fail(BP_ERR_OUT_OF_MEMORY, "too many live tensors");
  std::atomic<Slot *> &chunk = chunks_[n / kChunk];
  if (!chunk.load(std::memory_order_acquire)) {
    // Threads that reach a new chunk together each make one and one is kept.
    // If making it throws, slot n is never used: one slot lost, nothing else.
    auto fresh = std::make_unique<Slot[]>(kChunk);
    Slot *expected = nullptr;
    if (chunk.compare_exchange_strong(expected, fresh.get(), std::memory_order_acq_rel,
                                      std::memory_order_acquire))
      fresh.release();
  }
  return uint32_t(n);
}

bp_tensor HandleTable::insert(View &&view) {
  uint32_t slot = pop_free();
  if (slot == kNone) slot = new_slot();
  // The slot is this thread's alone until its generation is published.
  Slot &s = slot_at(slot);
  s.view = std::move(view);
  s.refs.store(1, std::memory_order_relaxed);
  const uint32_t gen = s.gen.load(std::memory_order_relaxed) + 1;
  s.gen.store(gen, std::memory_order_release);
  live_.fetch_add(1, std::memory_order_relaxed);
  return (uint64_t(gen) << 32) | uint64_t(slot + 1);
}

namespace {

// Moves a live slot's count by delta; false, moving nothing, once it reached
// zero. The caller is pinned and saw the slot live, so it is not reused
// under us; it may be dying (no references left), which counts as released.
// `before` is the count it moved from.
bool step_refs(std::atomic<int64_t> &refs, int64_t delta, std::memory_order order, int64_t &before) {
  before = refs.load(std::memory_order_relaxed);
  do {
    if (before <= 0) return false;
  } while (!refs.compare_exchange_weak(before, before + delta, order));
  return true;
}

}  // namespace

bool HandleTable::retain(bp_tensor h) {
  Slot *s = slot_of(h);
  int64_t refs;
  return s && step_refs(s->refs, 1, std::memory_order_relaxed, refs);
}

bool HandleTable::release(bp_tensor h) {
  Slot *s = slot_of(h);
  int64_t refs;
  if (!s || !step_refs(s->refs, -1, std::memory_order_acq_rel, refs)) return false;
  if (refs != 1) return true;
  // This thread took the count to zero, so it alone retires the slot.
  // Lookups fail from here; then the epoch advances (reclamation.hpp's order).
  s->gen.store(uint32_t(h >> 32) + 1, std::memory_order_release);
  live_.fetch_sub(1, std::memory_order_relaxed);
  s->retired_in = reclamation::retire();
  const uint32_t slot = uint32_t(h) - 1;
  // seq_cst here and on the reclaimer's exchange, as on the flag: in one
  // total order, a reclaimer that missed this push cleared the flag before
  // the store below sets it.
  uint32_t head = retired_.load(std::memory_order_relaxed);
  do {
    s->next.store(head, std::memory_order_relaxed);
  } while (!retired_.compare_exchange_weak(head, slot, std::memory_order_seq_cst, std::memory_order_relaxed));
  // After the push: a reclaimer clears the flag before it takes the stack,
  // so it either takes this slot or leaves the flag set for the next one.
  reclamation::g_reclaim_pending.store(true, std::memory_order_seq_cst);
  return true;
}

void HandleTable::take_retired() noexcept {
  uint32_t slot = retired_.exchange(kNone, std::memory_order_seq_cst);
  // The stack has the newest on top; reversed, it continues the queue in
  // retirement order. Each slot is reversed once: O(1) a release, amortised.
  // A releaser that pushed late puts an older epoch behind newer ones, which
  // only delays the slots behind it (the queue is read up to the first slot
  // that is still visible).
  const uint32_t last = slot;
  uint32_t first = kNone;
  while (slot != kNone) {
    Slot &s = slot_at(slot);
    const uint32_t older = s.next.load(std::memory_order_relaxed);
    s.next.store(first, std::memory_order_relaxed);
    first = slot;
    slot = older;
  }
  if (first == kNone) return;
  if (queue_tail_ == kNone)
    queue_head_ = first;
  else
    slot_at(queue_tail_).next.store(first, std::memory_order_relaxed);
  queue_tail_ = last;
}

void HandleTable::reclaim() noexcept {
  // Another thread reclaiming will leave the flag set if work remains; a
  // thread that waited here would only delay its caller.
  if (reclaiming_.exchange(true, std::memory_order_acquire)) return;
  reclamation::g_reclaim_pending.store(false, std::memory_order_seq_cst);
  take_retired();
  const uint64_t before = reclamation::reclaimable_before();
  for (int n = 0; n < kReclaimBatch && queue_head_ != kNone; ++n) {
    const uint32_t slot = queue_head_;
    Slot &s = slot_at(slot);
    if (s.retired_in >= before) break;
    queue_head_ = s.next.load(std::memory_order_relaxed);
    if (queue_head_ == kNone) queue_tail_ = kNone;
    // Taken out of the slot before it is reused, let go after (freeing a
    // storage calls its plugin; dropping autograd metadata may release more).
    StorageRef storage = std::move(s.view.storage);
    AutogradLink link = std::move(s.view.autograd);
    push_free(slot);
  }
  if (queue_head_ != kNone) reclamation::g_reclaim_pending.store(true, std::memory_order_seq_cst);
  reclaiming_.store(false, std::memory_order_release);
}

void invalid_handle(bp_tensor h, const char *what) {
  fail(BP_ERR_INVALID_HANDLE,
       std::string(what) + ": " +
           (h == 0 ? std::string("null tensor handle")
                   : "handle " + std::to_string(h) + " is not a live tensor (released or never issued)"));
}

View &view_or_throw(bp_tensor h, const char *what) {
  View *v = handles().get(h);
  if (!v) invalid_handle(h, what);
  return *v;
}

}  // namespace bp::core
