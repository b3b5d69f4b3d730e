#include "device_registry.hpp"

#include <cuda_runtime_api.h>

#include <cstring>

#include "errors.hpp"

namespace bp_cuda {

namespace {

bool parse_bool(const char *key, const char *text) {
  if (!std::strcmp(text, "true")) return true;
  if (!std::strcmp(text, "false")) return false;
  fail(BP_ERR_CONFIG, "cuda: option %s = \"%s\": expected \"true\" or \"false\"", key, text);
}

// Everything about device i that needs no context: properties, PCI
// address and which peers it can reach.
DeviceFacts query_facts(int32_t index, int32_t count) {
  const std::string name = "cuda:" + std::to_string(index);
  cudaDeviceProp prop;
  check_cuda(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties", name.c_str());
  DeviceFacts facts;
  facts.model = prop.name;
  facts.compute_major = prop.major;
  facts.compute_minor = prop.minor;
  facts.multiprocessors = prop.multiProcessorCount;
  facts.max_threads_per_multiprocessor = prop.maxThreadsPerMultiProcessor;
  facts.total_memory = prop.totalGlobalMem;
  char bus_id[32] = "";
  check_cuda(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, index), "cudaDeviceGetPCIBusId", name.c_str());
  facts.pci_bus_id = bus_id;
  for (int32_t peer = 0; peer < count; ++peer) {
    if (peer == index) continue;
    int can = 0;
    check_cuda(cudaDeviceCanAccessPeer(&can, index, peer), "cudaDeviceCanAccessPeer", name.c_str());
    if (can) facts.peers.push_back(peer);
  }
  return facts;
}

// Fills the registry's devices, or its why_none. Any failure of the driver
// here means "no usable devices", never a failed init: a machine without a
// GPU (cudaErrorNoDevice) or without a driver (cudaErrorInsufficientDriver)
// must still load the plugin.
void enumerate(Registry &r) {
  if (cudaDriverGetVersion(&r.driver_version) != cudaSuccess) r.driver_version = 0;
  if (cudaRuntimeGetVersion(&r.runtime_version) != cudaSuccess) r.runtime_version = 0;
  int count = 0;
  const cudaError_t code = cudaGetDeviceCount(&count);
  (void)cudaGetLastError();
  if (code != cudaSuccess) {
    r.why_none = cuda_error_text(code);
    return;
  }
  if (count == 0) {
    r.why_none = "cudaGetDeviceCount found no CUDA device";
    return;
  }
  std::vector<std::unique_ptr<Device>> devices;
  try {
    for (int32_t i = 0; i < count; ++i) devices.push_back(std::make_unique<Device>(i, query_facts(i, count)));
  } catch (const Error &e) {
    r.why_none = e.what();
    return;
  }
  r.devices = std::move(devices);
}

}  // namespace

Registry &registry() {
  static Registry *const r = new Registry;  // never destroyed: see the header
  return *r;
}

void start_backend(const char *const *keys, const char *const *values, int32_t count) {
  if (count < 0 || (count > 0 && (!keys || !values)))
    fail(BP_ERR_INVALID_ARGUMENT, "cuda: init: bad option list (count %d)", count);
  bool allow_tf32 = false;
  for (int32_t i = 0; i < count; ++i) {
    if (!keys[i] || !values[i]) fail(BP_ERR_INVALID_ARGUMENT, "cuda: init: option %d is NULL", i);
    if (std::strcmp(keys[i], "allow_tf32") != 0)
      fail(BP_ERR_CONFIG, "cuda: unknown option \"%s\" (known: allow_tf32)", keys[i]);
    allow_tf32 = parse_bool(keys[i], values[i]);
  }
  Registry &r = registry();
  r.allow_tf32.store(allow_tf32);
  if (!r.enumerated) {
    enumerate(r);
    r.enumerated = true;
  }
  r.started.store(true, std::memory_order_release);
}

void require_started() {
  if (!registry().started.load(std::memory_order_acquire))
    fail(BP_ERR_STATE, "cuda: init has not been called (or failed)");
}

Device &device_at(int32_t index, const char *entry) {
  require_started();
  Registry &r = registry();
  const int32_t count = static_cast<int32_t>(r.devices.size());
  if (count == 0)
    fail(BP_ERR_UNKNOWN_DEVICE, "cuda: %s: there is no device cuda:%d: the cuda backend has no devices (%s)", entry,
         index, r.why_none.c_str());
  if (index < 0 || index >= count)
    fail(BP_ERR_UNKNOWN_DEVICE, "cuda: %s: there is no device cuda:%d (devices: cuda:0..cuda:%d)", entry, index,
         count - 1);
  return *r.devices[static_cast<size_t>(index)];
}

}  // namespace bp_cuda
