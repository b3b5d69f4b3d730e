// Discovery and loading of plugin files. Every candidate file ends up either
// as a Backend or as a rejection with its reason; both are kept as reports.
#pragma once

#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "loader/backend.hpp"

namespace bp::config {
struct Config;
}

namespace bp::core {

struct PluginReport {
  std::string path;
  std::string name;
  std::string version;
  std::string prefix;  // the device prefix its table declares, once validated
  uint32_t abi_major = 0, abi_minor = 0;  // of the table the plugin returned; 0 if none
  bool loaded = false;
  bool builtin = false;  // found in the directory beside libbackplane.so
  std::string reason;
  Backend *backend = nullptr;  // when loaded
};

// The directories searched, in order of precedence: lib/backplane/plugins
// beside libbackplane.so (the built-in plugins), then the config's paths
// (BACKPLANE_PLUGIN_PATH is already appended to them). Never the current
// directory.
std::vector<std::string> plugin_directories(const config::Config &config);

// Every libbackplane-<name>.so in those directories, opened on demand:
// discovery only lists files, and a plugin is loaded (dlopen, ABI checks)
// when its backend, one of its devices, or the full list is first needed. A
// program that only uses cpu:0 never maps the CUDA libraries. Thread-safe.
//
// Two plugins with one backend name or device prefix: the one earlier in
// precedence order is loaded, the other rejected with the reason, whatever
// the order of calls. To make that so, a plugin from outside the built-in
// directory is only loaded after every built-in one and every earlier one.
class PluginSet {
 public:
  explicit PluginSet(const config::Config &config);  // keeps a reference
  PluginSet(const PluginSet &) = delete;
  PluginSet &operator=(const PluginSet &) = delete;

  // The backend with this device prefix (or, with by_name, this name),
  // loading the candidate files that may provide it; nullptr if none does.
  Backend *find(const std::string &name_or_prefix, bool by_name);
  // Every loaded backend in discovery order (loads every candidate first).
  std::vector<Backend *> backends();
  // One report per candidate file in discovery order (loads every candidate).
  const std::deque<PluginReport> &reports();

 private:
  void load_locked(size_t i);
  // Loads candidate i and, first, every candidate it must not override.
  void load_in_order_locked(size_t i);
  void load_all_locked();
  Backend *loaded_locked(const std::string &name_or_prefix, bool by_name) const;

  const config::Config &config_;
  std::mutex mutex_;
  std::deque<PluginReport> reports_;  // stable addresses: C API hands out their strings
  std::vector<bool> attempted_;
  std::vector<Backend *> backends_;  // owned by Backend's process-wide store
  bool all_loaded_ = false;
};

}  // namespace bp::core
