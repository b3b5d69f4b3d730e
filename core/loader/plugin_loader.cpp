#include "loader/plugin_loader.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <deque>
#include <map>
#include <boost/dll/shared_library.hpp>
#include <filesystem>
#include <system_error>

#include "config/config.hpp"
#include "plugin_validation.hpp"
#include "loader/plugin_file.hpp"
#include "loader/plugin_probe.hpp"
#include "loader/plugin_probe_cache.hpp"

namespace fs = std::filesystem;

namespace bp::core {

namespace {

constexpr const char *kFilePrefix = "libbackplane-";
constexpr const char *kFileSuffix = ".so";

// "libbackplane-cuda.so" -> "cuda"; empty when the file is not a candidate.
std::string name_from_file(const std::string &file) {
  const std::string prefix = kFilePrefix, suffix = kFileSuffix;
  if (file.size() <= prefix.size() + suffix.size()) return {};
  if (file.compare(0, prefix.size(), prefix) != 0) return {};
  if (file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0) return {};
  return file.substr(prefix.size(), file.size() - prefix.size() - suffix.size());
}

// lib/backplane/plugins beside the file that holds this code (libbackplane.so).
std::string directory_beside_library() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&directory_beside_library), &info) || !info.dli_fname)
    return {};
  std::error_code ec;
  fs::path lib = fs::canonical(info.dli_fname, ec);
  if (ec) return {};
  return (lib.parent_path() / "backplane" / "plugins").string();
}

// Boost.DLL's messages end in a meaningless errno text; keep the dlerror part.
std::string dl_reason(const std::system_error &e) {
  std::string what = e.what();
  const std::string marker = "dlerror system message: ";
  size_t at = what.find(marker);
  if (at == std::string::npos) return what;
  size_t end = what.rfind(')');
  if (end == std::string::npos || end < at) end = what.size();
  return what.substr(at + marker.size(), end - at - marker.size());
}

// Every library ever loaded stays open for the life of the process (with
// RTLD_NODELETE its code stays mapped anyway): objects a plugin made may
// outlive any owner. Each path is opened once, however many runtimes load it
// (backplane/testing.h restarts them). Called with the PluginSet's lock held;
// the lock here covers two runtimes' sets.
boost::dll::shared_library &load_library(const std::string &path) {
  static std::mutex mutex;
  static auto *libraries = new std::map<std::string, boost::dll::shared_library>();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = libraries->find(path);
  if (it != libraries->end()) return it->second;
  namespace mode = boost::dll::load_mode;
  boost::dll::shared_library lib(path, mode::rtld_now | mode::rtld_local | static_cast<mode::type>(RTLD_NODELETE));
  return libraries->emplace(path, std::move(lib)).first->second;
}

bool contains(const std::vector<std::string> &list, const std::string &s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

bool replaced(const config::Config &config, const std::string &name) {
  auto it = config.replace_builtin.find(name);
  return it != config.replace_builtin.end() && it->second;
}

std::vector<std::pair<std::string, std::string>> options_for(const config::Config &config,
                                                             const std::string &name) {
  auto it = config.backend_options.find(name);
  if (it == config.backend_options.end()) return {};
  return {it->second.begin(), it->second.end()};
}

// Loads one candidate: a Backend, or the reason it was rejected, both
// recorded in its report.
void load_one(PluginReport &report, const config::Config &config,
              std::vector<Backend *> &backends) {
  const std::string &path = report.path;
  if (std::string problem = plugin_file_problem(path); !problem.empty()) {
    report.reason = problem;
    return;
  }
  // A plugin from outside the built-in directory is started in a child
  // process first, unless [plugins.<name>] probe_in_subprocess says not to
  // (<name> is the file's: libbackplane-<name>.so).
  auto wanted = config.probe_in_subprocess.find(report.name);
  if (wanted != config.probe_in_subprocess.end() ? wanted->second : !report.builtin) {
    const PluginOptions options = options_for(config, report.name);
    std::optional<std::string> verdict = cached_probe(path, options);
    if (!verdict) {
      verdict = probe_plugin(path, options);
      if (!is_transient_probe_failure(*verdict)) store_probe(path, options, *verdict);
    }
    if (!verdict->empty()) {
      report.reason = *verdict;
      return;
    }
  }
  boost::dll::shared_library *lib = nullptr;
  try {
    lib = &load_library(path);
  } catch (const std::system_error &e) {
    report.reason = "cannot load: " + dl_reason(e);
    return;
  }
  if (!lib->has(BP_PLUGIN_ENTRY_SYMBOL)) {
    report.reason = std::string("missing entry symbol ") + BP_PLUGIN_ENTRY_SYMBOL;
    return;
  }
  auto get_api = lib->get<const bp_plugin_api *(uint32_t, uint32_t)>(BP_PLUGIN_ENTRY_SYMBOL);
  const bp_plugin_api *api = get_api(BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR);
  if (api) {
    report.abi_major = api->abi_major;
    report.abi_minor = api->abi_minor;
  }
  // Nothing in a table that failed validation is read: its pointers may be
  // anything. The report keeps the name from the file's.
  std::string problem = plugin_validation::validate_plugin_api(api);
  if (!problem.empty()) {
    report.reason = problem;
    return;
  }
  report.name = api->name;
  report.version = api->version ? api->version : "";
  report.prefix = api->device_prefix;
  if (contains(config.plugins_disabled, report.name)) {
    report.reason = "disabled by the config key plugins.disabled";
    return;
  }
  for (auto &other : backends) {
    const std::string precedence = other->builtin() && !report.builtin
                                       ? " (a built-in plugin's; built-in plugins take precedence)"
                                       : " (the earlier plugin in search order takes precedence)";
    if (other->name() == api->name) {
      report.reason = "duplicate backend name '" + report.name + "': already loaded from " + other->path() +
                      precedence;
      return;
    }
    if (other->prefix() == api->device_prefix) {
      report.reason = std::string("duplicate device prefix '") + api->device_prefix + "': already used by backend " +
                      other->name() + " from " + other->path() + precedence;
      return;
    }
  }
  Backend *backend = Backend::adopt(path, api, api->struct_size, options_for(config, report.name), report.builtin);
  report.loaded = true;
  report.backend = backend;
  backends.push_back(backend);
}

}  // namespace

