// The routing trace and per-backend counters.
#include <cstring>

#include "backplane/backplane.h"
#include "capi/guard.hpp"
#include "capi/runtime_switch.hpp"
#include "capi/sized_struct.hpp"
#include "loader/backend.hpp"
#include "runtime/runtime.hpp"
#include "trace/trace.hpp"

using namespace bp::core;

extern "C" {

bp_status bp_trace_enable(int32_t on) { return set_switch(trace::enabled, on); }

int32_t bp_trace_count(void) { return trace::count(); }

bp_status bp_trace_line(int32_t i, char *buf, int32_t capacity) {
  return guarded([&] {
    if (!buf || capacity <= 0) fail(BP_ERR_INVALID_ARGUMENT, "bp_trace_line: buf is NULL or capacity <= 0");
    std::string line;
    if (!trace::line(i, line))
      fail(BP_ERR_INVALID_ARGUMENT, "bp_trace_line: no trace line " + std::to_string(i));
    size_t n = std::min(line.size(), size_t(capacity) - 1);
    std::memcpy(buf, line.data(), n);
    buf[n] = '\0';
  });
}

bp_status bp_trace_clear(void) {
  return guarded([] { trace::clear(); });
}

bp_status bp_backend_counters_get(const char *backend, bp_backend_counters *counters) {
  return guarded([&] {
    const char *name = &require(backend, "bp_backend_counters_get", "backend");
    bp_backend_counters &caller = require(counters, "bp_backend_counters_get", "counters");
    check_struct_size(caller.struct_size, BP_BACKEND_COUNTERS_SIZE_1_0, "bp_backend_counters_get");
    Backend *b = Runtime::get().find_backend(name);
    if (!b) fail(BP_ERR_INVALID_ARGUMENT, "bp_backend_counters_get: no backend named '" + echo(name) + "'");
    bp_backend_counters c{};
    c.ops = b->counters.ops.load();
    c.allocations = b->counters.allocations.load();
    c.bytes_host_to_device = b->counters.bytes_host_to_device.load();
    c.bytes_device_to_host = b->counters.bytes_device_to_host.load();
    c.bytes_device_to_device = b->counters.bytes_device_to_device.load();
    c.staged_copies = b->counters.staged_copies.load();
    write_sized(caller, c, {BP_BACKEND_COUNTERS_SIZE_1_0});
  });
}

}  // extern "C"
