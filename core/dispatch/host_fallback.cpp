#include "dispatch/host_fallback.hpp"

#include <string>
#include <vector>

#include "devices/registry.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "loader/backend.hpp"
#include "runtime/runtime.hpp"
#include "tensors/storage.hpp"
#include "trace/trace.hpp"

namespace bp::core {

std::atomic<bool> host_fallback_enabled{false};

namespace {

// Bytes from element [0...] to one past the last element of a strided view.
uint64_t span_bytes(const bp_plugin_tensor &t) {
  uint64_t last = 0;
  for (int32_t d = 0; d < t.rank; ++d) {
    if (t.shape[d] == 0) return 0;
    last += uint64_t(t.shape[d] - 1) * uint64_t(t.strides[d]);
  }
  return (last + 1) * uint64_t(dtype_size(t.dtype));
}

// A host copy of the bytes a view spans, as a cpu:0 storage and a view of it.
struct Staged {
  StorageRef storage;
  bp_plugin_tensor view;
  uint64_t bytes;
};

// An absent view (dtype BP_DTYPE_INVALID) is passed on as it is.
Staged stage_in(Device &from, Device &cpu, const bp_plugin_tensor &t) {
  if (t.dtype == BP_DTYPE_INVALID) return Staged{StorageRef(), t, 0};
  Staged s{StorageRef(Storage::allocate(cpu, span_bytes(t))), t, span_bytes(t)};
  s.view.buffer = s.storage->buffer();
  s.view.offset = 0;
  if (s.bytes) {
    Backend &b = *from.backend;
    auto lock = b.call_lock();
    b.check(b.api().read(t.buffer, t.offset, s.storage->host(), s.bytes), "read");
    b.counters.bytes_device_to_host.fetch_add(s.bytes, std::memory_order_relaxed);
  }
  return s;
}

}  // namespace

bool run_on_host(Device &device, int32_t op, int32_t dtype, int32_t out_dtype,
                 const bp_op_attrs &attrs, const bp_plugin_tensor *inputs, int32_t n_inputs,
                 const bp_plugin_tensor *outputs, int32_t n_outputs) {
  Device *cpu_device = nullptr;
  try {
    cpu_device = &Runtime::get().cpu();
  } catch (const Error &) {
    return false;  // no cpu:0: the caller reports the original refusal
  }
  Device &cpu = *cpu_device;
  if (&cpu == &device) return false;
  Backend &host = *cpu.backend;
  if (!host.supports(cpu.index, op, dtype, out_dtype) ||
      !host.optional(&bp_plugin_api::host_address))
    return false;  // staging needs cpu:0 memory the core can address
  std::vector<Staged> staged;
  std::vector<bp_plugin_tensor> views;
  for (int32_t i = 0; i < n_inputs; ++i) {
    staged.push_back(stage_in(device, cpu, inputs[i]));
    views.push_back(staged.back().view);
  }
  // The outputs are staged in too, so elements a strided output skips survive.
  std::vector<Staged> staged_out;
  std::vector<bp_plugin_tensor> out_views;
  for (int32_t i = 0; i < n_outputs; ++i) {
    staged_out.push_back(stage_in(device, cpu, outputs[i]));
    out_views.push_back(staged_out.back().view);
  }
  {
    auto lock = host.call_lock();
    bp_status s = host.api().execute(cpu.index, op, &attrs, views.data(), n_inputs, out_views.data());
    if (s != BP_OK) host.check(s, "execute (host fallback)");
    // execute may return before the work is done: wait before reading it.
    host.check(host.api().synchronize(cpu.index), "synchronize (host fallback)");
  }
  for (int32_t i = 0; i < n_outputs; ++i) {
    const Staged &out = staged_out[size_t(i)];
    if (!out.bytes) continue;
    Backend &b = *device.backend;
    auto lock = b.call_lock();
    b.check(b.api().write(outputs[i].buffer, outputs[i].offset, out.storage->host(), out.bytes), "write");
    b.counters.bytes_host_to_device.fetch_add(out.bytes, std::memory_order_relaxed);
  }
  host.counters.ops.fetch_add(1, std::memory_order_relaxed);
  // Each output is copied in and back out.
  const int32_t copies = n_inputs + 2 * n_outputs;
  device.backend->counters.staged_copies.fetch_add(uint64_t(copies), std::memory_order_relaxed);
  if (trace::on())
    trace::record(std::string(op_name(op)) + " " + dtype_name(dtype) + ": inputs on " +
                  device.name + ", ran on backend " + host.name() + " (" + cpu.name +
                  ") because backend " + device.backend->name() +
                  " does not implement it and dispatch.host_fallback is on, copies " +
                  std::to_string(copies));
  return true;
}

}  // namespace bp::core
