// runtime_info.hpp — what several subcommands ask the runtime: starting it
// with a clear message, devices with their plugin, plugin reports, config
// values, and the explanation of which device "auto" and gpu(i) pick.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backplane.hpp"

namespace bptool {

// bp_init(NULL): BACKPLANE_CONFIG or built-in defaults. On failure prints
// "<command>: cannot start the Backplane runtime: <message>" to stderr and
// returns false (the caller exits 1).
bool start_runtime(const char *command);

struct DeviceSummary {
  bp::Device device;
  bp_device_info info{};
  std::string plugin_version;  // from the plugin report of info.plugin_path
  std::string plugin_abi;      // "1.1", likewise
  std::vector<bp_property> properties;
};

// Every device of every backend (starts them all).
std::vector<DeviceSummary> device_summaries();

// Every plugin candidate; count_devices starts each backend to count devices.
std::vector<bp_plugin_report> plugin_reports(bool count_devices);

// "1.1": the plugin ABI version a report's table declared; "" when it gave none.
std::string plugin_abi_text(const bp_plugin_report &report);

// "cpu", "gpu", "accelerator", or "kind <n>".
std::string kind_name(int32_t kind);

// Effective config value as TOML text and its origin; "" when absent.
std::string config_value(const std::string &key);
std::string config_origin(const std::string &key);

// A property value, "" when the device does not report it.
std::string property(const std::vector<bp_property> &props, const std::string &key);
std::string property(bp::Device device, const std::string &key);

// The default device's name, or "none (<why>)" when there is no device at all.
std::string default_device_name();

// The default device and why it was chosen, in plain words.
struct DefaultChoice {
  std::string device;   // "cpu:0"
  std::string setting;  // devices.default as written ("\"auto\"")
  std::string reason;
};
DefaultChoice explain_default_device();

// Sentences saying which devices count as accelerators and why (config
// devices.accelerator_kinds), one per line, without trailing newline.
std::vector<std::string> explain_accelerators();

// First three fields of /proc/loadavg ("0.52 0.61 0.70"), "unknown" if absent.
std::string load_average();

// "1.5 GiB", "512 MiB", "0 B".
std::string human_bytes(uint64_t bytes);

// Joins device names: "[cpu:0, opencl:1]".
std::string device_list(const std::vector<bp::Device> &devices);

}  // namespace bptool
