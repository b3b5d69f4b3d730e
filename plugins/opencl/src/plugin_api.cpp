// plugin_api.cpp — the ABI boundary: the function table, the entry symbol,
// and the guard that turns every C++ exception into a status plus the
// thread's last-error message. Nothing else in the plugin knows about the
// table.
#include <clblast.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "backplane/plugin.h"
#include "buffer.hpp"
#include "device.hpp"
#include "errors.hpp"
#include "fused.hpp"
#include "ops.hpp"
#include "options.hpp"
#include "platform.hpp"
#include "supports.hpp"

namespace bp_ocl {
namespace {

// The SDK's guard: every exception becomes a status and the thread's message.
template <class F>
bp_status guarded(F &&body) noexcept {
  return bp_plugin::guarded("opencl", body);
}

void require(const void *pointer, const char *entry, const char *what) {
  if (!pointer) fail(BP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", entry, what);
}

const char *api_last_error() { return bp_plugin::last_error_message(); }

bp_status api_init(const char *const *keys, const char *const *values, int32_t count) {
  return guarded([&] { init_backend(parse_options(keys, values, count)); });
}

bp_status api_device_count(int32_t *count, const char **why_none) {
  return guarded([&] {
    require(count, "device_count", "count");
    require(why_none, "device_count", "why_none");
    const Backend &b = backend("device_count");
    *count = b.device_count();
    *why_none = b.why_none().empty() ? nullptr : b.why_none().c_str();
  });
}

bp_status api_device_info(int32_t index, bp_plugin_device_info *info) {
  return guarded([&] {
    Device &device = backend("device_info").device(index, "device_info");
    require(info, "device_info", "info");
    const DeviceInfo &d = device.info();
    if (BP_SDK_FITS(info, kind)) info->kind = d.kind;
    if (BP_SDK_FITS(info, model)) std::snprintf(info->model, sizeof info->model, "%s", d.model.c_str());
    if (BP_SDK_FITS(info, memory_total)) info->memory_total = d.global_mem;
    // OpenCL cannot tell how much is free (other processes share the device).
    if (BP_SDK_FITS(info, memory_free)) info->memory_free = 0;
    if (BP_SDK_FITS(info, memory_in_use)) info->memory_in_use = device.bytes_in_use().load();
  });
}

bp_status api_device_properties(int32_t index, bp_property *props, int32_t capacity,
                                int32_t *count) {
  return guarded([&] {
    Device &device = backend("device_properties").device(index, "device_properties");
    require(count, "device_properties", "count");
    if (capacity < 0) fail(BP_ERR_INVALID_ARGUMENT, "device_properties: capacity is negative");
    if (capacity > 0) require(props, "device_properties", "props");
    const DeviceInfo &d = device.info();
    const std::string fp64 = !d.has_fp64       ? "no"
                             : device.fp64()   ? "yes"
                                               : "off (option fp64 = \"off\")";
    const std::vector<std::pair<const char *, std::string>> all = {
        {"platform", d.platform},
        {"vendor", d.vendor},
        {"driver_version", d.driver_version},
        {"opencl_version", d.version},
        {"opencl_c_version", d.c_version},
        {"compute_units", std::to_string(d.compute_units)},
        {"max_alloc_bytes", std::to_string(d.max_alloc)},
        {"local_mem_bytes", std::to_string(d.local_mem)},
        {"max_work_group_size", std::to_string(d.max_work_group)},
        {"fp64", fp64},
        {"gemm", "CLBlast " + std::to_string(CLBLAST_VERSION_MAJOR) + "." +
                     std::to_string(CLBLAST_VERSION_MINOR) + "." +
                     std::to_string(CLBLAST_VERSION_PATCH)},
        // Fused elementwise kernels made so far: compiled, and loaded from
        // the kernel_cache directory.
        {"fused_kernels_built", std::to_string(device.fused_cache().built())},
        {"fused_kernels_loaded", std::to_string(device.fused_cache().loaded())},
    };
    const int32_t n = std::min<int32_t>(capacity, static_cast<int32_t>(all.size()));
    for (int32_t i = 0; i < n; ++i) {
      std::snprintf(props[i].key, sizeof props[i].key, "%s", all[i].first);
      std::snprintf(props[i].value, sizeof props[i].value, "%s", all[i].second.c_str());
    }
    *count = n;  // the number written
  });
}

bp_status api_alloc(int32_t device, uint64_t bytes, bp_buffer *out) {
  return guarded([&] {
    require(out, "alloc", "out");
    *out = nullptr;
    *out = buffer_alloc(device, bytes);
  });
}

bp_status api_free(bp_buffer buffer) {
  return guarded([&] { buffer_free(buffer); });
}

bp_status api_write(bp_buffer dst, uint64_t offset, const void *src, uint64_t bytes) {
  return guarded([&] { buffer_write(dst, offset, src, bytes); });
}

bp_status api_read(bp_buffer src, uint64_t offset, void *dst, uint64_t bytes) {
  return guarded([&] { buffer_read(src, offset, dst, bytes); });
}

bp_status api_copy(bp_buffer src, uint64_t src_offset, bp_buffer dst, uint64_t dst_offset,
                   uint64_t bytes) {
  return guarded([&] { buffer_copy(src, src_offset, dst, dst_offset, bytes); });
}

bp_status api_supports(int32_t index, int32_t op, int32_t dtype, int32_t out_dtype,
                       int32_t *answer) {
  return guarded([&] {
    Device &device = backend("supports").device(index, "supports");
    require(answer, "supports", "answer");
    *answer = implements(op, dtype, out_dtype, device.features()) ? 1 : 0;
  });
}

bp_status api_execute(int32_t device, int32_t op, const bp_op_attrs *attrs,
                      const bp_plugin_tensor *inputs, int32_t n_inputs,
                      const bp_plugin_tensor *output) {
  return guarded([&] { execute(device, op, attrs, inputs, n_inputs, output); });
}

bp_status api_execute_fused(int32_t device, const bp_fused_program *program) {
  return guarded([&] { execute_fused(device, program); });
}

bp_status api_synchronize(int32_t index) {
  return guarded([&] { backend("synchronize").device(index, "synchronize").finish(); });
}

bp_status api_collective(const bp_collective_args *args) {
  return guarded([&] { collective(args); });
}

// Thread safe: shared state is the backend (immutable after init, lazily
// made parts behind mutexes), the buffer registry (mutex), per-device queue
// state and kernel objects (the device mutex), and the per-thread message.
const bp_plugin_api kApi = {
    BP_SDK_API_HEAD(BP_PLUGIN_THREAD_SAFE, "opencl", BP_OPENCL_VERSION, "opencl"),
    BP_SDK_API_ENTRIES(api_),
    nullptr,  // host_address: buffers are device memory
    api_collective,
    // No groups: collectives across processes go through the core's own
    // transport (MPI), staged through host memory.
    nullptr,  // group_id
    nullptr,  // group_join
    nullptr,  // group_leave
    api_execute_fused,
    nullptr,  // wrap_host: buffers are device memory
};

}  // namespace
}  // namespace bp_ocl

BP_PLUGIN_EXPORT const bp_plugin_api *bp_plugin_get_api(uint32_t host_abi_major,
                                                        uint32_t host_abi_minor) {
  // Any minor works (each side reads only the fields both know); a different
  // major means some field changed meaning.
  (void)host_abi_minor;
  return host_abi_major == BP_PLUGIN_ABI_MAJOR ? &bp_ocl::kApi : nullptr;
}
