// cmd_devices.cpp — `bp devices`: nvidia-smi for every backend. A table of
// devices, each device's properties, the plugin files that were rejected and
// the backends that found no device, each with its reason.
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "json_output.hpp"
#include "options.hpp"
#include "runtime_info.hpp"
#include "table.hpp"

namespace bptool {

namespace {

std::string basename_of(const std::string &path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Memory used by anyone on the device; known only when the backend reports
// both total and free (0 means unknown).
bool used_known(const bp_device_info &i) {
  return i.memory_total && i.memory_free && i.memory_free <= i.memory_total;
}
uint64_t used_bytes(const bp_device_info &i) { return used_known(i) ? i.memory_total - i.memory_free : 0; }

// The bp-devices document (docs/json-output.md); a change to its keys or
// types that a reader of the current version would trip on is a new version.
constexpr const char kSchema[] = "bp-devices";
constexpr int kSchemaVersion = 2;

void print_json(const std::vector<DeviceSummary> &devices,
                const std::vector<bp_plugin_report> &reports) {
  Json doc = json_document(kSchema, kSchemaVersion);
  doc["api_version"] = std::to_string(bp_api_version() >> 16) + "." + std::to_string(bp_api_version() & 0xffffu);
  doc["default_device"] = default_device_name();
  doc["num_gpus"] = bp::num_gpus();
  doc["devices"] = Json::array();
  for (const auto &d : devices) {
    const bp_device_info &i = d.info;
    Json properties = Json::object();
    for (const auto &p : d.properties) properties[std::string(p.key)] = typed_value(p.value);
    doc["devices"].push_back({
        {"name", i.name},
        {"backend", i.backend},
        {"index", i.index},
        {"kind", kind_name(i.kind)},
        {"accelerator", i.is_accelerator != 0},
        {"model", i.model},
        {"memory_total", i.memory_total},
        {"memory_free", i.memory_free},
        {"memory_used", used_known(i) ? Json(used_bytes(i)) : Json(nullptr)},
        {"memory_in_use", i.memory_in_use},
        {"plugin_path", i.plugin_path},
        {"plugin_version", d.plugin_version},
        {"plugin_abi", d.plugin_abi},
        {"properties", std::move(properties)},
    });
  }
  doc["plugins"] = Json::array();
  for (const auto &r : reports)
    doc["plugins"].push_back({
        {"path", r.path},
        {"name", r.name},
        {"version", r.version},
        {"abi", plugin_abi_text(r)},
        {"loaded", r.loaded != 0},
        {"device_count", r.device_count},
        {"reason", r.reason},
    });
  std::fputs(json_text(doc, true).c_str(), stdout);
}

void print_text(const std::vector<DeviceSummary> &devices,
                const std::vector<bp_plugin_report> &reports) {
  std::printf("Backplane %u.%u — %zu device%s, %d counted as accelerator%s (gpu(i)), default %s\n\n",
              bp_api_version() >> 16, bp_api_version() & 0xffffu, devices.size(),
              devices.size() == 1 ? "" : "s", bp::num_gpus(), bp::num_gpus() == 1 ? "" : "s",
              default_device_name().c_str());
  Table t({"device", "backend", "kind", "accel", "model", "mem total", "used", "in use",
           "plugin file", "version", "abi"});
  for (size_t c : {5, 6, 7}) t.align_right(c);
  for (const auto &d : devices) {
    const bp_device_info &i = d.info;
    t.add({i.name, i.backend, kind_name(i.kind), i.is_accelerator ? "yes" : "no", i.model,
           i.memory_total ? human_bytes(i.memory_total) : "?",
           used_known(i) ? human_bytes(used_bytes(i)) : "?", human_bytes(i.memory_in_use),
           basename_of(i.plugin_path), d.plugin_version, d.plugin_abi});
  }
  if (t.empty()) std::printf("No devices: no backend found any (see the plugin list below).\n");
  else t.print(stdout);
  std::printf("\nused = the device's memory in use by anyone (? when the backend cannot tell);\n"
              "in use = bytes in live Backplane buffers.\n");

  for (const auto &d : devices) {
    std::printf("\n%s — %s (%s)\n", d.info.name, d.info.model, d.info.plugin_path);
    if (d.properties.empty()) std::printf("  (the backend reports no properties)\n");
    for (const auto &p : d.properties) std::printf("  %-28s %s\n", p.key, p.value);
  }

  std::printf("\nRejected plugin files:\n");
  int rejected = 0;
  for (const auto &r : reports) {
    if (r.loaded) continue;
    ++rejected;
    const std::string abi = plugin_abi_text(r);
    std::printf("  %s%s%s%s\n    reason: %s\n", r.path, *r.name ? " (backend " : "",
                *r.name ? (std::string(r.name) + ")").c_str() : "",
                abi.empty() ? "" : (", ABI " + abi).c_str(), r.reason);
  }
  if (!rejected) std::printf("  (none)\n");

  std::printf("\nBackends with no devices:\n");
  int empty = 0;
  for (const auto &r : reports) {
    if (!r.loaded || r.device_count != 0) continue;
    ++empty;
    std::printf("  %s %s, ABI %s (%s)\n    reason: %s\n", r.name, r.version, plugin_abi_text(r).c_str(),
                r.path, *r.reason ? r.reason : "(none given)");
  }
  if (!empty) std::printf("  (none)\n");
}

}  // namespace

int cmd_devices(int argc, char **argv) {
  Options opts("bp devices",
               "List every device of every backend (name, backend, kind, accelerator or not,\n"
               "model, memory, plugin file and version), then each device's properties, every\n"
               "plugin file that was rejected and every backend that found no device, each\n"
               "with its reason.");
  opts.flag("json", "print one JSON document with \"devices\" and \"plugins\" arrays");
  if (auto rc = opts.parse(argc, argv)) return *rc;
  if (!start_runtime("bp devices")) return kExitFailure;

  const auto devices = device_summaries();
  const auto reports = plugin_reports(true);
  if (opts.has("json")) print_json(devices, reports);
  else print_text(devices, reports);
  return kExitOk;
}

}  // namespace bptool
