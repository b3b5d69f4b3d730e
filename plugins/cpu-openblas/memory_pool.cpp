#include "memory_pool.hpp"

#include <cinttypes>
#include <cstdlib>

#include "errors.hpp"

namespace cpu_backend {

namespace {

struct SizeClass {
  int index;          // -1: too large to cache
  uint64_t capacity;  // bytes the block holds
};

// Four classes per power of two above 64 bytes: 2^p < bytes <= 2^(p+1) is
// rounded up to a multiple of 2^(p-2).
constexpr SizeClass size_class_of(uint64_t bytes) {
  if (bytes <= 64) return {0, 64};
  if (bytes > MemoryPool::kMaxCachedBytes) return {-1, (bytes + 63) & ~uint64_t(63)};
  const int p = 63 - __builtin_clzll(bytes - 1);
  const uint64_t step = uint64_t(1) << (p - 2);
  const uint64_t quarters = (bytes + step - 1) / step;  // 5..8
  return {1 + (p - 6) * 4 + static_cast<int>(quarters - 5), quarters * step};
}

static_assert(size_class_of(MemoryPool::kMaxCachedBytes).index == MemoryPool::kClasses - 1,
              "kClasses covers every cached size");

}  // namespace

MemoryPool::~MemoryPool() { trim(); }

bp_buffer_s *MemoryPool::allocate(uint64_t bytes) {
  // Anything near the address-space size is refused before any arithmetic
  // on it can wrap around.
  if (bytes > (uint64_t(1) << 62))
    fail(BP_ERR_OUT_OF_MEMORY, "out of memory on cpu:0: cannot allocate %" PRIu64 " bytes", bytes);
  const SizeClass sc = size_class_of(bytes);
  bp_buffer_s *block = nullptr;
  if (sc.index >= 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (count_[sc.index] > 0) {
      block = free_[sc.index][--count_[sc.index]];
      cached_.fetch_sub(sc.capacity, std::memory_order_relaxed);
    }
  }
  if (!block) {
    void *raw = nullptr;
    const size_t total = sizeof(bp_buffer_s) + sc.capacity;
    if (posix_memalign(&raw, 64, total) != 0) {
      trim();  // the cache may hold what this request needs
      if (posix_memalign(&raw, 64, total) != 0)
        fail(BP_ERR_OUT_OF_MEMORY,
             "out of memory on cpu:0: cannot allocate %" PRIu64 " bytes (%" PRIu64 " bytes in use)",
             bytes, in_use());
    }
    block = static_cast<bp_buffer_s *>(raw);
    block->capacity = sc.capacity;
    block->size_class = sc.index;
  }
  block->magic = kLiveMagic;
  block->bytes = bytes;
  in_use_.fetch_add(bytes, std::memory_order_relaxed);
  reserved_.fetch_add(block->capacity, std::memory_order_relaxed);
  return block;
}

void MemoryPool::release(bp_buffer_s *block) {
  block->magic = kFreeMagic;
  in_use_.fetch_sub(block->bytes, std::memory_order_relaxed);
  reserved_.fetch_sub(block->capacity, std::memory_order_relaxed);
  if (block->size_class >= 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    const int c = block->size_class;
    if (count_[c] < kBlocksPerClass && cached() + block->capacity <= kCacheLimit) {
      free_[c][count_[c]++] = block;
      cached_.fetch_add(block->capacity, std::memory_order_relaxed);
      return;
    }
  }
  std::free(block);
}

void MemoryPool::trim() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int c = 0; c < kClasses; ++c) {
    for (int i = 0; i < count_[c]; ++i) {
      cached_.fetch_sub(free_[c][i]->capacity, std::memory_order_relaxed);
      std::free(free_[c][i]);
    }
    count_[c] = 0;
  }
}

}  // namespace cpu_backend
