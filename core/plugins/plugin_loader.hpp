// Discovery and loading of plugin files. Every candidate file ends up either
// as a Backend or as a rejection with its reason; both are kept as reports.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "plugins/backend.hpp"

namespace bp::config {
struct Config;
}

namespace bp::core {

struct PluginReport {
  std::string path;
  std::string name;
  std::string version;
  bool loaded = false;
  std::string reason;
  Backend *backend = nullptr;  // when loaded
};

struct LoadResult {
  std::vector<std::unique_ptr<Backend>> backends;
  std::vector<PluginReport> reports;
};

// The directories searched, in order: config paths (BACKPLANE_PLUGIN_PATH is
// already appended to them by the config), then lib/backplane/plugins beside
// libbackplane.so. Never the current directory.
std::vector<std::string> plugin_directories(const config::Config &config);

// Loads every libbackplane-<name>.so in those directories.
LoadResult load_plugins(const config::Config &config);

}  // namespace bp::core
