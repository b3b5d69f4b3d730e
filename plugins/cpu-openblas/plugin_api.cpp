// The ABI boundary: the function table and its entry symbol. Each entry
// checks its plain arguments and runs its body inside guarded(), which turns
// every C++ exception into a bp_status and keeps the message for
// last_error() on this thread; nothing C++ crosses the ABI.
#include <cstdio>
#include <cstring>
#include <new>
#include <utility>

#include "backend.hpp"
#include "backplane/plugin.h"
#include "device_info.hpp"
#include "errors.hpp"
#include "execute.hpp"
#include "fused.hpp"
#include "ops.hpp"
#include "view.hpp"

namespace {

using namespace cpu_backend;

// Inlined into each entry: with table-driven exceptions the success path
// pays nothing for the try.
template <class Body>
__attribute__((always_inline)) inline bp_status guarded(Body &&body) noexcept {
  return bp_plugin::guarded("cpu-openblas", std::forward<Body>(body));
}

void require_pointer(const void *p, const char *what) {
  if (!p) fail(BP_ERR_INVALID_ARGUMENT, "cpu-openblas: %s is NULL", what);
}

const char *api_last_error() { return last_error_message(); }

bp_status api_init(const char *const *keys, const char *const *values, int32_t count) {
  return guarded([&] { start_backend(keys, values, count); });
}

bp_status api_device_count(int32_t *count, const char **why_none) {
  return guarded([&] {
    require_started();
    require_pointer(count, "device_count: count");
    *count = 1;
    if (why_none) *why_none = nullptr;
  });
}

bp_status api_device_info(int32_t device, bp_plugin_device_info *info) {
  return guarded([&] {
    require_started();
    check_device(device);
    require_pointer(info, "device_info: info");
    fill_device_info(info);
  });
}

bp_status api_device_properties(int32_t device, bp_property *props, int32_t capacity, int32_t *count) {
  return guarded([&] {
    require_started();
    check_device(device);
    require_pointer(count, "device_properties: count");
    if (capacity < 0 || (capacity > 0 && !props))
      fail(BP_ERR_INVALID_ARGUMENT, "cpu-openblas: device_properties: props is NULL or capacity %d < 0", capacity);
    *count = fill_device_properties(props, capacity);
  });
}

bp_status api_alloc(int32_t device, uint64_t bytes, bp_buffer *out) {
  return guarded([&] {
    require_started();
    check_device(device);
    require_pointer(out, "alloc: out");
    *out = g_backend.memory.allocate(bytes);
  });
}

// Every kernel has finished when execute returns (see api_synchronize), so
// no pending work can use a buffer being freed: a wrapped one's owner gets
// its memory back (release) right here.
bp_status api_free(bp_buffer buffer) {
  return guarded([&] {
    require_started();
    g_backend.memory.release(check_buffer(buffer, "free"));
  });
}

// No alignment beyond the element size is needed: views at any element
// offset already reach every kernel, which load and store unaligned.
bp_status api_wrap_host(int32_t device, void *data, uint64_t bytes, void (*release)(void *), void *context,
                        bp_buffer *out) {
  return guarded([&] {
    require_started();
    check_device(device);
    require_pointer(out, "wrap_host: out");
    *out = nullptr;
    if (!data && bytes > 0)
      fail(BP_ERR_INVALID_ARGUMENT, "cpu-openblas: wrap_host: data is NULL but bytes is %llu (NULL is only for 0 bytes)",
           static_cast<unsigned long long>(bytes));
    *out = g_backend.memory.wrap(data, bytes, release, context);
  });
}

// The checks write and read share, in their order: a live buffer, a span
// inside it, and then, unless the span is empty, a host pointer. Returns
// where the span starts, or nullptr when there is nothing to copy.
char *host_copy_span(bp_buffer buffer, uint64_t offset, uint64_t bytes, const void *host, const char *what,
                     const char *host_what) {
  bp_buffer_s *b = check_buffer(buffer, what);
  check_range(b, offset, bytes, what);
  if (bytes == 0) return nullptr;
  require_pointer(host, host_what);
  return b->data() + offset;
}

bp_status api_write(bp_buffer dst, uint64_t offset, const void *src, uint64_t bytes) {
  return guarded([&] {
    require_started();
    if (char *at = host_copy_span(dst, offset, bytes, src, "write", "write: src")) std::memcpy(at, src, bytes);
  });
}

bp_status api_read(bp_buffer src, uint64_t offset, void *dst, uint64_t bytes) {
  return guarded([&] {
    require_started();
    if (char *at = host_copy_span(src, offset, bytes, dst, "read", "read: dst")) std::memcpy(dst, at, bytes);
  });
}

bp_status api_copy(bp_buffer src, uint64_t src_offset, bp_buffer dst, uint64_t dst_offset, uint64_t bytes) {
  return guarded([&] {
    require_started();
    bp_buffer_s *s = check_buffer(src, "copy (source)");
    bp_buffer_s *d = check_buffer(dst, "copy (destination)");
    check_range(s, src_offset, bytes, "copy (source)");
    check_range(d, dst_offset, bytes, "copy (destination)");
    if (bytes) std::memmove(d->data() + dst_offset, s->data() + src_offset, bytes);  // may overlap
  });
}

bp_status api_supports(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype, int32_t *answer) {
  return guarded([&] {
    require_started();
    check_device(device);
    require_pointer(answer, "supports: answer");
    *answer = op_supports(op, dtype, out_dtype) ? 1 : 0;
  });
}

bp_status api_execute(int32_t device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                      int32_t n_inputs, const bp_plugin_tensor *output) {
  return guarded([&] { execute_op(device, op, attrs, inputs, n_inputs, output); });
}

bp_status api_execute_fused(int32_t device, const bp_fused_program *program) {
  return guarded([&] { execute_fused_program(device, program); });
}

// Every kernel has finished when execute returns, so there is never
// anything to wait for.
bp_status api_synchronize(int32_t device) {
  return guarded([&] {
    require_started();
    check_device(device);
  });
}

bp_status api_host_address(bp_buffer buffer, void **address) {
  return guarded([&] {
    require_started();
    require_pointer(address, "host_address: address");
    *address = check_buffer(buffer, "host_address")->data();
  });
}

const bp_plugin_api kApi = {
    // Thread safe: the pool, the allocator and all state are safe to share.
    BP_SDK_API_HEAD(BP_PLUGIN_THREAD_SAFE, "cpu-openblas", BP_CPU_OPENBLAS_VERSION, "cpu"),
    BP_SDK_API_ENTRIES(api_),
    api_host_address,
    // One device: a collective among several never reaches this backend,
    // and across processes the core sends host memory through MPI itself.
    nullptr,  // collective
    nullptr,  // group_id
    nullptr,  // group_join
    nullptr,  // group_leave
    api_execute_fused,
    api_wrap_host,
};

}  // namespace

// No extern "C": plugin.h declares the entry point with C linkage, so this
// definition exports the unmangled symbol, as docs/writing-a-plugin.md shows.
BP_PLUGIN_EXPORT const bp_plugin_api *bp_plugin_get_api(uint32_t host_abi_major, uint32_t host_abi_minor) {
  (void)host_abi_minor;  // any minor: the core reads no field past struct_size
  return host_abi_major == BP_PLUGIN_ABI_MAJOR ? &kApi : nullptr;
}
