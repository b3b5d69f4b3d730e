// platform.cpp — enumeration of platforms and devices, and init.
#include "platform.hpp"

#include <atomic>

#include "buffer.hpp"
#include "device.hpp"
#include "errors.hpp"

namespace bp_ocl {

Platform::Platform(cl_platform_id id, std::string name, std::vector<cl_device_id> devices)
    : id_(id), name_(std::move(name)), devices_(std::move(devices)) {}

Platform::~Platform() {
  if (context_) clReleaseContext(context_);
}

cl_context Platform::context(const std::string &who) {
  std::lock_guard<std::mutex> guard(mutex_);
  if (!context_) {
    const cl_context_properties properties[] = {
        CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(id_), 0};
    cl_int err = CL_SUCCESS;
    context_ = clCreateContext(properties, static_cast<cl_uint>(devices_.size()), devices_.data(),
                               nullptr, nullptr, &err);
    check_cl(err, "clCreateContext", who + " (platform '" + name_ + "')");
  }
  return context_;
}

namespace {

std::string platform_name(cl_platform_id id) {
  size_t size = 0;
  if (clGetPlatformInfo(id, CL_PLATFORM_NAME, 0, nullptr, &size) != CL_SUCCESS) return "?";
  std::string name(size, '\0');
  if (clGetPlatformInfo(id, CL_PLATFORM_NAME, size, &name[0], nullptr) != CL_SUCCESS) return "?";
  name.resize(name.find('\0') == std::string::npos ? name.size() : name.find('\0'));
  return name;
}

std::string join(const std::vector<std::string> &names) {
  std::string out;
  for (const auto &n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

}  // namespace

Backend::Backend(const Options &options) : options_(options) {
  // Enumeration never fails: whatever goes wrong becomes "0 devices" plus the
  // reason, which the core shows in `bp devices`.
  cl_uint n_platforms = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &n_platforms);
  if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR: the ICD loader found no driver */ ||
      (err == CL_SUCCESS && n_platforms == 0)) {
    why_none_ = "no OpenCL platform is installed (clGetPlatformIDs: " +
                std::string(cl_error_name(err == CL_SUCCESS ? -1001 : err)) + ")";
    return;
  }
  if (err != CL_SUCCESS) {
    why_none_ = std::string("clGetPlatformIDs failed: ") + cl_error_name(err) + " (" +
                std::to_string(err) + ")";
    return;
  }
  std::vector<cl_platform_id> ids(n_platforms);
  err = clGetPlatformIDs(n_platforms, ids.data(), nullptr);
  if (err != CL_SUCCESS) {
    why_none_ = std::string("clGetPlatformIDs failed: ") + cl_error_name(err);
    return;
  }

  const bool allow_fp64 = options.fp64 == "auto";
  std::vector<std::string> all_names, matching, failures;
  for (cl_platform_id id : ids) {
    std::string name = platform_name(id);
    all_names.push_back(name);
    if (name.find(options.platform) == std::string::npos) continue;
    matching.push_back(name);
    cl_uint n_devices = 0;
    err = clGetDeviceIDs(id, options.device_type_mask, 0, nullptr, &n_devices);
    if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && n_devices == 0)) continue;
    std::vector<cl_device_id> devices(n_devices);
    if (err == CL_SUCCESS)
      err = clGetDeviceIDs(id, options.device_type_mask, n_devices, devices.data(), nullptr);
    if (err != CL_SUCCESS) {
      failures.push_back("clGetDeviceIDs on '" + name + "': " + cl_error_name(err));
      continue;
    }
    platforms_.push_back(std::make_unique<Platform>(id, name, devices));
    for (cl_device_id device : devices)
      devices_.push_back(std::make_unique<Device>(static_cast<int32_t>(devices_.size()),
                                                  *platforms_.back(), device, allow_fp64));
  }
  if (!devices_.empty()) return;
  if (matching.empty())
    why_none_ = "no OpenCL platform name contains '" + options.platform +
                "' (option platform; platforms: " + join(all_names) + ")";
  else
    why_none_ = "no OpenCL device of type " + options.device_type + " on " + join(matching);
  for (const auto &f : failures) why_none_ += "; " + f;
}

Backend::~Backend() = default;

Device &Backend::device(int32_t index, const char *entry) {
  if (index < 0 || index >= device_count()) {
    std::string known = devices_.empty() ? "there are none"
                                         : "they are opencl:0..opencl:" +
                                               std::to_string(devices_.size() - 1);
    fail(BP_ERR_UNKNOWN_DEVICE, "%s: there is no device opencl:%d (%s)", entry,
         static_cast<int>(index), known.c_str());
  }
  return *devices_[static_cast<size_t>(index)];
}

namespace {
// Never deleted at exit: OpenCL drivers may already be gone during static
// destruction, and releasing handles then can crash the process.
std::atomic<Backend *> g_backend{nullptr};
std::mutex g_init_mutex;
}  // namespace

void init_backend(const Options &options) {
  std::lock_guard<std::mutex> guard(g_init_mutex);
  Backend *old = g_backend.load(std::memory_order_acquire);
  if (old && old->options() == options) return;
  if (old && live_buffer_count() > 0)
    fail(BP_ERR_STATE,
         "init: the opencl backend is already running with other options and %zu buffers are "
         "alive",
         live_buffer_count());
  auto fresh = std::make_unique<Backend>(options);
  g_backend.store(fresh.release(), std::memory_order_release);
  delete old;
}

Backend &backend(const char *entry) {
  Backend *b = g_backend.load(std::memory_order_acquire);
  if (!b) fail(BP_ERR_STATE, "%s: the opencl backend was used before init", entry);
  return *b;
}

}  // namespace bp_ocl
