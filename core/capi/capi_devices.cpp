// Plugin reports, device lookup and the seed chapter's device functions.
#include <algorithm>

#include "backplane/backplane.h"
#include "capi/guard.hpp"
#include "capi/sized_struct.hpp"
#include "fusion/fusion.hpp"
#include "loader/backend.hpp"
#include "loader/plugin_scratch.hpp"
#include "runtime/runtime.hpp"

using namespace bp::core;

namespace {

// The list convention of bp_devices and bp_try_all_gpus: *count gets how many
// devices `which` names, and out the ids of the first `capacity` of them (out
// may be NULL when capacity is 0). The arguments are checked before the
// runtime is asked.
void list_devices(const char *fn, std::vector<Device *> (Runtime::*which)(), bp_device *out,
                  int32_t capacity, int32_t *count) {
  int32_t &n = require(count, fn, "count");
  if (capacity > 0 && !out) fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": out is NULL");
  const std::vector<Device *> devices = (Runtime::get().*which)();
  for (size_t k = 0; k < devices.size() && int32_t(k) < capacity; ++k) out[k] = devices[k]->id;
  n = int32_t(devices.size());
}

// The most properties bp_device_properties asks a plugin for.
constexpr int32_t kMaxProperties = 1024;

}  // namespace

extern "C" {

int32_t bp_plugin_report_count(void) {
  int32_t n = 0;
  guarded([&] { n = int32_t(Runtime::get().reports().size()); });
  return n;
}

bp_status bp_plugin_report_get(int32_t i, int32_t count_devices, bp_plugin_report *report) {
  return guarded([&] {
    bp_plugin_report &caller = require(report, "bp_plugin_report_get", "report");
    check_struct_size(caller.struct_size, BP_PLUGIN_REPORT_SIZE_1_0, "bp_plugin_report_get");
    const auto &reports = Runtime::get().reports();
    if (i < 0 || size_t(i) >= reports.size())
      fail(BP_ERR_INVALID_ARGUMENT, "bp_plugin_report_get: " + index_range("index", i, reports.size()));
    const PluginReport &p = reports[size_t(i)];
    bp_plugin_report r{};
    r.loaded = p.loaded;
    r.abi_major = p.abi_major;
    r.abi_minor = p.abi_minor;
    r.path = p.path.c_str();
    r.name = p.name.c_str();
    r.version = p.version.c_str();
    r.reason = p.reason.c_str();
    r.device_count = -1;
    if (p.backend && (count_devices || p.backend->started())) {
      if (p.backend->start()) {
        r.device_count = int32_t(p.backend->devices().size());
        if (p.backend->devices().empty()) r.reason = p.backend->why_no_devices().c_str();
      } else {
        r.device_count = 0;
        r.reason = p.backend->start_error().c_str();
      }
    }
    write_sized(caller, r, {BP_PLUGIN_REPORT_SIZE_1_0, BP_PLUGIN_REPORT_SIZE_1_1});
  });
}

bp_status bp_devices(bp_device *out, int32_t capacity, int32_t *count) {
  return guarded([&] { list_devices("bp_devices", &Runtime::all_devices, out, capacity, count); });
}

bp_status bp_device_get(const char *name, bp_device *out) {
  return guarded([&] {
    const char *n = &require(name, "bp_device_get", "name");
    require(out, "bp_device_get", "out") = Runtime::get().resolve(n).id;
  });
}

const char *bp_device_name(bp_device device) {
  const char *name = nullptr;
  guarded([&] { name = device_or_throw(device).name.c_str(); });
  return name;
}

bp_status bp_device_info_get(bp_device device, bp_device_info *info) {
  return guarded([&] {
    bp_device_info &caller = require(info, "bp_device_info_get", "info");
    check_struct_size(caller.struct_size, BP_DEVICE_INFO_SIZE_1_0, "bp_device_info_get");
    Device &d = device_or_throw(device);
    const bp_plugin_device_info p = d.backend->device_info(d.index);
    bp_device_info i{};
    i.kind = d.kind;
    i.is_accelerator = d.is_accelerator;
    i.index = d.index;
    i.name = d.name.c_str();
    i.backend = d.backend->name().c_str();
    i.model = d.model.c_str();
    i.plugin_path = d.backend->path().c_str();
    i.memory_total = p.memory_total;
    i.memory_free = p.memory_free;
    i.memory_in_use = p.memory_in_use;
    write_sized(caller, i, {BP_DEVICE_INFO_SIZE_1_0});
  });
}

bp_status bp_device_properties(bp_device device, bp_property *props, int32_t capacity,
                               int32_t *count) {
  return guarded([&] {
    int32_t &n = require(count, "bp_device_properties", "count");
    if (capacity > 0 && !props) fail(BP_ERR_INVALID_ARGUMENT, "bp_device_properties: props is NULL");
    Device &d = device_or_throw(device);
    auto fn = d.backend->optional(&bp_plugin_api::device_properties);
    int32_t written = 0;
    // The plugin fills a guarded scratch array, never the caller's, and is
    // asked for at most kMaxProperties (a capacity the caller overstates
    // costs no more than that).
    const int32_t asked = std::min(capacity, kMaxProperties);
    PluginScratch scratch(size_t(std::max(asked, 0)) * sizeof(bp_property));
    if (fn) {
      {
        auto lock = d.backend->call_lock();
        d.backend->check(fn(d.index, asked > 0 ? scratch.as<bp_property>() : nullptr, asked, &written),
                         "device_properties");
      }
      scratch.check(*d.backend, "device_properties");
    }
    // A 1.0 plugin may have reported its total rather than the number it
    // wrote: the caller never reads past what its array holds.
    n = std::clamp(written, 0, std::max(asked, 0));
    for (int32_t k = 0; k < n; ++k) {
      bp_property &p = scratch.as<bp_property>()[k];
      p.key[sizeof p.key - 1] = '\0';
      p.value[sizeof p.value - 1] = '\0';
      props[k] = p;
    }
  });
}

bp_status bp_cpu(bp_device *out) {
  return guarded([&] { require(out, "bp_cpu", "out") = Runtime::get().cpu().id; });
}

bp_status bp_gpu(int32_t i, bp_device *out) {
  return guarded([&] {
    bp_device &o = require(out, "bp_gpu", "out");
    if (i < 0) fail(BP_ERR_UNKNOWN_DEVICE, "bp_gpu: index " + std::to_string(i) + " is negative");
    o = Runtime::get().resolve("gpu:" + std::to_string(i)).id;
  });
}

int32_t bp_num_gpus(void) {
  int32_t n = 0;
  guarded([&] { n = int32_t(Runtime::get().accelerators().size()); });
  return n;
}

bp_status bp_try_gpu(int32_t i, bp_device *out) {
  return guarded([&] {
    bp_device &o = require(out, "bp_try_gpu", "out");
    Device *g = Runtime::get().try_gpu(i);
    o = g ? g->id : Runtime::get().cpu().id;
  });
}

bp_status bp_try_all_gpus(bp_device *out, int32_t capacity, int32_t *count) {
  return guarded([&] { list_devices("bp_try_all_gpus", &Runtime::accelerators, out, capacity, count); });
}

bp_status bp_default_device(bp_device *out) {
  return guarded([&] { require(out, "bp_default_device", "out") = Runtime::get().default_device().id; });
}

bp_status bp_synchronize(bp_device device) {
  return guarded([&] {
    Device &d = device_or_throw(device);
    fusion::flush(d, true);
    auto lock = d.backend->call_lock();
    d.backend->check(d.backend->api().synchronize(d.index), "synchronize");
  });
}

bp_status bp_device_supports(bp_device device, int32_t op, int32_t dtype, int32_t out_dtype,
                             int32_t *supported) {
  return guarded([&] {
    int32_t &answer = require(supported, "bp_device_supports", "supported");
    Device &d = device_or_throw(device);
    if (out_dtype == BP_DTYPE_INVALID) out_dtype = bp_vocab_out_dtype(op, dtype);
    answer = bp_vocab_allows(op, dtype, out_dtype) && d.backend->supports(d.index, op, dtype, out_dtype);
  });
}

}  // extern "C"
