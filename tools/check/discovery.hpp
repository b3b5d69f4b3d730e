// The core's plugin discovery as `bp check` uses it: the candidates the core
// finds (listed in a child process, since discovery loads every plugin), for
// --all and to find the reference plugin.
#pragma once

#include <string>
#include <vector>

#include "results.hpp"

namespace bpcheck {

// The hidden --list-plugins mode (child side): one `candidate` fact per file.
int list_plugins_here(int result_fd);
// The paths of every plugin file the core discovers, in its order.
std::vector<std::string> discovered_plugins();
// The reference plugin: --reference, the core's plugin directory, beside
// the checked plugin, else the one the core discovers; "" when none.
std::string find_reference(const Options &opt, const std::string &plugin);

}  // namespace bpcheck
