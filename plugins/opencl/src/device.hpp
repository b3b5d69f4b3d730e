// device.hpp — one OpenCL device: what it is (queried at init), and its
// lazily made in-order queue, kernels and ordering state.
#pragma once

#include <CL/cl.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <string>

#include "backplane/types.h"
#include "fused_cache.hpp"
#include "programs.hpp"

namespace bp_ocl {

class Platform;

struct DeviceInfo {
  bp_device_kind kind = BP_DEVICE_CPU;
  std::string model, vendor, driver_version, version, c_version, platform;
  cl_uint compute_units = 1;
  cl_ulong global_mem = 0, max_alloc = 0, local_mem = 0;
  size_t max_work_group = 1;
  size_t max_parameter_size = 1024;         // CL_DEVICE_MAX_PARAMETER_SIZE: all kernel arguments' bytes
  bool has_fp64 = false;                    // cl_khr_fp64
  bool has_int64_atomics = false;           // cl_khr_int64_base_atomics
  bool correctly_rounded_div_sqrt = false;  // CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT for float
};

// A kernel argument: clSetKernelArg's (size, pointer) pair. Built from the
// exact host type of the kernel parameter (cl_long, cl_mem, ClLayout, ...).
struct KernelArg {
  template <class T>
  KernelArg(const T &value) : size(sizeof(T)), value(&value) {}  // NOLINT: implicit on purpose
  KernelArg(size_t size_, const void *value_) : size(size_), value(value_) {}
  size_t size;
  const void *value;
};

class Device {
 public:
  // Everything that touches the queue, the last event or a kernel object
  // (clSetKernelArg is not thread safe on a shared kernel) needs this lock;
  // functions that require it take it as their first argument.
  using Lock = std::unique_lock<std::mutex>;

  Device(int32_t index, Platform &platform, cl_device_id id, bool allow_fp64);
  ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  int32_t index() const { return index_; }
  const std::string &name() const { return name_; }  // "opencl:<index>"
  cl_device_id id() const { return id_; }
  const DeviceInfo &info() const { return info_; }
  bool fp64() const { return fp64_; }  // float64 offered (has it, not turned off)
  // What its kernels may use: what supports() answers and the programs hold.
  SourceOptions features() const { return SourceOptions{fp64_, info_.has_int64_atomics}; }
  Platform &platform() const { return platform_; }
  cl_context context();
  std::atomic<uint64_t> &bytes_in_use() { return bytes_in_use_; }

  std::mutex &mutex() { return mutex_; }
  Lock lock() { return Lock(mutex_); }

  cl_command_queue queue(const Lock &);
  // Records `event` as the device's newest work (and takes ownership of it),
  // then flushes so the device starts and other queues may wait on it.
  void enqueued(const Lock &, cl_event event);
  // A marker event that completes when all work issued so far is done.
  cl_event marker(const Lock &);
  // True when every command issued so far has completed.
  bool idle(const Lock &);

  const Kernel &kernel(const Lock &, Family family, int32_t dtype, const std::string &name);
  // clBuildProgram's options for every program of this device.
  std::string build_options() const;
  // The fused kernel for `key` (fused_cache.hpp), kept on disk in `disk_dir` ("" = not).
  const Kernel &fused_kernel(const Lock &, const std::string &key,
                             const std::function<std::string()> &source, const std::string &disk_dir);
  const FusedCache &fused_cache() const { return fused_; }  // its counters need no lock
  // Enqueues kernel with `global` work-items in groups of `local`.
  void launch(const Lock &, const Kernel &kernel, size_t global, size_t local,
              std::initializer_list<KernelArg> args);
  // The same, the work-items numbered from `offset` (clEnqueueNDRangeKernel's global offset).
  void launch(const Lock &, const Kernel &kernel, size_t global, size_t local, const KernelArg *args,
              size_t count, size_t offset = 0);
  // Enqueues a grid-stride kernel over n elements (n > 0).
  void launch_elements(const Lock &, const Kernel &kernel, int64_t n,
                       std::initializer_list<KernelArg> args);
  void launch_elements(const Lock &, const Kernel &kernel, int64_t n, const KernelArg *args, size_t count);
  // Enqueues a kernel whose work-item get_global_id(0) handles that element
  // alone and does nothing past n (n > 0), in launches of at most 2^30
  // work-items.
  void launch_per_element(const Lock &, const Kernel &kernel, int64_t n, const KernelArg *args, size_t count);

  // clFinish on the queue, when there is one (synchronize).
  void finish();

 private:
  int32_t index_;
  std::string name_;
  Platform &platform_;
  cl_device_id id_;
  DeviceInfo info_;
  bool fp64_;
  std::atomic<uint64_t> bytes_in_use_{0};

  std::mutex mutex_;
  cl_command_queue queue_ = nullptr;
  cl_event last_event_ = nullptr;
  ProgramCache programs_;
  FusedCache fused_;
};

}  // namespace bp_ocl
