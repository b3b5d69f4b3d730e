// Every device of every started backend, addressed by a dense process-wide id.
// Lookups by id are lock-free (they are on every operator's path); devices
// are added when a backend starts, and forgotten only when a runtime stops.
#pragma once

#include <array>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "backplane/backplane.h"

namespace bp::core {

class Backend;

struct Device {
  bp_device id;
  std::string name;    // "<prefix>:<index>"
  Backend *backend;
  int32_t index;       // the backend's own device index
  int32_t kind;        // bp_device_kind
  std::string model;
  bool is_accelerator;
};

class Registry {
 public:
  static constexpr int32_t kMaxDevices = 1024;
  // One backend's share: a plugin that reports more is refused whole at its
  // start (Backend::enumerate), so it cannot use up every other backend's ids.
  static constexpr int32_t kMaxDevicesPerBackend = 256;

  struct NewDevice {
    int32_t kind;
    std::string model;
  };

  // Which kinds count as accelerators: "gpu", "accelerator", "cpu", or
  // "<prefix>:<kind>" for one backend's devices only. Set before any start.
  void set_accelerator_kinds(std::vector<std::string> kinds);

  // Registers a backend's devices, all of them or (throwing) none.
  std::vector<Device *> add_devices(Backend *backend, const std::vector<NewDevice> &devices);

  // Forgets every device: the runtime that listed them stopped (a failed
  // start, or a test's restart). The Device objects are left allocated
  // (another thread or a storage awaiting reclamation may still hold one)
  // and handed back by add_devices when their backend is listed again.
  void forget_all();

  Device *get(bp_device id) const {
    if (id < 0 || id >= count_.load(std::memory_order_acquire)) return nullptr;
    return devices_[size_t(id)];
  }
  int32_t count() const { return count_.load(std::memory_order_acquire); }

 private:
  bool counts_as_accelerator(const std::string &prefix, int32_t kind) const;

  std::mutex mutex_;
  std::vector<std::string> accelerator_kinds_{"gpu", "accelerator"};
  std::array<Device *, kMaxDevices> devices_{};
  std::vector<Device *> forgotten_;  // kept alive: see forget_all
  std::atomic<int32_t> count_{0};
};

Registry &registry();

// The device of an id, or an Error(BP_ERR_INVALID_HANDLE) naming the id.
Device &device_or_throw(bp_device id);

const char *kind_name(int32_t kind);

}  // namespace bp::core
