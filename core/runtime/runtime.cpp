#include "runtime/runtime.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>

#include "dispatch/host_fallback.hpp"
#include "fusion/fusion.hpp"
#include "errors/error.hpp"
#include "tensors/handle_table.hpp"
#include "trace/trace.hpp"

namespace bp::core {

namespace {

std::atomic<Runtime *> g_runtime{nullptr};
std::mutex g_start_mutex;
// Whether the running runtime's start reported a malformed BACKPLANE_*
// variable (Runtime::get); guarded by g_start_mutex.
bool g_environment_reported = false;

const char *getenv_fn(const char *name) { return std::getenv(name); }

config::Config configured(config::Config c) {
  config::apply_environment(c, getenv_fn);
  return c;
}

// A runtime stopped: no device stays listed, and each backend lists its own
// again when the next runtime starts it.
void forget_devices() {
  Backend::unlist_all();
  registry().forget_all();
}

[[noreturn]] void config_failed(const config::ConfigError &e) { fail(BP_ERR_CONFIG, e.what()); }

// A device index as written in a name: decimal digits without a leading
// zero ("0", "12"; not "00", "+1", "-1"). An index beyond int32 is a valid
// spelling of a device that does not exist: `out` is then INT32_MAX.
bool parse_index(const std::string &s, int32_t &out) {
  if (s.empty() || (s.size() > 1 && s[0] == '0')) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  out = s.size() > 10 ? INT32_MAX : int32_t(std::min<long long>(std::stoll(s), INT32_MAX));
  return true;
}

}  // namespace

Runtime::Runtime(config::Config config) : config_(std::move(config)), plugins_(config_) {
  registry().set_accelerator_kinds(config_.accelerator_kinds);
  trace::enabled.store(config_.trace, std::memory_order_relaxed);
  host_fallback_enabled.store(config_.host_fallback, std::memory_order_relaxed);
  fusion::enabled.store(config_.fusion, std::memory_order_relaxed);
  for (const auto &required : config_.plugins_required) {
    Backend *b = plugins_.find(required, true);
    if (b && b->name() == required) continue;
    std::string why = "not found in any plugin directory";
    for (const auto &r : plugins_.reports())
      if (r.name == required && !r.loaded) why = r.path + ": " + r.reason;
    fail(BP_ERR_PLUGIN, "required plugin '" + echo(required) +
                            "' (config key plugins.required) could not be loaded: " + why);
  }
  check_plugin_paths();
  check_backend_options();
  check_default_device();
}

const config::Entry *Runtime::entry(const std::string &key) const {
  for (const auto &e : config_.entries)
    if (e.key == key) return &e;
  return nullptr;
}

namespace {

[[noreturn]] void invalid_setting(const config::Entry *e, const std::string &key, const std::string &why) {
  fail(BP_ERR_CONFIG, echo(e ? e->origin : "default", kEchoPathBytes) + ": " + echo(key) + ": " + why);
}

}  // namespace

void Runtime::check_plugin_paths() {
  for (const auto &dir : config_.plugin_paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
      invalid_setting(entry("plugins.paths"), "plugins.paths",
                      "'" + echo(dir, kEchoPathBytes) + "' " +
                          (std::filesystem::exists(dir, ec) ? "is not a directory" : "does not exist"));
  }
}

// A backend given options by the file or the environment starts now, so that
// an option its init refuses fails bp_init at the option's position rather
// than the backend going missing from bp_devices later. Options for a backend
// that is not installed here wait for it, unchecked. An option at its
// documented default is known good and starts nothing: config/backplane.toml
// copied as it is must not start CUDA (200-300 ms) in every bp_init.
void Runtime::check_backend_options() {
  const config::Config documented = config::defaults();
  auto is_default = [&](const config::Entry &e) {
    for (const auto &d : documented.entries)
      if (d.key == e.key) return d.value == e.value;
    return false;
  };
  for (const auto &[name, options] : config_.backend_options) {
    std::vector<const config::Entry *> set;
    for (const auto &option : options) {
      const config::Entry *e = entry("backend." + name + "." + option.first);
      if (e && !is_default(*e)) set.push_back(e);
    }
    if (set.empty()) continue;
    Backend *b = plugins_.find(name, true);
    if (!b || b->name() != name || b->start() || b->start_status() != BP_ERR_CONFIG) continue;
    const config::Entry *culprit = set.front();
    for (const config::Entry *e : set) {
      const std::string option = e->key.substr(e->key.rfind('.') + 1);
      if (b->start_error().find(option) != std::string::npos) culprit = e;
    }
    invalid_setting(culprit, culprit->key, b->start_error());
  }
}

void Runtime::check_default_device() {
  // Resolving starts a backend: only a default someone wrote is worth that at
  // bp_init ("auto" always resolves while any device exists).
  const config::Entry *e = entry("devices.default");
  if (config_.default_device == "auto" || !e || e->origin == "default") return;
  try {
    resolve(config_.default_device);
  } catch (const Error &err) {
    invalid_setting(e, "devices.default", err.what());
  }
}

void Runtime::install(config::Config config) {
  // Called with g_start_mutex held, when no runtime runs and so no device is
  // listed. A start that fails after backends registered devices (bp_init's
  // checks start backends) must leave none listed.
  Runtime *rt = nullptr;
  try {
    rt = new Runtime(std::move(config));  // lives until exit, or a test restarts it (testing.h)
  } catch (...) {
    forget_devices();
    throw;
  }
  g_runtime.store(rt, std::memory_order_release);
}

Runtime &Runtime::get() {
  Runtime *rt = g_runtime.load(std::memory_order_acquire);
  if (rt) return *rt;
  std::lock_guard<std::mutex> lock(g_start_mutex);
  rt = g_runtime.load(std::memory_order_acquire);
  if (rt) return *rt;
  // A malformed BACKPLANE_* override fails the call that starts the runtime,
  // naming the variable, once; later calls start without the overrides
  // rather than failing for ever (an explicit bp_init reports it each time).
  try {
    const char *path = std::getenv("BACKPLANE_CONFIG");
    config::Config c = path && *path ? config::load_file(path) : config::defaults();
    try {
      config::apply_environment(c, getenv_fn);  // leaves c as it was on a bad variable
    } catch (const config::ConfigError &e) {
      if (!g_environment_reported) {
        g_environment_reported = true;
        fail(BP_ERR_CONFIG, std::string(e.what()) +
                                " (reported once: later calls start without the BACKPLANE_* overrides)");
      }
    }
    install(std::move(c));
  } catch (const config::ConfigError &e) {
    config_failed(e);
  }
  return *g_runtime.load(std::memory_order_acquire);
}

void Runtime::start_from_file(const char *path) {
  std::lock_guard<std::mutex> lock(g_start_mutex);
  if (g_runtime.load(std::memory_order_acquire))
    fail(BP_ERR_STATE, "bp_init: the runtime is already running (bp_init must come before any other call)");
  try {
    const char *env = std::getenv("BACKPLANE_CONFIG");
    if (path) install(configured(config::load_file(path)));
    else if (env && *env) install(configured(config::load_file(env)));
    else install(configured(config::defaults()));
  } catch (const config::ConfigError &e) {
    config_failed(e);
  }
}

void Runtime::start_from_string(const char *toml, const char *source_name) {
  if (!toml) fail(BP_ERR_INVALID_ARGUMENT, "bp_init_from_string: toml_text is NULL");
  std::lock_guard<std::mutex> lock(g_start_mutex);
  if (g_runtime.load(std::memory_order_acquire))
    fail(BP_ERR_STATE, "bp_init_from_string: the runtime is already running");
  try {
    install(configured(config::load_string(toml, source_name ? source_name : "<string>")));
  } catch (const config::ConfigError &e) {
    config_failed(e);
  }
}

void Runtime::restart_for_testing() {
  std::lock_guard<std::mutex> lock(g_start_mutex);
  if (const int64_t live = handles().live(); live > 0)
    fail(BP_ERR_STATE, "bp_testing_restart: " + std::to_string(live) +
                           " tensor(s) are still live; release every tensor first");
  Runtime *old = g_runtime.exchange(nullptr, std::memory_order_acq_rel);
  if (!old) return;
  // With no tensor left, deferred work has no reader: this only lets go of
  // what it holds before the devices are forgotten.
  fusion::flush_all();
  // Its backends and devices live on (Backend::adopt, Registry::add_devices)
  // for the next runtime; the rest goes, so a fuzzer may restart for ever.
  delete old;
  forget_devices();
  g_environment_reported = false;
  trace::clear();
}

std::vector<Backend *> Runtime::backends_in_fallback_order() {
  std::vector<Backend *> order;
  auto add = [&](Backend *b) {
    if (b && std::find(order.begin(), order.end(), b) == order.end()) order.push_back(b);
  };
  for (const auto &name : config_.fallback) add(find_backend(name));
  for (Backend *b : plugins_.backends()) add(b);
  return order;
}

std::vector<Device *> Runtime::all_devices() {
  for (Backend *b : plugins_.backends()) b->start();
  std::vector<Device *> out;
  for (int32_t i = 0; i < registry().count(); ++i) out.push_back(registry().get(i));
  return out;
}

std::vector<Device *> Runtime::accelerators() {
  std::vector<Device *> out;
  for (Backend *b : backends_in_fallback_order()) {
    if (!b->start()) continue;
    for (Device *d : b->devices())
      if (d->is_accelerator) out.push_back(d);
  }
  return out;
}

std::string Runtime::device_list() {
  std::string s;
  for (Device *d : all_devices()) s += (s.empty() ? "" : ", ") + d->name;
  return s.empty() ? "none" : s;
}

void Runtime::unknown_device(const std::string &name, const std::string &why) {
  fail(BP_ERR_UNKNOWN_DEVICE,
       "unknown device '" + echo(name) + "': " + why + "; available devices: " + device_list());
}

Device &Runtime::cpu() { return resolve("cpu:0"); }

Device *Runtime::try_gpu(int32_t i) {
  auto acc = accelerators();
  if (i >= 0 && size_t(i) < acc.size()) return acc[size_t(i)];
  return nullptr;
}

Device &Runtime::default_device() {
  const std::string &want = config_.default_device;
  return want == "auto" ? auto_device() : resolve(want);
}

Device &Runtime::auto_device() {
  if (Device *g = try_gpu(0)) return *g;
  if (Backend *b = find_backend("cpu"); b && b->start() && !b->devices().empty())
    return *b->devices().front();
  for (Backend *b : backends_in_fallback_order())
    if (b->start() && !b->devices().empty()) return *b->devices().front();
  fail(BP_ERR_UNKNOWN_DEVICE, "no device at all: no backend with devices was loaded (run `bp devices` to see why)");
}

Device &Runtime::resolve(const std::string &name) {
  if (name == "default") return default_device();
  if (name == "auto") return auto_device();
  size_t colon = name.find(':');
  std::string prefix = name.substr(0, colon);
  int32_t index = 0;
  if (colon != std::string::npos && !parse_index(name.substr(colon + 1), index))
    unknown_device(name, "the index must be a decimal number without a sign or leading zeros");
  if (prefix == "gpu") {
    auto acc = accelerators();
    if (size_t(index) < acc.size()) return *acc[size_t(index)];
    unknown_device(name, "there are " + std::to_string(acc.size()) + " accelerator devices");
  }
  Backend *b = plugins_.find(prefix, false);
  if (!b) {
    std::string why = "no loaded backend has device prefix '" + echo(prefix) + "'";
    for (const auto &r : plugins_.reports())
      if (!r.loaded && (r.name == prefix || r.prefix == prefix))
        why += " (plugin " + r.path + " was rejected: " + r.reason + ")";
    unknown_device(name, why);
  }
  if (!b->start()) unknown_device(name, "backend " + b->name() + " failed to start: " + b->start_error());
  if (size_t(index) >= b->devices().size())
    unknown_device(name, "backend " + b->name() + " has " + std::to_string(b->devices().size()) +
                             " devices" +
                             (b->devices().empty() ? " (" + b->why_no_devices() + ")" : ""));
  return *b->devices()[size_t(index)];
}

}  // namespace bp::core
