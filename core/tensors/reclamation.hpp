// Epoch-based reclamation for released tensors. An operator on one thread may
// hold the View it looked up while another thread releases the handle; the
// release therefore only retires the slot, and the view (with the storage it
// keeps alive) is destroyed once every thread that could have seen the handle
// live has left the API. Reference counting every lookup would put two atomic
// read-modify-writes on every operand of every call; a pin is one store and
// one fence per call, whatever the number of operands.
//
// Protocol (a Dekker pair of seq_cst fences): a pinned thread publishes the
// epoch it entered in, fences, then checks a slot's generation; the releasing
// thread marks the slot dead, advances the epoch, fences, then reads every
// pinned thread's epoch. Either the reader sees the slot dead, or the
// releaser sees the reader pinned at an epoch at or before the retirement.
#pragma once

#include <atomic>
#include <cstdint>

namespace bp::core::reclamation {

// One per thread that has called into the API; recycled when a thread exits,
// never freed (a scan may be reading it).
struct ThreadRecord {
  // 0 while the thread is outside the API, else the epoch it entered in.
  std::atomic<uint64_t> pinned_at{0};
  std::atomic<bool> owned{false};
  ThreadRecord *next = nullptr;  // immutable once the record is published
  uint32_t depth = 0;            // nesting of API calls; owner thread only
};

// The current epoch; starts at 1 so that 0 can mean "not pinned".
extern std::atomic<uint64_t> g_epoch;
// Set while retired slots wait (by the handle table, after it queued one);
// a thread leaving the API then reclaims them.
extern std::atomic<bool> g_reclaim_pending;
// __thread, not thread_local: a plain pointer needs no per-access init check.
// initial-exec: read at a fixed offset from the thread pointer, not through
// __tls_get_addr; one pointer fits the static TLS that glibc keeps spare for
// libraries opened with dlopen (as Python's ctypes opens this one).
extern __thread ThreadRecord *t_record __attribute__((tls_model("initial-exec")));

// The calling thread's record, acquired on its first call (may throw
// std::bad_alloc, once per thread at most).
ThreadRecord &acquire_record();
// Destroys retired views that no pinned thread can still see (in the handle
// table, which owns them). Called unpinned.
void reclaim_pending() noexcept;

// Marks the calling thread as inside the API for its lifetime; nests.
class Pin {
 public:
  Pin() : record_(t_record ? *t_record : acquire_record()) {
    if (record_.depth++ == 0) {
      record_.pinned_at.store(g_epoch.load(std::memory_order_acquire), std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_seq_cst);
    }
  }
  ~Pin() {
    if (--record_.depth == 0) {
      record_.pinned_at.store(0, std::memory_order_release);
      if (g_reclaim_pending.load(std::memory_order_relaxed)) reclaim_pending();
    }
  }
  Pin(const Pin &) = delete;
  Pin &operator=(const Pin &) = delete;

 private:
  ThreadRecord &record_;
};

// Advances the epoch after an object was made unreachable; returns the epoch
// it was retired in.
uint64_t retire() noexcept;

// What was retired in an epoch before the result can no longer be in use by
// any thread: the older of the current epoch and the oldest epoch a thread
// is pinned at. The caller must be unpinned (its own views count too).
uint64_t reclaimable_before() noexcept;

}  // namespace bp::core::reclamation
