// Temporary device memory for one operation (partial results of a
// reduction, dense copies of GEMM operands): taken from the device's cache
// and given back when the Scratch goes out of scope, which is safe while the
// kernels using it are still queued (see caching_allocator.hpp).
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "caching_allocator.hpp"

namespace bp_cuda {

class Device;

class Scratch {
 public:
  using Lock = std::unique_lock<std::mutex>;  // the device's lock, held for the Scratch's life

  Scratch(Device &device, const Lock &lock);
  ~Scratch();
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;

  // `bytes` (> 0) of device memory, valid until the Scratch is destroyed.
  void *get(uint64_t bytes);

 private:
  CachingAllocator &allocator_;
  const Lock &lock_;
  std::vector<CachingAllocator::Block> blocks_;
};

}  // namespace bp_cuda
