// cmd_config.cpp — `bp config`: every effective configuration key with its
// value and origin, and the device "auto" resolves to, with the reason.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "commands.hpp"
#include "json_writer.hpp"
#include "options.hpp"
#include "runtime_info.hpp"
#include "table.hpp"

namespace bptool {

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
    JsonWriter j(true);
    j.begin_object();
    j.key("config_file");
    if (file.empty()) j.null();
    else j.value(file);
    j.key("entries").begin_array();
    for (const auto &e : entries) {
      j.begin_object();
      j.field("key", e.key).field("value", e.value).field("origin", e.origin);
      j.end_object();
    }
    j.end_array();
    j.key("default_device").begin_object();
    j.field("setting", choice.setting).field("device", choice.device).field("reason", choice.reason);
    j.end_object();
    j.key("accelerators").begin_array();
    for (const bp::Device &d : bp::try_all_gpus()) j.value(d.name());
    j.end_array();
    j.key("accelerator_notes").begin_array();
    for (const auto &l : accel) j.value(l);
    j.end_array();
    j.end_object();
    std::printf("%s\n", j.str().c_str());
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