std::vector<std::string> plugin_directories(const config::Config &config) {
  std::vector<std::string> dirs;
  std::string beside = directory_beside_library();
  if (!beside.empty()) dirs.push_back(beside);
  for (const auto &p : config.plugin_paths)
    if (!p.empty()) dirs.push_back(p);
  return dirs;
}

PluginSet::PluginSet(const config::Config &config) : config_(config) {
  std::vector<fs::path> seen_dirs;
  const std::string builtin_dir = directory_beside_library();
  for (const auto &dir : plugin_directories(config)) {
    std::error_code ec;
    fs::path canonical = fs::canonical(dir, ec);
    if (ec || !fs::is_directory(canonical, ec)) continue;
    if (std::find(seen_dirs.begin(), seen_dirs.end(), canonical) != seen_dirs.end()) continue;
    seen_dirs.push_back(canonical);
    std::vector<std::string> files;
    for (const auto &entry : fs::directory_iterator(canonical, ec)) {
      std::string file = entry.path().filename().string();
      if (!name_from_file(file).empty()) files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());  // a stable, documented load order
    for (const auto &file : files) {
      PluginReport &r = reports_.emplace_back();
      r.path = file;
      r.name = name_from_file(fs::path(file).filename().string());
      r.builtin = !builtin_dir.empty() && dir == builtin_dir;
      attempted_.push_back(false);
      if (contains(config.plugins_disabled, r.name)) {
        r.reason = "disabled by the config key plugins.disabled";
        attempted_.back() = true;
      } else if (r.builtin && replaced(config, r.name)) {
        r.reason = "replaced by libbackplane-" + r.name + ".so from [plugins] paths (the config key plugins." + r.name +
                   ".replace_builtin)";
        attempted_.back() = true;
      }
    }
  }
}

void PluginSet::load_locked(size_t i) {
  if (attempted_[i]) return;
  attempted_[i] = true;
  load_one(reports_[i], config_, backends_);
}

void PluginSet::load_in_order_locked(size_t i) {
  if (!reports_[i].builtin)
    for (size_t j = 0; j < i; ++j) load_locked(j);  // built-in ones come first in reports_
  load_locked(i);
}

void PluginSet::load_all_locked() {
  if (all_loaded_) return;
  for (size_t i = 0; i < reports_.size(); ++i) load_locked(i);
  all_loaded_ = true;
}

Backend *PluginSet::loaded_locked(const std::string &name_or_prefix, bool by_name) const {
  for (Backend *b : backends_)
    if (b->prefix() == name_or_prefix || (by_name && b->name() == name_or_prefix)) return b;
  return nullptr;
}

Backend *PluginSet::find(const std::string &name_or_prefix, bool by_name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (Backend *b = loaded_locked(name_or_prefix, by_name)) return b;
  // Likely files first: the file of backend "x" or "x-something" (the
  // cpu-openblas backend has device prefix "cpu"), then everything.
  for (size_t i = 0; i < reports_.size(); ++i) {
    const std::string &file_name = reports_[i].name;
    if (!attempted_[i] && (file_name == name_or_prefix ||
                           file_name.rfind(name_or_prefix + "-", 0) == 0)) {
      load_in_order_locked(i);
      if (Backend *b = loaded_locked(name_or_prefix, by_name)) return b;
    }
  }
  load_all_locked();
  return loaded_locked(name_or_prefix, by_name);
}

std::vector<Backend *> PluginSet::backends() {
  std::lock_guard<std::mutex> lock(mutex_);
  load_all_locked();
  std::vector<Backend *> out;
  for (const auto &r : reports_)
    if (r.backend) out.push_back(r.backend);
  return out;
}

const std::deque<PluginReport> &PluginSet::reports() {
  std::lock_guard<std::mutex> lock(mutex_);
  load_all_locked();
  return reports_;  // final from here on: nothing changes it any more
}

}  // namespace bp::core
