// The ABI boundary: the function table and its entry symbol. Each entry
// runs its body inside guarded(), which turns every C++ exception into a
// bp_status and keeps the message for last_error() on this thread; nothing
// C++ crosses the ABI.
#include <cstdio>
#include <new>

#include <utility>

#include "backplane/plugin.h"
#include "buffer.hpp"
#include "device.hpp"
#include "device_info.hpp"
#include "device_registry.hpp"
#include "errors.hpp"
#include "execute.hpp"
#include "fused_cache.hpp"
#include "fused_execute.hpp"
#include "ops.hpp"
#include "transfer.hpp"
#ifdef BP_CUDA_NCCL
#include "collective.hpp"
#endif

namespace bp_cuda {
namespace {

template <class Body>
__attribute__((always_inline)) inline bp_status guarded(Body &&body) noexcept {
  return bp_plugin::guarded("cuda", std::forward<Body>(body));
}

void require_pointer(const void *p, const char *entry, const char *what) {
  if (!p) fail(BP_ERR_INVALID_ARGUMENT, "cuda: %s: %s is NULL", entry, what);
}

const char *api_last_error() { return last_error_message(); }

bp_status api_init(const char *const *keys, const char *const *values, int32_t count) {
  return guarded([&] { start_backend(keys, values, count); });
}

bp_status api_device_count(int32_t *count, const char **why_none) {
  return guarded([&] {
    require_started();
    require_pointer(count, "device_count", "count");
    const Registry &r = registry();
    *count = static_cast<int32_t>(r.devices.size());
    if (why_none) *why_none = r.devices.empty() ? r.why_none.c_str() : nullptr;
  });
}

bp_status api_device_info(int32_t device, bp_plugin_device_info *info) {
  return guarded([&] {
    Device &d = device_at(device, "device_info");
    require_pointer(info, "device_info", "info");
    fill_device_info(d, info);
  });
}

bp_status api_device_properties(int32_t device, bp_property *props, int32_t capacity, int32_t *count) {
  return guarded([&] {
    Device &d = device_at(device, "device_properties");
    require_pointer(count, "device_properties", "count");
    if (capacity < 0 || (capacity > 0 && !props))
      fail(BP_ERR_INVALID_ARGUMENT, "cuda: device_properties: props is NULL or capacity %d < 0", capacity);
    int32_t n = fill_device_properties(d, props, capacity);
    if (n < capacity) {
      // How many fused programs were compiled: a program run again with new
      // scalars or shapes reuses its kernel, so this stays small.
      std::snprintf(props[n].key, sizeof props[n].key, "fused_kernels_compiled");
      std::snprintf(props[n].value, sizeof props[n].value, "%llu",
                    static_cast<unsigned long long>(fused_kernels_compiled(device)));
      ++n;
    }
    *count = n;
  });
}

bp_status api_alloc(int32_t device, uint64_t bytes, bp_buffer *out) {
  return guarded([&] {
    require_pointer(out, "alloc", "out");
    *out = nullptr;
    *out = buffer_alloc(device, bytes);
  });
}

bp_status api_free(bp_buffer buffer) {
  return guarded([&] {
    require_started();
    buffer_free(buffer);
  });
}

bp_status api_write(bp_buffer dst, uint64_t offset, const void *src, uint64_t bytes) {
  return guarded([&] {
    require_started();
    buffer_write(dst, offset, src, bytes);
  });
}

bp_status api_read(bp_buffer src, uint64_t offset, void *dst, uint64_t bytes) {
  return guarded([&] {
    require_started();
    buffer_read(src, offset, dst, bytes);
  });
}

bp_status api_copy(bp_buffer src, uint64_t src_offset, bp_buffer dst, uint64_t dst_offset, uint64_t bytes) {
  return guarded([&] {
    require_started();
    buffer_copy(src, src_offset, dst, dst_offset, bytes);
  });
}

bp_status api_supports(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype, int32_t *answer) {
  return guarded([&] {
    device_at(device, "supports");
    require_pointer(answer, "supports", "answer");
    *answer = op_supports(op, dtype, out_dtype) ? 1 : 0;
  });
}

bp_status api_execute(int32_t device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                      int32_t n_inputs, const bp_plugin_tensor *output) {
  return guarded([&] { execute_op(device, op, attrs, inputs, n_inputs, output); });
}

bp_status api_execute_fused(int32_t device, const bp_fused_program *program) {
  return guarded([&] { execute_fused(device, program); });
}

bp_status api_synchronize(int32_t device) {
  return guarded([&] { device_at(device, "synchronize").synchronize(); });
}

#ifdef BP_CUDA_NCCL
bp_status api_collective(const bp_collective_args *args) {
  return guarded([&] { run_collective(args); });
}

bp_status api_group_id(int32_t device, void *id, uint32_t capacity, uint32_t *size) {
  return guarded([&] { group_id(device, id, capacity, size); });
}

bp_status api_group_join(int32_t device, const void *id, uint32_t size, int32_t rank, int32_t nranks,
                         uint64_t *group) {
  return guarded([&] {
    require_pointer(group, "group_join", "group");
    *group = group_join(device, id, size, rank, nranks);
  });
}

bp_status api_group_leave(uint64_t group) {
  return guarded([&] { group_leave(group); });
}
#endif

// Thread safe: the registry is fixed after init; the live-buffer set has a
// mutex; each device's stream, cache, staging ring, events and cuBLAS
// handle are used only under that device's mutex (two at once through
// std::lock; a collective's, in index order); NCCL communicators only under
// the mutexes of all their devices; compiled fused kernels under the fused
// cache's mutex; counters are atomic and the last error is per thread.
const bp_plugin_api kApi = {
    BP_SDK_API_HEAD(BP_PLUGIN_THREAD_SAFE, "cuda", BP_CUDA_VERSION, "cuda"),
    BP_SDK_API_ENTRIES(api_),
    nullptr,  // host_address: buffers are device memory
#ifdef BP_CUDA_NCCL
    api_collective,
    api_group_id,
    api_group_join,
    api_group_leave,
#else
    // Built without NCCL: the core stages collectives through host memory.
    nullptr,  // collective
    nullptr,  // group_id
    nullptr,  // group_join
    nullptr,  // group_leave
#endif
    api_execute_fused,
};

}  // namespace
}  // namespace bp_cuda

BP_PLUGIN_EXPORT const bp_plugin_api *bp_plugin_get_api(uint32_t host_abi_major, uint32_t host_abi_minor) {
  // Any minor works (each side reads only the fields both know); a different
  // major means some field changed meaning.
  (void)host_abi_minor;
  return host_abi_major == BP_PLUGIN_ABI_MAJOR ? &bp_cuda::kApi : nullptr;
}
