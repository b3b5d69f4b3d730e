// One device's memory: blocks from cudaMalloc handed out by size class and
// kept for reuse when released, because cudaMalloc and cudaFree are slow
// and cudaFree synchronises the whole device.
//
// A released block goes back to the cache at once, even while kernels that
// use it are still queued: the stream runs in issue order and every later
// use of the block is issued later to the same stream (see device.hpp), so
// it cannot start before the earlier work is done ("free in stream order").
// Memory returns to the driver only when an allocation fails: the cache is
// emptied after the stream has drained, and the allocation tried again.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace bp_cuda {

class Device;

class CachingAllocator {
 public:
  struct Block {
    void *ptr = nullptr;
    uint64_t size = 0;  // the size class, as allocated; 0 for no memory
  };

  using Lock = std::unique_lock<std::mutex>;  // the device's lock (Device::Lock)

  explicit CachingAllocator(Device &device) : device_(device) {}
  CachingAllocator(const CachingAllocator &) = delete;
  CachingAllocator &operator=(const CachingAllocator &) = delete;

  // At least `bytes` (> 0) of device memory; BP_ERR_OUT_OF_MEMORY naming
  // the device and the bytes when even an emptied cache cannot make room.
  // Called with the device lock held, as is release.
  Block allocate(const Lock &lock, uint64_t bytes);
  void release(const Lock &lock, Block block);

  uint64_t cached_bytes() const { return cached_.load(std::memory_order_relaxed); }
  uint64_t reserved_bytes() const { return reserved_.load(std::memory_order_relaxed); }

 private:
  void empty_cache(const Lock &lock);

  Device &device_;
  std::map<uint64_t, std::vector<void *>> free_;  // size class -> cached blocks
  std::atomic<uint64_t> cached_{0};               // bytes in cached blocks
  std::atomic<uint64_t> reserved_{0};             // bytes from cudaMalloc not yet freed
};

}  // namespace bp_cuda
