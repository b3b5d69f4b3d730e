#include "tensors/handle_table.hpp"

#include "errors/error.hpp"

namespace bp::core {

HandleTable *const g_handle_table = new HandleTable();

HandleTable::Slot *HandleTable::slot_of(bp_tensor h) const {
  if (!get(h)) return nullptr;
  uint32_t slot = uint32_t(h) - 1;
  return &chunks_[slot / kChunk].load(std::memory_order_acquire)[slot % kChunk];
}

bp_tensor HandleTable::insert(View &&view) {
  std::lock_guard<std::mutex> lock(mutex_);
  uint32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    if (next_ / kChunk >= kMaxChunks) fail(BP_ERR_OUT_OF_MEMORY, "too many live tensors");
    if (next_ % kChunk == 0) chunks_[next_ / kChunk].store(new Slot[kChunk], std::memory_order_release);
    slot = next_++;
  }
  Slot &s = chunks_[slot / kChunk].load(std::memory_order_relaxed)[slot % kChunk];
  s.view = std::move(view);
  s.refs.store(1, std::memory_order_relaxed);
  uint32_t gen = s.gen.load(std::memory_order_relaxed) + 1;
  s.gen.store(gen, std::memory_order_release);
  live_.fetch_add(1, std::memory_order_relaxed);
  return (uint64_t(gen) << 32) | uint64_t(slot + 1);
}

bool HandleTable::retain(bp_tensor h) {
  Slot *s = slot_of(h);
  if (!s) return false;
  s->refs.fetch_add(1, std::memory_order_relaxed);
  return true;
}

bool HandleTable::release(bp_tensor h) {
  Slot *s = slot_of(h);
  if (!s) return false;
  if (s->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return true;
  View dying;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    s->gen.fetch_add(1, std::memory_order_release);
    dying = std::move(s->view);
    free_.push_back(uint32_t(h) - 1);
  }
  live_.fetch_sub(1, std::memory_order_relaxed);
  return true;  // `dying` frees the storage outside the lock
}

View &view_or_throw(bp_tensor h, const char *what) {
  View *v = handles().get(h);
  if (!v)
    fail(BP_ERR_INVALID_HANDLE,
         std::string(what) + ": " +
             (h == 0 ? std::string("null tensor handle")
                     : "handle " + std::to_string(h) + " is not a live tensor (released or never issued)"));
  return *v;
}

}  // namespace bp::core
