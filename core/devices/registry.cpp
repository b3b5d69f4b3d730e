#include "devices/registry.hpp"

#include "errors/error.hpp"
#include "plugins/backend.hpp"

namespace bp::core {

Registry &registry() {
  static Registry *instance = new Registry();  // never destroyed: plugins outlive exit
  return *instance;
}

const char *kind_name(int32_t kind) {
  switch (kind) {
    case BP_DEVICE_CPU: return "cpu";
    case BP_DEVICE_GPU: return "gpu";
    case BP_DEVICE_ACCELERATOR: return "accelerator";
  }
  return "unknown";
}

void Registry::set_accelerator_kinds(std::vector<std::string> kinds) {
  std::lock_guard<std::mutex> lock(mutex_);
  accelerator_kinds_ = std::move(kinds);
}

bool Registry::counts_as_accelerator(const std::string &prefix, int32_t kind) const {
  const std::string k = kind_name(kind);
  for (const auto &entry : accelerator_kinds_) {
    if (entry == k) return true;
    if (entry == prefix + ":" + k) return true;
  }
  return false;
}

Device *Registry::add_device(Backend *backend, int32_t index, int32_t kind,
                             const std::string &model) {
  std::lock_guard<std::mutex> lock(mutex_);
  int32_t id = count_.load(std::memory_order_relaxed);
  if (id >= kMaxDevices)
    fail(BP_ERR_PLUGIN, "more than " + std::to_string(kMaxDevices) + " devices");
  auto *d = new Device{id,   backend->prefix() + ":" + std::to_string(index),
                       backend, index, kind, model,
                       counts_as_accelerator(backend->prefix(), kind)};
  devices_[size_t(id)] = d;
  count_.store(id + 1, std::memory_order_release);
  return d;
}

Device &device_or_throw(bp_device id) {
  Device *d = registry().get(id);
  if (!d) fail(BP_ERR_INVALID_HANDLE, "invalid device id " + std::to_string(id));
  return *d;
}

}  // namespace bp::core
