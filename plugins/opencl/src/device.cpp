// device.cpp — device facts, the lazy queue, ordering and kernel launches.
#include "device.hpp"

#include <algorithm>

#include "errors.hpp"
#include "platform.hpp"

namespace bp_ocl {

namespace {

std::string info_string(cl_device_id id, cl_device_info what) {
  size_t size = 0;
  if (clGetDeviceInfo(id, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string s(size, '\0');
  if (clGetDeviceInfo(id, what, size, &s[0], nullptr) != CL_SUCCESS) return "";
  return s.c_str();  // drop the NUL (and anything a driver put after it)
}

template <class T>
T info_value(cl_device_id id, cl_device_info what) {
  T value{};
  if (clGetDeviceInfo(id, what, sizeof value, &value, nullptr) != CL_SUCCESS) return T{};
  return value;
}

DeviceInfo query_info(cl_device_id id, const std::string &platform) {
  DeviceInfo info;
  const auto type = info_value<cl_device_type>(id, CL_DEVICE_TYPE);
  info.kind = (type & CL_DEVICE_TYPE_GPU)           ? BP_DEVICE_GPU
              : (type & CL_DEVICE_TYPE_ACCELERATOR) ? BP_DEVICE_ACCELERATOR
                                                    : BP_DEVICE_CPU;
  info.model = info_string(id, CL_DEVICE_NAME);
  info.vendor = info_string(id, CL_DEVICE_VENDOR);
  info.driver_version = info_string(id, CL_DRIVER_VERSION);
  info.version = info_string(id, CL_DEVICE_VERSION);
  info.c_version = info_string(id, CL_DEVICE_OPENCL_C_VERSION);
  info.platform = platform;
  info.compute_units = std::max<cl_uint>(1, info_value<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS));
  info.global_mem = info_value<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE);
  info.max_alloc = info_value<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  info.local_mem = info_value<cl_ulong>(id, CL_DEVICE_LOCAL_MEM_SIZE);
  info.max_work_group = std::max<size_t>(1, info_value<size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE));
  // OpenCL 1.2 promises at least 1024 bytes of kernel arguments.
  info.max_parameter_size = std::max<size_t>(1024, info_value<size_t>(id, CL_DEVICE_MAX_PARAMETER_SIZE));
  const std::string extensions = " " + info_string(id, CL_DEVICE_EXTENSIONS) + " ";
  info.has_fp64 = extensions.find(" cl_khr_fp64 ") != std::string::npos;
  info.has_int64_atomics = extensions.find(" cl_khr_int64_base_atomics ") != std::string::npos;
  info.correctly_rounded_div_sqrt =
      (info_value<cl_device_fp_config>(id, CL_DEVICE_SINGLE_FP_CONFIG) &
       CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  return info;
}

}  // namespace

Device::Device(int32_t index, Platform &platform, cl_device_id id, bool allow_fp64)
    : index_(index),
      name_("opencl:" + std::to_string(index)),
      platform_(platform),
      id_(id),
      info_(query_info(id, platform.name())),
      fp64_(allow_fp64 && info_.has_fp64) {}

Device::~Device() {
  // Only reached when init starts over with no buffer alive; the queue may
  // still run kernels on freed buffers, which is fine, but not after release.
  if (queue_) clFinish(queue_);
  if (last_event_) clReleaseEvent(last_event_);
  if (queue_) clReleaseCommandQueue(queue_);
}

cl_context Device::context() { return platform_.context(name_); }

cl_command_queue Device::queue(const Lock &) {
  if (!queue_) {
    cl_int err = CL_SUCCESS;
    // In order: work on one device runs in the order it was issued (plugin.h).
    queue_ = clCreateCommandQueue(context(), id_, 0, &err);
    check_cl(err, "clCreateCommandQueue", name_);
  }
  return queue_;
}

void Device::enqueued(const Lock &lock, cl_event event) {
  if (last_event_) clReleaseEvent(last_event_);
  last_event_ = event;
  check_cl(clFlush(queue(lock)), "clFlush", name_);
}

cl_event Device::marker(const Lock &lock) {
  cl_event event = nullptr;
  check_cl(clEnqueueMarkerWithWaitList(queue(lock), 0, nullptr, &event),
           "clEnqueueMarkerWithWaitList", name_);
  check_cl(clRetainEvent(event), "clRetainEvent", name_);
  enqueued(lock, event);
  return event;
}

bool Device::idle(const Lock &) {
  if (!last_event_) return true;
  cl_int status = CL_QUEUED;
  check_cl(clGetEventInfo(last_event_, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                          nullptr),
           "clGetEventInfo", name_);
  // A negative status is a failed command: nothing is running any more.
  return status == CL_COMPLETE || status < 0;
}

const Kernel &Device::kernel(const Lock &, Family family, int32_t dtype,
                             const std::string &name) {
  return programs_.kernel(context(), id_, features(), build_options(), family, dtype, name, name_);
}

std::string Device::build_options() const {
  // Float division and sqrt correctly rounded where the device can, so that
  // they agree with the C backends bit for bit.
  return info_.correctly_rounded_div_sqrt ? "-cl-fp32-correctly-rounded-divide-sqrt" : "";
}

const Kernel &Device::fused_kernel(const Lock &, const std::string &key,
                                   const std::function<std::string()> &source, const std::string &disk_dir) {
  // The cache's key omits the device (one cache per device); a binary on disk
  // is valid only for the same device, driver and platform.
  const FusedCache::Target target{context(),
                                  id_,
                                  build_options(),
                                  info_.platform + '\0' + info_.model + '\0' + info_.vendor + '\0' +
                                      info_.driver_version + '\0' + info_.version,
                                  disk_dir,
                                  name_};
  return fused_.kernel(key, source, target);
}

void Device::launch(const Lock &lock, const Kernel &kernel, size_t global, size_t local,
                    std::initializer_list<KernelArg> args) {
  launch(lock, kernel, global, local, args.begin(), args.size());
}

void Device::launch(const Lock &lock, const Kernel &kernel, size_t global, size_t local,
                    const KernelArg *args, size_t count, size_t offset) {
  // Messages are composed only on failure: this runs for every operator.
  for (cl_uint i = 0; i < count; ++i) {
    const cl_int err = clSetKernelArg(kernel.handle, i, args[i].size, args[i].value);
    if (err != CL_SUCCESS)
      check_cl(err, ("clSetKernelArg(" + kernel.name + ", " + std::to_string(i) + ")").c_str(),
               name_);
  }
  cl_event event = nullptr;
  const cl_int err = clEnqueueNDRangeKernel(queue(lock), kernel.handle, 1, offset ? &offset : nullptr,
                                            &global, &local, 0, nullptr, &event);
  if (err != CL_SUCCESS)
    check_cl(err, ("clEnqueueNDRangeKernel(" + kernel.name + ")").c_str(), name_);
  enqueued(lock, event);
}

void Device::launch_elements(const Lock &lock, const Kernel &kernel, int64_t n,
                             std::initializer_list<KernelArg> args) {
  launch_elements(lock, kernel, n, args.begin(), args.size());
}

void Device::launch_elements(const Lock &lock, const Kernel &kernel, int64_t n, const KernelArg *args,
                             size_t count) {
  // One fixed group size (PoCL compiles a work-group function per local size)
  // and a work-item per element, up to 2^24 groups (beyond, each work-item
  // loops over several). A grid of a few groups per compute unit, each
  // work-item striding over the whole range, made PoCL 20 to 70 times
  // slower on elementwise kernels (1e7 float32 subtractions: 250 ms, against
  // 4 to 14 ms with a work-item per element).
  size_t local = 64;
  while (local > kernel.max_work_group) local /= 2;
  const size_t wanted = (static_cast<size_t>(n) + local - 1) / local;
  const size_t groups = std::min<size_t>(wanted, size_t{1} << 24);
  launch(lock, kernel, groups * local, local, args, count);
}

void Device::launch_per_element(const Lock &lock, const Kernel &kernel, int64_t n, const KernelArg *args,
                                size_t count) {
  // No loop in the kernel: PoCL vectorises a work-item per element two to
  // three times faster than a grid-stride loop, even one that runs once.
  size_t local = 64;
  while (local > kernel.max_work_group) local /= 2;
  const size_t chunk = size_t{1} << 30;
  for (size_t first = 0; first < static_cast<size_t>(n); first += chunk) {
    const size_t items = std::min(chunk, static_cast<size_t>(n) - first);
    launch(lock, kernel, (items + local - 1) / local * local, local, args, count, first);
  }
}

void Device::finish() {
  cl_command_queue q;
  {
    Lock guard = lock();
    if (!queue_) return;  // nothing was ever issued
    q = queue_;
  }
  // Without the lock: other threads may keep issuing work meanwhile.
  check_cl(clFinish(q), "clFinish", name_);
}

}  // namespace bp_ocl
