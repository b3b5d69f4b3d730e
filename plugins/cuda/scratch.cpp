#include "scratch.hpp"

#include "device.hpp"

namespace bp_cuda {

Scratch::Scratch(Device &device, const Lock &lock) : allocator_(device.allocator(lock)), lock_(lock) {}

// No CUDA call here, so nothing can throw from the destructor.
Scratch::~Scratch() {
  for (const CachingAllocator::Block &block : blocks_) allocator_.release(lock_, block);
}

void *Scratch::get(uint64_t bytes) {
  blocks_.reserve(blocks_.size() + 1);  // so that push_back cannot fail after allocate
  blocks_.push_back(allocator_.allocate(lock_, bytes));
  return blocks_.back().ptr;
}

}  // namespace bp_cuda
