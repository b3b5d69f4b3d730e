// The two modes that check plugins: every group of the levels asked for,
// in order, each in a child process (a later group is skipped when the
// plugin did not load or has no devices); and --probe, the L0 load group only.
#pragma once

#include <string>
#include <vector>

#include "results.hpp"

namespace bpcheck {

// Checks one plugin; prints the table as it goes unless opt.json.
PluginResult check_plugin(const std::string &path, const Options &opt);
// --probe: loads each plugin in a child and says what it is; the exit status.
int probe(const std::vector<std::string> &plugins, const Options &opt);

}  // namespace bpcheck
