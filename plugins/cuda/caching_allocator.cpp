#include "caching_allocator.hpp"

#include <cuda_runtime_api.h>

#include <cinttypes>

#include "device.hpp"
#include "errors.hpp"

namespace bp_cuda {

namespace {

constexpr uint64_t kSmallLimit = uint64_t(1) << 20;
constexpr uint64_t kSmallGranule = 512;

uint64_t round_up(uint64_t value, uint64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

// Small requests round up to 512 bytes; larger ones to one of four classes
// per power of two, so a reused block wastes less than a quarter of itself
// and similar sizes still share blocks.
uint64_t size_class(uint64_t bytes) {
  if (bytes <= kSmallLimit) return round_up(bytes, kSmallGranule);
  const int log2 = 63 - __builtin_clzll(bytes);
  return round_up(bytes, uint64_t(1) << (log2 - 2));
}

}  // namespace

CachingAllocator::Block CachingAllocator::allocate(const Lock &lock, uint64_t bytes) {
  const uint64_t total = device_.facts().total_memory;
  if (bytes > total)
    fail(BP_ERR_OUT_OF_MEMORY, "cuda: cannot allocate %" PRIu64 " bytes on %s: the device has %" PRIu64 " bytes", bytes,
         device_.name(), total);
  const uint64_t size = size_class(bytes);
  auto cached = free_.find(size);
  if (cached != free_.end() && !cached->second.empty()) {
    Block block{cached->second.back(), size};
    cached->second.pop_back();
    cached_ -= size;
    return block;
  }
  device_.activate(lock);  // cudaMalloc allocates on the current device
  void *ptr = nullptr;
  cudaError_t code = cudaMalloc(&ptr, size);
  if (code == cudaErrorMemoryAllocation && cached_bytes() > 0) {
    (void)cudaGetLastError();  // handled: retried below
    empty_cache(lock);
    code = cudaMalloc(&ptr, size);
  }
  if (code == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    size_t free_now = 0, total_now = 0;
    if (cudaMemGetInfo(&free_now, &total_now) != cudaSuccess) (void)cudaGetLastError();
    fail(BP_ERR_OUT_OF_MEMORY,
         "cuda: cannot allocate %" PRIu64
         " bytes on %s: out of device memory (cudaMalloc: %s; %zu of %zu bytes "
         "free, %" PRIu64 " bytes in live buffers of this plugin, its cache emptied)",
         bytes, device_.name(), cudaGetErrorName(code), free_now, total_now, device_.bytes_in_use().load());
  }
  check_cuda(code, "cudaMalloc", device_.name());
  reserved_ += size;
  return Block{ptr, size};
}

void CachingAllocator::release(const Lock &, Block block) {
  if (!block.ptr) return;
  free_[block.size].push_back(block.ptr);
  cached_ += block.size;
}

void CachingAllocator::empty_cache(const Lock &) {
  // Cached blocks may still be in use by queued work (see the header).
  device_.synchronize();
  for (auto &entry : free_) {
    while (!entry.second.empty()) {
      void *ptr = entry.second.back();
      entry.second.pop_back();  // before cudaFree: a failure must not leave it cached
      reserved_ -= entry.first;
      cached_ -= entry.first;
      check_cuda(cudaFree(ptr), "cudaFree", device_.name());
    }
  }
  free_.clear();
}

}  // namespace bp_cuda
