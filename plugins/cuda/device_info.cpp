#include "device_info.hpp"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "device.hpp"
#include "device_registry.hpp"
#include "errors.hpp"

namespace bp_cuda {

namespace {

// 13000 -> "13.0"; 0 (no driver) -> "none".
std::string version_text(int version) {
  if (version <= 0) return "none";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string cublas_version() {
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS)
    return "cuBLAS (version unknown)";
  return "cuBLAS " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

// Free memory needs a CUDA context; asking for it on a device not yet used
// would create one (see Device::activate), so it is reported only for
// devices already in use, else as 0 ("unknown", as plugin.h allows).
bool free_memory(Device &device, uint64_t *free_bytes) {
  if (!device.active()) return false;
  Device::Lock lock = device.lock();
  device.activate(lock);
  size_t free_now = 0, total = 0;
  check_cuda(cudaMemGetInfo(&free_now, &total), "cudaMemGetInfo", device.name());
  *free_bytes = free_now;
  return true;
}

}  // namespace

void fill_device_info(Device &device, bp_plugin_device_info *info) {
  const DeviceFacts &facts = device.facts();
  if (BP_SDK_FITS(info, kind)) info->kind = BP_DEVICE_GPU;
  if (BP_SDK_FITS(info, model)) std::snprintf(info->model, sizeof info->model, "%s", facts.model.c_str());
  if (BP_SDK_FITS(info, memory_total)) info->memory_total = facts.total_memory;
  if (BP_SDK_FITS(info, memory_free)) {
    uint64_t free_bytes = 0;
    info->memory_free = free_memory(device, &free_bytes) ? free_bytes : 0;
  }
  if (BP_SDK_FITS(info, memory_in_use)) info->memory_in_use = device.bytes_in_use().load();
}

int32_t fill_device_properties(Device &device, bp_property *props, int32_t capacity) {
  const DeviceFacts &facts = device.facts();
  const Registry &r = registry();
  std::string peers;
  for (int32_t peer : facts.peers) peers += (peers.empty() ? "cuda:" : ", cuda:") + std::to_string(peer);
  uint64_t cached = 0, reserved = 0, free_bytes = 0;
  if (device.active()) {
    Device::Lock lock = device.lock();
    cached = device.allocator(lock).cached_bytes();
    reserved = device.allocator(lock).reserved_bytes();
  }
  const bool has_free = free_memory(device, &free_bytes);
  const std::vector<std::pair<const char *, std::string>> all = {
      {"compute_capability", std::to_string(facts.compute_major) + "." + std::to_string(facts.compute_minor)},
      {"multiprocessors", std::to_string(facts.multiprocessors)},
      {"pci_bus_id", facts.pci_bus_id},
      {"driver_version", version_text(r.driver_version)},
      {"runtime_version", version_text(r.runtime_version)},
      {"context", device.active() ? "created" : "not yet (created on first use)"},
      {"memory_free", has_free ? std::to_string(free_bytes) : "unknown until first use"},
      {"memory_in_use", std::to_string(device.bytes_in_use().load())},
      {"memory_cached", std::to_string(cached)},
      {"memory_reserved", std::to_string(reserved)},
      {"peer_access", peers.empty() ? "none" : peers},
      {"gemm", cublas_version()},
      {"tf32", r.allow_tf32.load() ? "on (allow_tf32 = true)" : "off"},
  };
  const int32_t n = capacity < static_cast<int32_t>(all.size()) ? capacity : static_cast<int32_t>(all.size());
  for (int32_t i = 0; i < n; ++i) {
    std::snprintf(props[i].key, sizeof props[i].key, "%s", all[static_cast<size_t>(i)].first);
    std::snprintf(props[i].value, sizeof props[i].value, "%s", all[static_cast<size_t>(i)].second.c_str());
  }
  return n;
}

}  // namespace bp_cuda
