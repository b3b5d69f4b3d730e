// Dry-loads a plugin in a child process ([plugins.<name>] probe_in_subprocess),
// so one that crashes or aborts while loading costs that plugin, not the host.
#pragma once

#include <string>

namespace bp::core {

// Empty when the child loaded the file and found a usable ABI table, else why not.
std::string probe_plugin(const std::string &path);

}  // namespace bp::core
