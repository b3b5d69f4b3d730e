#include "tensors/handle_table.hpp"

#include <mutex>

#include "errors/error.hpp"
#include "tensors/reclamation.hpp"

namespace bp::core {

HandleTable *const g_handle_table = new HandleTable();

void reclamation::reclaim_pending() noexcept { handles().reclaim(); }

HandleTable::Slot &HandleTable::slot_at(uint32_t slot) const {
  return chunks_[slot / kChunk].load(std::memory_order_acquire)[slot % kChunk];
}

HandleTable::Slot *HandleTable::slot_of(bp_tensor h) const {
  if (!get(h)) return nullptr;
  return &slot_at(uint32_t(h) - 1);
}

bp_tensor HandleTable::insert(View &&view) {
  std::lock_guard<SpinLock> lock(lock_);
  uint32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    if (next_ / kChunk >= kMaxChunks) fail(BP_ERR_OUT_OF_MEMORY, "too many live tensors");
    if (next_ % kChunk == 0) {
      // Room for every slot in both lists, so that release and reclaim, which
      // must not fail, never allocate. retired_ is compacted at half full.
      free_.reserve(next_ + kChunk);
      retired_.reserve(2 * (size_t(next_) + kChunk));
      chunks_[next_ / kChunk].store(new Slot[kChunk], std::memory_order_release);
    }
    slot = next_++;
  }
  Slot &s = slot_at(slot);
  s.view = std::move(view);
  s.refs.store(1, std::memory_order_relaxed);
  uint32_t gen = s.gen.load(std::memory_order_relaxed) + 1;
  s.gen.store(gen, std::memory_order_release);
  bump_live(1);
  return (uint64_t(gen) << 32) | uint64_t(slot + 1);
}

bool HandleTable::retain(bp_tensor h) {
  Slot *s = slot_of(h);
  if (!s) return false;
  // The caller is pinned and saw the slot live, so it is not reused under
  // us; it may be dying (no references left), which counts as released.
  int64_t refs = s->refs.load(std::memory_order_relaxed);
  do {
    if (refs <= 0) return false;
  } while (!s->refs.compare_exchange_weak(refs, refs + 1, std::memory_order_relaxed));
  return true;
}

bool HandleTable::release(bp_tensor h) {
  Slot *s = slot_of(h);
  if (!s) return false;
  int64_t refs = s->refs.load(std::memory_order_relaxed);
  do {
    if (refs <= 0) return false;
  } while (!s->refs.compare_exchange_weak(refs, refs - 1, std::memory_order_acq_rel));
  if (refs != 1) return true;
  reclaim(uint32_t(h) - 1);
  return true;
}

void HandleTable::reclaim(uint32_t retiring) noexcept {
  for (;;) {
    // What the reclaimed views own is let go outside the lock: freeing a
    // storage calls its plugin.
    constexpr int kBatch = 2;  // small: these are constructed (nulled) on every release
    StorageRef storages[kBatch];
    AutogradLink links[kBatch];
    int n = 0;
    bool more;
    {
      std::lock_guard<SpinLock> lock(lock_);
      if (retiring != kNoSlot) {
        // Lookups fail from here. Only changed under the lock: no locked add.
        std::atomic<uint32_t> &gen = slot_at(retiring).gen;
        gen.store(gen.load(std::memory_order_relaxed) + 1, std::memory_order_release);
        bump_live(-1);
        retired_.push_back({retiring, reclamation::retire()});
        retiring = kNoSlot;
      }
      const uint64_t before = reclamation::reclaimable_before(reclamation::t_record);
      while (n < kBatch && retired_head_ < retired_.size() && retired_[retired_head_].epoch < before) {
        const uint32_t slot = retired_[retired_head_++].slot;
        View &v = slot_at(slot).view;
        storages[n] = std::move(v.storage);
        links[n] = std::move(v.autograd);
        ++n;
        free_.push_back(slot);
      }
      if (retired_head_ == retired_.size()) {
        retired_.clear();
        retired_head_ = 0;
        reclamation::g_reclaim_pending.store(false, std::memory_order_relaxed);
        more = false;
      } else {
        if (retired_head_ * 2 > retired_.size()) {
          retired_.erase(retired_.begin(), retired_.begin() + ptrdiff_t(retired_head_));
          retired_head_ = 0;
        }
        more = n == kBatch;
      }
    }
    if (!more) return;
  }
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
