#include "fused_cache.hpp"

#include <map>
#include <mutex>
#include <unordered_map>

#include "device.hpp"
#include "errors.hpp"
#include "fused_disk_cache.hpp"
#include "fused_nvrtc.hpp"
#include "fused_source.hpp"

namespace bp_cuda {

namespace {

struct DeviceKernels {
  std::unordered_map<std::string, cudaKernel_t> kernels;
  // Sources NVRTC refused, with the message: declined again at once
  // rather than compiled again on every run.
  std::unordered_map<std::string, std::string> refused;
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

// The fused kernel of a loaded library.
cudaKernel_t get_kernel(cudaLibrary_t library, const char *device) {
  cudaKernel_t kernel = nullptr;
  const cudaError_t code = cudaLibraryGetKernel(&kernel, library, kFusedKernelName);
  if (code != cudaSuccess) {
    (void)cudaLibraryUnload(library);
    fail_cuda(code, "cudaLibraryGetKernel (fused program)", device);
  }
  return kernel;
}

// Loads an image as a context-independent library: the runtime loads it
// into the device's context when the kernel is first launched there, so no
// driver-API context handling is needed. False (the runtime's error
// cleared) when the runtime refuses the image.
bool try_load(const FusedImage &image, cudaLibrary_t &library) {
  if (cudaLibraryLoadData(&library, image.code.data(), nullptr, nullptr, 0, nullptr, nullptr, 0) == cudaSuccess)
    return true;
  (void)cudaGetLastError();
  return false;
}

// The kernel of `source` for `target`: from the disk cache when an intact
// entry is there and the runtime takes it, else compiled (`compiled` set),
// loaded and stored.
cudaKernel_t build(const std::string &source, const std::string &target, const char *device, bool &compiled) {
  const std::string dir = fused_cache_dir(), identity = fused_identity(source, target);
  cudaLibrary_t library = nullptr;
  FusedImage image;
  if (load_fused_image(dir, identity, image) && try_load(image, library)) return get_kernel(library, device);
  image = compile_fused(source, target, device);
  compiled = true;
  check_cuda(cudaLibraryLoadData(&library, image.code.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
             "cudaLibraryLoadData (fused program)", device);
  const cudaKernel_t kernel = get_kernel(library, device);
  store_fused_image(dir, identity, image);
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
    const auto refused = d.refused.find(source);
    if (refused != d.refused.end()) fail(BP_ERR_UNSUPPORTED, "%s", refused->second.c_str());
  }
  // Compiling takes a while (tens to hundreds of milliseconds): other
  // threads keep using the cache meanwhile. Two threads building one
  // kernel both finish; the first to come back is kept.
  const DeviceFacts &facts = device.facts();
  const std::string target = fused_target(facts.compute_major, facts.compute_minor);
  if (target.empty())
    fail(BP_ERR_UNSUPPORTED,
         "cuda: fused program on %s: this build's NVRTC targets no architecture at or below compute capability %d.%d",
         device.name(), facts.compute_major, facts.compute_minor);
  bool compiled = false;
  cudaKernel_t kernel = nullptr;
  try {
    kernel = build(source, target, device.name(), compiled);
  } catch (const Error &e) {
    if (e.status() == BP_ERR_UNSUPPORTED) {
      std::lock_guard<std::mutex> lock(c.mutex);
      c.devices[device.index()].refused.emplace(source, e.what());
    }
    throw;
  }
  std::lock_guard<std::mutex> lock(c.mutex);
  DeviceKernels &d = c.devices[device.index()];
  if (compiled) ++d.compiled;
  return d.kernels.emplace(source, kernel).first->second;
}

uint64_t fused_kernels_compiled(int32_t device) {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  const auto found = c.devices.find(device);
  return found == c.devices.end() ? 0 : found->second.compiled;
}

}  // namespace bp_cuda
