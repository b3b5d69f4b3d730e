// The parent's side of one group: run it in a child process and turn the
// child's events, or its crash or timeout, into a GroupResult.
#pragma once

#include <string>

#include "results.hpp"

namespace bpcheck {

// Runs group g on the plugin at `plugin` (an absolute path) in a child.
GroupResult run_group(const GroupDef &g, const std::string &plugin, const Options &opt, const std::string &reference);
// A group that was not run: skipped (or failed) for `why`.
GroupResult not_run(const GroupDef &g, const std::string &status, const std::string &why);

}  // namespace bpcheck
