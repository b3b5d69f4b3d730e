// Probe verdicts kept on disk, so each version of a plugin is probed once,
// not once per process (a plugin that hangs costs the probe's time limit
// once). A verdict is keyed by the file's identity (canonical path, device,
// inode, size, modification time), the init options and the core's ABI
// version; a new build of the plugin is a new key. The directory is
// $BACKPLANE_CACHE_DIR, else $XDG_CACHE_HOME/backplane, else
// $HOME/.cache/backplane; when none can be written, nothing is cached and
// nothing fails.
#pragma once

#include <optional>
#include <string>

#include "loader/plugin_probe.hpp"

namespace bp::core {

// The cached verdict (empty: the plugin passed; else the reason it was
// rejected), or nothing when this file and these options were never probed.
std::optional<std::string> cached_probe(const std::string &path, const PluginOptions &options);

void store_probe(const std::string &path, const PluginOptions &options, const std::string &verdict);

}  // namespace bp::core
