#include "fused_cache.hpp"

#include <map>
#include <mutex>
#include <unordered_map>

#include "device.hpp"
#include "errors.hpp"
#include "fused_nvrtc.hpp"
#include "fused_source.hpp"

namespace bp_cuda {

namespace {

struct DeviceKernels {
  std::unordered_map<std::string, cudaKernel_t> kernels;
  uint64_t compiled = 0;
};

// Never destroyed, like the registry: unloading libraries at exit could
// run after the CUDA runtime has shut down, and the process ends anyway.
struct Cache {
  std::mutex mutex;
  std::map<int32_t, DeviceKernels> devices;
};
Cache &cache() {
  static Cache *c = new Cache;
  return *c;
}

// Loads a compiled image as a context-independent library: the runtime
// loads it into the device's context when the kernel is first launched
// there, so no driver-API context handling is needed.
cudaKernel_t load(const FusedImage &image, cudaLibrary_t &library, const char *device) {
  check_cuda(cudaLibraryLoadData(&library, image.code.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
             "cudaLibraryLoadData (fused program)", device);
  cudaKernel_t kernel = nullptr;
  const cudaError_t code = cudaLibraryGetKernel(&kernel, library, kFusedKernelName);
  if (code != cudaSuccess) {
    (void)cudaLibraryUnload(library);
    fail_cuda(code, "cudaLibraryGetKernel (fused program)", device);
  }
  return kernel;
}

}  // namespace

cudaKernel_t fused_kernel(Device &device, const std::string &source) {
  Cache &c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    DeviceKernels &d = c.devices[device.index()];
    const auto found = d.kernels.find(source);
    if (found != d.kernels.end()) return found->second;
  }
  // Compiling takes a while (tens to hundreds of milliseconds): other
  // threads keep using the cache meanwhile. Two threads compiling one
  // source both finish; the first to come back is kept.
  const DeviceFacts &facts = device.facts();
  const FusedImage image = compile_fused(source, facts.compute_major, facts.compute_minor, device.name());
  cudaLibrary_t library = nullptr;
  const cudaKernel_t kernel = load(image, library, device.name());
  std::lock_guard<std::mutex> lock(c.mutex);
  DeviceKernels &d = c.devices[device.index()];
  ++d.compiled;
  const auto inserted = d.kernels.emplace(source, kernel);
  if (!inserted.second) (void)cudaLibraryUnload(library);
  return inserted.first->second;
}

uint64_t fused_kernels_compiled(int32_t device) {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  const auto found = c.devices.find(device);
  return found == c.devices.end() ? 0 : found->second.compiled;
}

}  // namespace bp_cuda
