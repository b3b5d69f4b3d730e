// Host memory for cpu:0 buffers: 64-byte aligned blocks, and a small cache
// of freed blocks per size class so that a fresh output of a size seen
// before costs a mutex and a pointer, not malloc plus page faults. Kernels'
// scratch (oneDNN's blocked layouts and workspaces) comes from the same
// cache through ScratchBlock, so it is one budget, reported in one place.
//
// Layout of a block: one 64-byte header (bp_buffer_s, the handle the ABI
// sees) followed by the data, so a buffer is a single allocation and its
// data is 64-byte aligned.
//
// Size classes: requests up to kMaxCachedBytes are rounded up to the next of
// four steps per power of two (64, 80, 96, 112, 128, 160, ...; at most 25 %
// over) so that different but similar sizes share cached blocks. At most
// kBlocksPerClass blocks per class and kCacheLimit bytes in all are kept;
// anything else goes straight back to the C library. The limits are sized
// for a batch of 32 of a 224x224 network: MobileNetV2's widest activations
// are 150 MiB there, and a run has several in flight; with a 512 MiB cache
// their pages went back between runs, and a fifth of the run was page
// faults. Rounding costs little memory: large blocks are mapped pages, and
// pages nobody touches are never committed.
//
// Accounting: memory_in_use (device_info) is the sum of the sizes asked for
// by live buffers; cached and reserved bytes are reported separately
// (device_properties), so no number hides the other.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

#include "backplane/plugin.h"

// The opaque buffer type of the ABI, defined here as the block header.
// A wrapped buffer (wrap_host) is a header alone whose `base` is the
// caller's memory: it is never cached, and freeing it calls `release`.
struct alignas(64) bp_buffer_s {
  uint64_t magic;     // kLiveMagic while allocated, kFreeMagic once freed
  uint64_t bytes;     // size asked for: every access is checked against it
  uint64_t capacity;  // usable bytes after rounding to the size class
  int32_t size_class; // index into the cache, or -1 when never cached
  bool borrowed;      // base is wrap_host's memory, not this block's
  char *base;         // the data: right after the header unless borrowed
  void (*release)(void *context);  // borrowed only; may be null
  void *release_context;

  char *data() { return base; }
};
static_assert(sizeof(bp_buffer_s) == 64, "the header keeps the data 64-byte aligned");

namespace cpu_backend {

class MemoryPool {
 public:
  static constexpr uint64_t kLiveMagic = 0x6270637075627566ull;  // "bpcpubuf"
  static constexpr uint64_t kFreeMagic = 0x6270637075667265ull;  // "bpcpufre"
  static constexpr uint64_t kMaxCachedBytes = 1024ull << 20;
  static constexpr int kBlocksPerClass = 4;
  static constexpr uint64_t kCacheLimit = 2048ull << 20;
  static constexpr int kClasses = 97;  // size classes up to kMaxCachedBytes

  MemoryPool() = default;
  MemoryPool(const MemoryPool &) = delete;
  MemoryPool &operator=(const MemoryPool &) = delete;
  ~MemoryPool();

  // A block of at least `bytes` usable bytes; BP_ERR_OUT_OF_MEMORY names the
  // device and the size when neither the cache nor the C library has one.
  bp_buffer_s *allocate(uint64_t bytes);
  // A header over `bytes` of the caller's memory at `data` (wrap_host). It
  // counts in none of the pool's numbers: the memory is not the device's.
  bp_buffer_s *wrap(void *data, uint64_t bytes, void (*release)(void *), void *context);
  // Caches or frees the block; a wrapped one's header is freed and its
  // release(context) called, once, after the header is marked dead.
  void release(bp_buffer_s *buffer);

  uint64_t in_use() const { return in_use_.load(std::memory_order_relaxed); }
  uint64_t reserved() const { return reserved_.load(std::memory_order_relaxed); }
  uint64_t cached() const { return cached_.load(std::memory_order_relaxed); }

 private:
  void trim();  // returns every cached block to the C library
  // Marks a block live and counts it; under mutex_.
  bp_buffer_s *hand_out(bp_buffer_s *block, uint64_t bytes);
  // The counters change only under mutex_ (one locked operation per call
  // instead of one per counter) and are read without it.
  static void add(std::atomic<uint64_t> &counter, uint64_t delta) {
    counter.store(counter.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
  }

  std::mutex mutex_;  // guards free_, count_ and every change of the counters
  bp_buffer_s *free_[kClasses][kBlocksPerClass] = {};
  int count_[kClasses] = {};
  std::atomic<uint64_t> in_use_{0};    // bytes asked for by live buffers
  std::atomic<uint64_t> reserved_{0};  // capacity of live buffers
  std::atomic<uint64_t> cached_{0};    // capacity of cached free blocks
};

// A kernel's scratch for the length of one call: `bytes` (0: none) of
// uninitialised, 64-byte aligned memory from the pool, given back to its
// cache on destruction. It counts in memory_in_use while it lives. Throws
// BP_ERR_OUT_OF_MEMORY (errors.hpp) when there is none.
class ScratchBlock {
 public:
  ScratchBlock(MemoryPool &pool, uint64_t bytes) : pool_(pool), block_(bytes ? pool.allocate(bytes) : nullptr) {}
  ~ScratchBlock() {
    if (block_) pool_.release(block_);
  }
  ScratchBlock(const ScratchBlock &) = delete;
  ScratchBlock &operator=(const ScratchBlock &) = delete;
  void *data() const { return block_ ? block_->data() : nullptr; }

 private:
  MemoryPool &pool_;
  bp_buffer_s *block_;
};

}  // namespace cpu_backend
