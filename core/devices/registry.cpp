#include "devices/registry.hpp"

#include <algorithm>

#include "errors/error.hpp"
#include "loader/backend.hpp"

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

std::vector<Device *> Registry::add_devices(Backend *backend, const std::vector<NewDevice> &devices) {
  std::lock_guard<std::mutex> lock(mutex_);
  int32_t first = count_.load(std::memory_order_relaxed);
  if (devices.size() > size_t(kMaxDevices - first))
    fail(BP_ERR_PLUGIN, "backend " + backend->name() + ": its " + std::to_string(devices.size()) +
                            " devices do not fit: " + std::to_string(first) + " of the process's " +
                            std::to_string(kMaxDevices) + " device ids are taken");
  std::vector<Device *> added;
  for (size_t i = 0; i < devices.size(); ++i) {
    const int32_t id = first + int32_t(i);
    const bool accelerator = counts_as_accelerator(backend->prefix(), devices[i].kind);
    // A backend listed again after a restart (backplane/testing.h) gets its
    // device objects back under their new ids: storages still waiting to be
    // reclaimed point at them, and the process keeps no more than one each.
    auto again = std::find_if(forgotten_.begin(), forgotten_.end(),
                              [&](Device *d) { return d->backend == backend && d->index == int32_t(i); });
    Device *d = nullptr;
    if (again != forgotten_.end()) {
      d = *again;
      forgotten_.erase(again);
      d->id = id;
      d->kind = devices[i].kind;
      d->model = devices[i].model;
      d->is_accelerator = accelerator;
    } else {
      d = new Device{id, backend->prefix() + ":" + std::to_string(i), backend, int32_t(i), devices[i].kind,
                     devices[i].model, accelerator};
    }
    devices_[size_t(id)] = d;
    added.push_back(d);
  }
  count_.store(first + int32_t(devices.size()), std::memory_order_release);
  return added;
}

void Registry::forget_all() {
  std::lock_guard<std::mutex> lock(mutex_);
  const int32_t now = count_.load(std::memory_order_relaxed);
  count_.store(0, std::memory_order_release);
  for (int32_t id = 0; id < now; ++id) forgotten_.push_back(devices_[size_t(id)]);
}

Device &device_or_throw(bp_device id) {
  Device *d = registry().get(id);
  if (!d) fail(BP_ERR_INVALID_HANDLE, "invalid device id " + std::to_string(id));
  return *d;
}

}  // namespace bp::core
