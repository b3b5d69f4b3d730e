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
  if (sc.index >= 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (count_[sc.index] > 0) {
      bp_buffer_s *block = free_[sc.index][--count_[sc.index]];
      add(cached_, -sc.capacity);
      return hand_out(block, bytes);
    }
  }
  void *raw = nullptr;
  const size_t total = sizeof(bp_buffer_s) + sc.capacity;
  if (posix_memalign(&raw, 64, total) != 0) {
    trim();  // the cache may hold what this request needs
    if (posix_memalign(&raw, 64, total) != 0)
      fail(BP_ERR_OUT_OF_MEMORY,
           "out of memory on cpu:0: cannot allocate %" PRIu64 " bytes (%" PRIu64 " bytes in use)", bytes,
           in_use());
  }
  bp_buffer_s *block = static_cast<bp_buffer_s *>(raw);
  block->capacity = sc.capacity;
  block->size_class = sc.index;
  std::lock_guard<std::mutex> lock(mutex_);
  return hand_out(block, bytes);
}

bp_buffer_s *MemoryPool::wrap(void *data, uint64_t bytes, void (*release)(void *), void *context) {
  void *raw = nullptr;
  if (posix_memalign(&raw, 64, sizeof(bp_buffer_s)) != 0)
    fail(BP_ERR_OUT_OF_MEMORY, "out of memory on cpu:0: cannot allocate a buffer header to wrap %" PRIu64
         " bytes", bytes);
  bp_buffer_s *block = static_cast<bp_buffer_s *>(raw);
  block->bytes = bytes;
  block->capacity = bytes;
  block->size_class = -1;
  block->borrowed = true;
  block->base = static_cast<char *>(data);
  block->release = release;
  block->release_context = context;
  block->magic = kLiveMagic;
  return block;
}

bp_buffer_s *MemoryPool::hand_out(bp_buffer_s *block, uint64_t bytes) {
  block->magic = kLiveMagic;
  block->bytes = bytes;
  block->borrowed = false;
  block->base = reinterpret_cast<char *>(block) + sizeof(bp_buffer_s);
  add(in_use_, bytes);
  add(reserved_, block->capacity);
  return block;
}

void MemoryPool::release(bp_buffer_s *block) {
  block->magic = kFreeMagic;
  if (block->borrowed) {
    void (*const release)(void *) = block->release;
    void *const context = block->release_context;
    std::free(block);
    if (release) release(context);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    add(in_use_, -block->bytes);
    add(reserved_, -block->capacity);
    const int c = block->size_class;
    if (c >= 0 && count_[c] < kBlocksPerClass && cached() + block->capacity <= kCacheLimit) {
      free_[c][count_[c]++] = block;
      add(cached_, block->capacity);
      return;
    }
  }
  std::free(block);
}

void MemoryPool::trim() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int c = 0; c < kClasses; ++c) {
    for (int i = 0; i < count_[c]; ++i) {
      add(cached_, -free_[c][i]->capacity);
      std::free(free_[c][i]);
    }
    count_[c] = 0;
  }
}

}  // namespace cpu_backend
