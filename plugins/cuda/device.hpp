// One CUDA device: what it is (queried at init without creating a CUDA
// context) and, from its first real use on, its context, its one stream,
// its memory cache, its pinned staging ring and its cuBLAS handle.
//
// Ordering: every piece of work that touches a buffer of this device runs
// on this device's stream, or (a copy between two devices, see transfer.cpp)
// is fenced into it with events. Work therefore runs in the order it was
// issued, a read that waits for the stream has waited for all earlier work,
// and memory released to the cache can be handed out again at once: whatever
// the new owner issues comes later on the same stream.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "caching_allocator.hpp"
#include "kernel_args.hpp"
#include "staging_ring.hpp"

namespace bp_cuda {

// Facts about a device that need no CUDA context.
struct DeviceFacts {
  std::string model;
  std::string pci_bus_id;
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 1;
  int max_threads_per_multiprocessor = kThreads;
  uint64_t total_memory = 0;
  std::vector<int32_t> peers;  // devices whose memory this one can access directly
};

class Device {
 public:
  // Everything that issues work to the device or touches its cache, ring,
  // events or cuBLAS handle needs this lock; functions that require it take
  // it as an argument.
  using Lock = std::unique_lock<std::mutex>;

  Device(int32_t index, DeviceFacts facts);
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  int32_t index() const { return index_; }
  const char *name() const { return name_.c_str(); }  // "cuda:<index>"
  const DeviceFacts &facts() const { return facts_; }
  Lock lock() { return Lock(mutex_); }
  std::mutex &mutex() { return mutex_; }  // to lock two devices at once (std::lock)

  // Makes the device current on the calling thread and, the first time,
  // creates its stream and with it the CUDA context: contexts cost hundreds
  // of MiB and a fraction of a second each, so only devices actually used
  // get one. Every function below that issues CUDA calls does this first.
  void activate(const Lock &lock);
  // True once activate has run (readable without the lock).
  bool active() const { return active_.load(std::memory_order_acquire); }

  cudaStream_t stream(const Lock &lock);
  Launch launch(const Lock &lock);
  CachingAllocator &allocator(const Lock &lock);
  StagingRing &staging(const Lock &lock);
  // The device's cuBLAS handle (made on first use, bound to the stream) with
  // TF32 tensor-core math on or off.
  cublasHandle_t blas(const Lock &lock, bool allow_tf32);

  // cudaMemcpyAsync on the stream.
  void copy_async(const Lock &lock, void *dst, const void *src, uint64_t bytes, cudaMemcpyKind kind);
  // An event marking all work issued so far. It is re-recorded by the next
  // marker(), so use it (wait_for) before releasing the lock.
  cudaEvent_t marker(const Lock &lock);
  // Work issued to this device from now on waits for `event` (any device's).
  void wait_for(const Lock &lock, cudaEvent_t event);
  // Turns on direct access from this device to `peer`'s memory, once.
  void enable_peer_access(const Lock &lock, int32_t peer);
  bool can_access_peer(int32_t peer) const;

  // Blocks until all work issued so far has finished. Needs no lock, so
  // other threads can keep issuing work meanwhile.
  void synchronize();

  // Bytes in live buffers of this plugin on this device.
  std::atomic<uint64_t> &bytes_in_use() { return bytes_in_use_; }

 private:
  // cudaSetDevice when the calling thread's current device differs. The
  // previous device is not restored: restoring would create a context on a
  // device the caller may never have used (cudaSetDevice does that since
  // CUDA 12).
  void make_current();

  const int32_t index_;
  const std::string name_;
  const DeviceFacts facts_;
  std::atomic<uint64_t> bytes_in_use_{0};

  std::mutex mutex_;
  std::atomic<bool> active_{false};
  cudaStream_t stream_ = nullptr;
  cudaEvent_t marker_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  bool blas_tf32_ = false;
  std::vector<bool> peer_enabled_;
  std::unique_ptr<CachingAllocator> allocator_;
  std::unique_ptr<StagingRing> staging_;
};

}  // namespace bp_cuda
