// The backend's process-wide state: the options of init and the devices
// found by it (or why there are none).
//
// Never destroyed: at process exit the CUDA runtime may already have shut
// down when static destructors would run, and the driver reclaims streams,
// memory and contexts with the process anyway.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "device.hpp"

namespace bp_cuda {

struct Registry {
  std::atomic<bool> started{false};
  std::atomic<bool> allow_tf32{false};  // init option "allow_tf32"
  bool enumerated = false;
  std::vector<std::unique_ptr<Device>> devices;
  std::string why_none;                         // when there are no devices: "<cudaErrorName>: <description>"
  int driver_version = 0, runtime_version = 0;  // 13000 = 13.0; driver 0 = no driver
};

Registry &registry();

// init: parses the options ("allow_tf32" = "true" | "false") and, the first
// time, enumerates the devices. A missing driver or GPU is not a failure:
// there are then zero devices and why_none says why. No CUDA context is
// created here. A second init applies new options only; like the first, it
// must not overlap any other call.
void start_backend(const char *const *keys, const char *const *values, int32_t count);

// BP_ERR_STATE unless init has succeeded.
void require_started();

// The device with this index, or BP_ERR_UNKNOWN_DEVICE naming `entry` and
// the devices that exist (or why there are none).
Device &device_at(int32_t index, const char *entry);

}  // namespace bp_cuda
