#include "device.hpp"

#include <algorithm>

#include "errors.hpp"

namespace bp_cuda {

Device::Device(int32_t index, DeviceFacts facts)
    : index_(index), name_("cuda:" + std::to_string(index)), facts_(std::move(facts)) {}

void Device::make_current() {
  int current = -1;
  check_cuda(cudaGetDevice(&current), "cudaGetDevice", name());
  if (current != index_) check_cuda(cudaSetDevice(index_), "cudaSetDevice", name());
}

void Device::activate(const Lock &) {
  make_current();
  if (active()) return;
  // Each step is skipped when done, so a failed start can be retried.
  // Non-blocking: never implicitly synchronised with the legacy default
  // stream, which other code in the process may be using.
  if (!stream_)
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags", name());
  if (!marker_)
    check_cuda(cudaEventCreateWithFlags(&marker_, cudaEventDisableTiming), "cudaEventCreateWithFlags", name());
  if (!allocator_) allocator_ = std::make_unique<CachingAllocator>(*this);
  if (!staging_) staging_ = std::make_unique<StagingRing>(*this);
  active_.store(true, std::memory_order_release);
}

cudaStream_t Device::stream(const Lock &lock) {
  activate(lock);
  return stream_;
}

Launch Device::launch(const Lock &lock) {
  // Grid-stride kernels of kThreads-thread blocks: enough blocks to fill
  // every multiprocessor once.
  const int64_t per_sm = std::max(1, facts_.max_threads_per_multiprocessor / kThreads);
  return Launch{stream(lock), static_cast<int64_t>(std::max(1, facts_.multiprocessors)) * per_sm, name()};
}

CachingAllocator &Device::allocator(const Lock &lock) {
  activate(lock);
  return *allocator_;
}

StagingRing &Device::staging(const Lock &lock) {
  activate(lock);
  return *staging_;
}

cublasHandle_t Device::blas(const Lock &lock, bool allow_tf32) {
  activate(lock);
  if (!blas_) {
    cublasHandle_t handle = nullptr;
    check_cublas(cublasCreate(&handle), "cublasCreate", name());
    const cublasStatus_t status = cublasSetStream(handle, stream_);
    if (status != CUBLAS_STATUS_SUCCESS) {
      cublasDestroy(handle);
      fail_cublas(status, "cublasSetStream", name());
    }
    blas_ = handle;
    blas_tf32_ = !allow_tf32;  // forces the math mode to be set below
  }
  if (blas_tf32_ != allow_tf32) {
    // CUBLAS_DEFAULT_MATH keeps float32 GEMM in full float32 precision;
    // TF32 (10-bit mantissa inputs) only when the user opted in. Half GEMMs
    // must not reduce split-K partial sums in the output's 16 bits
    // (plugin.h: MATMUL adds in float32 or wider), which cuBLAS otherwise may.
    const int mode = (allow_tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH) |
                     CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
    check_cublas(cublasSetMathMode(blas_, static_cast<cublasMath_t>(mode)), "cublasSetMathMode", name());
    blas_tf32_ = allow_tf32;
  }
  return blas_;
}

void Device::copy_async(const Lock &lock, void *dst, const void *src, uint64_t bytes, cudaMemcpyKind kind) {
  activate(lock);
  check_cuda(cudaMemcpyAsync(dst, src, bytes, kind, stream_), "cudaMemcpyAsync", name());
}

cudaEvent_t Device::marker(const Lock &lock) {
  activate(lock);
  check_cuda(cudaEventRecord(marker_, stream_), "cudaEventRecord", name());
  return marker_;
}

void Device::wait_for(const Lock &lock, cudaEvent_t event) {
  activate(lock);
  // The wait binds to the event's latest record now; recording it again
  // later does not change what this stream waits for.
  check_cuda(cudaStreamWaitEvent(stream_, event, 0), "cudaStreamWaitEvent", name());
}

bool Device::can_access_peer(int32_t peer) const {
  return std::find(facts_.peers.begin(), facts_.peers.end(), peer) != facts_.peers.end();
}

void Device::enable_peer_access(const Lock &lock, int32_t peer) {
  activate(lock);
  if (peer_enabled_.size() <= static_cast<size_t>(peer)) peer_enabled_.resize(static_cast<size_t>(peer) + 1, false);
  if (peer_enabled_[static_cast<size_t>(peer)]) return;
  const cudaError_t code = cudaDeviceEnablePeerAccess(peer, 0);
  if (code == cudaErrorPeerAccessAlreadyEnabled)
    (void)cudaGetLastError();  // someone else in the process enabled it: fine
  else
    check_cuda(code, "cudaDeviceEnablePeerAccess", name());
  peer_enabled_[static_cast<size_t>(peer)] = true;
}

void Device::synchronize() {
  if (!active()) return;  // nothing was ever issued
  make_current();
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize", name());
}

}  // namespace bp_cuda
