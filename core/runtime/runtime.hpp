// The process-wide runtime: configuration, loaded backends, and the device
// names users ask for ("cpu", "gpu:1", "auto") resolved to devices.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "devices/registry.hpp"
#include "loader/plugin_loader.hpp"

namespace bp::core {

class Runtime {
 public:
  // The running runtime, started with bp_init(NULL) semantics on first use.
  // Throws the start-up error (bad config, missing required plugin) each time
  // until a later bp_init succeeds.
  static Runtime &get();
  // Starts explicitly; BP_ERR_STATE when already running.
  static void start_from_file(const char *path);
  static void start_from_string(const char *toml, const char *source_name);
  // bp_testing_restart (backplane/testing.h): the next call or bp_init
  // starts a new runtime. BP_ERR_STATE while tensors are live.
  static void restart_for_testing();

  const config::Config &config() const { return config_; }
  // Every candidate's report (loads every plugin first).
  const std::deque<PluginReport> &reports() { return plugins_.reports(); }

  // The backend with this name or device prefix (loads only what it must).
  Backend *find_backend(const std::string &name_or_prefix) { return plugins_.find(name_or_prefix, true); }
  // Starts every backend; returns every device.
  std::vector<Device *> all_devices();
  // Accelerators in fallback order (starts the backends it needs).
  std::vector<Device *> accelerators();
  Device &resolve(const std::string &name);
  Device &cpu();
  Device *try_gpu(int32_t i);
  // [devices] default resolved ("auto" there means auto_device()).
  Device &default_device();
  // The device "auto" names: the first accelerator in fallback order, else
  // cpu:0, else the first device of any backend in fallback order.
  Device &auto_device();

 private:
  explicit Runtime(config::Config config);
  static void install(config::Config config);
  // Backends in fallback order, then the rest in discovery order.
  std::vector<Backend *> backends_in_fallback_order();
  [[noreturn]] void unknown_device(const std::string &name, const std::string &why);
  // bp_init's checks of what only a running runtime can check: each throws
  // BP_ERR_CONFIG naming the key's origin (file:line:column or variable).
  void check_plugin_paths();
  void check_backend_options();
  void check_default_device();
  const config::Entry *entry(const std::string &key) const;
  std::string device_list();

  config::Config config_;
  PluginSet plugins_;
};

}  // namespace bp::core
