// cmd_config.cpp — `bp config`: every effective configuration key with its
// value and origin, and the device "auto" resolves to, with the reason.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "commands.hpp"
#include "json_output.hpp"
#include "options.hpp"
#include "runtime_info.hpp"
#include "table.hpp"

namespace bptool {

namespace {

// The bp-config document (docs/json-output.md).
constexpr const char kSchema[] = "bp-config";
constexpr int kSchemaVersion = 1;

}  // namespace

int cmd_config(int argc, char **argv) {
  Options opts("bp config",
               "Show the effective configuration: each key, its value (TOML) and where it came\n"
               "from (default, file:line:column, or an environment variable), then the device\n"
               "that new tensors go to and why.");
  opts.flag("json", "print one JSON document");
  opts.epilog("The file is the one named by BACKPLANE_CONFIG, else built-in defaults; see\n"
              "config/backplane.toml for every key and its environment variable.");
  if (auto rc = opts.parse(argc, argv)) return *rc;
  if (!start_runtime("bp config")) return kExitFailure;

  struct Entry {
    std::string key, value, origin;
  };
  std::vector<Entry> entries;
  const int32_t n = bp_config_count();
  for (int32_t i = 0; i < n; ++i) {
    const char *k = nullptr, *v = nullptr, *o = nullptr;
    bp::check(bp_config_entry(i, &k, &v, &o));
    entries.push_back({k, v, o});
  }
  const DefaultChoice choice = explain_default_device();
  const auto accel = explain_accelerators();
  const char *env = std::getenv("BACKPLANE_CONFIG");
  const std::string file = env && *env ? env : "";

  if (opts.has("json")) {
    Json doc = json_document(kSchema, kSchemaVersion);
    doc["config_file"] = file.empty() ? Json(nullptr) : Json(file);
    doc["entries"] = Json::array();
    for (const auto &e : entries) doc["entries"].push_back({{"key", e.key}, {"value", e.value}, {"origin", e.origin}});
    doc["default_device"] = {{"setting", choice.setting}, {"device", choice.device}, {"reason", choice.reason}};
    doc["accelerators"] = Json::array();
    for (const bp::Device &d : bp::try_all_gpus()) doc["accelerators"].push_back(d.name());
    doc["accelerator_notes"] = accel;
    std::fputs(json_text(doc, true).c_str(), stdout);
    return kExitOk;
  }

  std::printf("Configuration file: %s\n\n",
              file.empty() ? "none (BACKPLANE_CONFIG is not set: built-in defaults)" : file.c_str());
  Table t({"key", "value", "origin"});
  for (const auto &e : entries) t.add({e.key, e.value, e.origin});
  t.print(stdout);
  std::printf("\nDefault device: devices.default = %s -> %s\n  because %s.\n",
              choice.setting.c_str(), choice.device.c_str(), choice.reason.c_str());
  std::printf("\nAccelerators:\n");
  for (const auto &l : accel) std::printf("  %s\n", l.c_str());
  return kExitOk;
}

}  // namespace bptool
