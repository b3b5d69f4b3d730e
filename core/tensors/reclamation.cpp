#include "tensors/reclamation.hpp"

#include <new>

namespace bp::core::reclamation {

std::atomic<uint64_t> g_epoch{1};
std::atomic<bool> g_reclaim_pending{false};
__thread ThreadRecord *t_record __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

std::atomic<ThreadRecord *> g_records{nullptr};

// Gives the record back when its thread exits. Kept apart from t_record so
// that the per-call path reads a plain pointer, with no TLS guard.
struct Lease {
  ~Lease() {
    if (!t_record) return;
    t_record->pinned_at.store(0, std::memory_order_release);
    t_record->owned.store(false, std::memory_order_release);
    t_record = nullptr;
  }
};

}  // namespace

ThreadRecord &acquire_record() {
  static thread_local Lease lease;
  (void)lease;  // its constructor registered the thread-exit hand-back
  for (ThreadRecord *r = g_records.load(std::memory_order_acquire); r; r = r->next) {
    bool expected = false;
    if (!r->owned.load(std::memory_order_relaxed) &&
        r->owned.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
      r->depth = 0;
      return *(t_record = r);
    }
  }
  auto *r = new ThreadRecord();
  r->owned.store(true, std::memory_order_relaxed);
  r->next = g_records.load(std::memory_order_relaxed);
  while (!g_records.compare_exchange_weak(r->next, r, std::memory_order_release,
                                          std::memory_order_relaxed)) {
  }
  return *(t_record = r);
}

uint64_t retire() noexcept { return g_epoch.fetch_add(1, std::memory_order_seq_cst); }

uint64_t reclaimable_before() noexcept {
  // Read first: a slot retired after the scan below began may be in use by a
  // thread the scan saw unpinned.
  uint64_t oldest = g_epoch.load(std::memory_order_seq_cst);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (ThreadRecord *r = g_records.load(std::memory_order_acquire); r; r = r->next) {
    uint64_t at = r->pinned_at.load(std::memory_order_acquire);
    if (at != 0 && at < oldest) oldest = at;
  }
  return oldest;
}

}  // namespace bp::core::reclamation
