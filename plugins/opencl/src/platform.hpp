// platform.hpp — which OpenCL devices this backend exposes, and the backend's
// life: init enumerates every platform's devices (cheap queries only);
// contexts, queues and kernels are made later, on first use of a device.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "options.hpp"

namespace bp_ocl {

class Device;

// One OpenCL platform and the devices of it that this backend uses. All of
// them share one context, so buffers move between them with
// clEnqueueCopyBuffer instead of a trip through host memory.
class Platform {
 public:
  Platform(cl_platform_id id, std::string name, std::vector<cl_device_id> devices);
  ~Platform();
  Platform(const Platform &) = delete;
  Platform &operator=(const Platform &) = delete;

  const std::string &name() const { return name_; }
  // The shared context, created by the first device that needs it; `who`
  // names that device in an error.
  cl_context context(const std::string &who);

 private:
  cl_platform_id id_;
  std::string name_;
  std::vector<cl_device_id> devices_;
  std::mutex mutex_;
  cl_context context_ = nullptr;
};

// Everything init found. Device indices are stable for the life of this
// object: platforms in clGetPlatformIDs order, devices in clGetDeviceIDs order.
class Backend {
 public:
  explicit Backend(const Options &options);
  ~Backend();
  Backend(const Backend &) = delete;
  Backend &operator=(const Backend &) = delete;

  const Options &options() const { return options_; }
  int32_t device_count() const { return static_cast<int32_t>(devices_.size()); }
  // Why there is no device (for device_count); empty when there are some.
  const std::string &why_none() const { return why_none_; }
  // Device `index`, or BP_ERR_UNKNOWN_DEVICE naming `entry` and the devices there are.
  Device &device(int32_t index, const char *entry);

 private:
  Options options_;
  std::vector<std::unique_ptr<Platform>> platforms_;
  std::vector<std::unique_ptr<Device>> devices_;  // after platforms_: destroyed first
  std::string why_none_;
};

// init: enumerates with `options`. Called again with the same options it does
// nothing; with other options it starts over, which is allowed only while no
// buffer is alive (a process that loads the plugin twice shares one instance).
void init_backend(const Options &options);

// The initialised backend, or BP_ERR_STATE naming `entry`.
Backend &backend(const char *entry);

}  // namespace bp_ocl
