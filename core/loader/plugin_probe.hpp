// Trial start of a plugin in a child process, so that one whose constructor,
// entry point, init or device enumeration crashes, exits or hangs costs that
// plugin, not the host. On by default for plugins from outside the built-in
// directory ([plugins.<name>] probe_in_subprocess turns it on or off per
// plugin); the verdict is cached by file identity (plugin_probe_cache.hpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace bp::core {

using PluginOptions = std::vector<std::pair<std::string, std::string>>;

// How long a probe may take before its child is killed and the plugin
// rejected.
constexpr int kProbeTimeoutMs = 5000;

// Empty when, in a child process, loading the file, fetching and validating
// its table, init (with `options`) and device enumeration all returned,
// successfully or with an error the host will report itself; else why not:
// a crash, an exit or no end within kProbeTimeoutMs.
std::string probe_plugin(const std::string &path, const PluginOptions &options);

// A verdict that says nothing about the plugin (the host could not fork or
// make a pipe): not to be cached.
inline bool is_transient_probe_failure(const std::string &verdict) { return verdict.rfind("probe: ", 0) == 0; }

}  // namespace bp::core
