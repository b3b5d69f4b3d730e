#include "runtime_info.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace bptool {

bool start_runtime(const char *command) {
  if (bp_init(nullptr) == BP_OK) return true;
  if (bp_last_error_status() == BP_ERR_STATE) return true;  // already running
  std::fprintf(stderr, "%s: cannot start the Backplane runtime (%s): %s\n", command,
               bp_status_name(bp_last_error_status()), bp_last_error());
  return false;
}

std::vector<bp_plugin_report> plugin_reports(bool count_devices) {
  std::vector<bp_plugin_report> out;
  const int32_t n = bp_plugin_report_count();
  for (int32_t i = 0; i < n; ++i) {
    bp_plugin_report r{};
    r.struct_size = sizeof r;
    bp::check(bp_plugin_report_get(i, count_devices, &r));
    out.push_back(r);
  }
  return out;
}

std::string plugin_abi_text(const bp_plugin_report &r) {
  if (r.abi_major == 0 && r.abi_minor == 0) return "";
  return std::to_string(r.abi_major) + "." + std::to_string(r.abi_minor);
}

std::vector<DeviceSummary> device_summaries() {
  const auto reports = plugin_reports(true);
  std::vector<DeviceSummary> out;
  for (const bp::Device &d : bp::devices()) {
    DeviceSummary s;
    s.device = d;
    s.info = d.info();
    for (const auto &r : reports)
      if (r.loaded && std::string(r.path) == s.info.plugin_path) {
        s.plugin_version = r.version;
        s.plugin_abi = plugin_abi_text(r);
      }
    s.properties = d.properties();
    out.push_back(std::move(s));
  }
  return out;
}

std::string kind_name(int32_t kind) {
  switch (kind) {
    case BP_DEVICE_CPU: return "cpu";
    case BP_DEVICE_GPU: return "gpu";
    case BP_DEVICE_ACCELERATOR: return "accelerator";
    default: return "kind " + std::to_string(kind);
  }
}

namespace {

bool config_lookup(const std::string &key, std::string *value, std::string *origin) {
  const int32_t n = bp_config_count();
  for (int32_t i = 0; i < n; ++i) {
    const char *k = nullptr, *v = nullptr, *o = nullptr;
    if (bp_config_entry(i, &k, &v, &o) != BP_OK) continue;
    if (key == k) {
      if (value) *value = v;
      if (origin) *origin = o;
      return true;
    }
  }
  return false;
}

// Entries of a TOML array of strings: ["gpu", "opencl:cpu"] -> {gpu, opencl:cpu}.
std::vector<std::string> toml_strings(const std::string &text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '"') continue;
    size_t j = text.find('"', i + 1);
    if (j == std::string::npos) break;
    out.push_back(text.substr(i + 1, j - i - 1));
    i = j;
  }
  return out;
}

}  // namespace

std::string config_value(const std::string &key) {
  std::string v;
  config_lookup(key, &v, nullptr);
  return v;
}

std::string config_origin(const std::string &key) {
  std::string o;
  config_lookup(key, nullptr, &o);
  return o;
}

std::string property(const std::vector<bp_property> &props, const std::string &key) {
  for (const auto &p : props)
    if (key == p.key) return p.value;
  return "";
}

std::string property(bp::Device device, const std::string &key) {
  return property(device.properties(), key);
}

std::string device_list(const std::vector<bp::Device> &devices) {
  std::string s = "[";
  for (size_t i = 0; i < devices.size(); ++i) s += (i ? ", " : "") + devices[i].name();
  return s + "]";
}

std::vector<std::string> explain_accelerators() {
  std::vector<std::string> lines;
  const std::string kinds = config_value("devices.accelerator_kinds");
  const std::string origin = config_origin("devices.accelerator_kinds");
  const auto counted = toml_strings(kinds);
  lines.push_back("devices.accelerator_kinds = " + kinds + " (from " + origin +
                  "): only devices of these kinds count as accelerators (the chapter's GPUs).");
  std::vector<std::string> yes, no_host;
  for (const bp::Device &d : bp::devices()) {
    const bp_device_info i = d.info();
    const std::string name = d.name();
    const std::string prefix = name.substr(0, name.find(':'));
    if (i.is_accelerator) {
      std::string why = kind_name(i.kind);
      for (const auto &k : counted)
        if (k == prefix + ":" + kind_name(i.kind)) why = k;
      yes.push_back(name + " (kind " + kind_name(i.kind) + ", counted by \"" + why + "\")");
    } else if (i.kind == BP_DEVICE_CPU && prefix != "cpu" && prefix != "reference") {
      no_host.push_back(name);
    }
  }
  if (yes.empty()) {
    lines.push_back("No device counts as an accelerator here, so gpu(i) does not exist and "
                    "try_gpu() falls back to cpu:0.");
  } else {
    std::string s = "Accelerators, in fallback order " + config_value("devices.fallback") + ": ";
    for (size_t k = 0; k < yes.size(); ++k) s += (k ? ", " : "") + yes[k];
    lines.push_back(s + ".");
  }
  if (!no_host.empty()) {
    std::string names;
    for (size_t k = 0; k < no_host.size(); ++k) names += (k ? ", " : "") + no_host[k];
    const std::string prefix = no_host.front().substr(0, no_host.front().find(':'));
    lines.push_back(names + " run on the host CPU (kind cpu, e.g. PoCL for OpenCL): they count "
                    "as accelerators only when accelerator_kinds includes \"" + prefix +
                    ":cpu\" (or \"cpu\").");
  }
  if (no_host.empty()) {
    bool pocl_counted = false;
    for (const auto &k : counted) pocl_counted = pocl_counted || k == "opencl:cpu" || k == "cpu";
    lines.push_back(std::string("OpenCL devices that run on the host CPU (PoCL) have kind cpu and "
                                "count as accelerators only when accelerator_kinds includes "
                                "\"opencl:cpu\"; here it ") +
                    (pocl_counted ? "does." : "does not."));
  }
  return lines;
}

std::string default_device_name() {
  bp_device d;
  if (bp_default_device(&d) != BP_OK) return std::string("none (") + bp_last_error() + ")";
  return bp::Device(d).name();
}

DefaultChoice explain_default_device() {
  DefaultChoice c;
  c.setting = config_value("devices.default");
  const std::string origin = config_origin("devices.default");
  bp_device id;
  if (bp_default_device(&id) != BP_OK) {
    c.device = "none";
    c.reason = bp_last_error();
    return c;
  }
  c.device = bp::Device(id).name();
  const bool is_auto = c.setting == "\"auto\"" || c.setting == "\"default\"";
  if (!is_auto) {
    c.reason = "devices.default = " + c.setting + " (from " + origin + ") names it";
    return c;
  }
  const std::string fallback = config_value("devices.fallback");
  if (bp::num_gpus() > 0) {
    c.reason = "\"auto\" takes the first accelerator in fallback order " + fallback +
               " (accelerator kinds " + config_value("devices.accelerator_kinds") + ")";
  } else if (c.device == "cpu:0") {
    c.reason = "\"auto\" found no accelerator (no device of kinds " +
               config_value("devices.accelerator_kinds") + "), so it falls back to cpu:0";
  } else {
    c.reason = "\"auto\" found no accelerator and no cpu:0, so it takes the first device of "
               "the first backend in fallback order " + fallback;
  }
  return c;
}

std::string load_average() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  if (!(f >> a >> b >> c)) return "unknown";
  return a + " " + b + " " + c;
}

std::string human_bytes(uint64_t bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  if (u == 0) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

}  // namespace bptool
