// What the parent of `bp check` knows: its options, and the result of each
// group of each plugin, as every reporter (text, JSON, JUnit) reads them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "groups.hpp"

namespace bpcheck {

struct Options {
  std::vector<std::string> plugins;
  int level = 4;
  bool all = false, probe = false, json = false, verbose = false;
  std::string junit, reference;
  int32_t device = -1;
  int timeout = 300;  // seconds per group; --probe's default is kProbeTimeout
  // --only and --ops (selection.hpp); empty: everything.
  std::vector<std::string> only;
  std::vector<int32_t> ops;
};

// --probe loads a plugin and nothing more: one whose constructor or init
// hangs is reported after this many seconds unless --timeout says otherwise.
constexpr int kProbeTimeout = 30;

struct GroupResult {
  const GroupDef *def = nullptr;
  std::string status;   // passed, failed, skipped
  std::string summary;  // one line
  std::vector<std::string> failures, notes;
  std::vector<std::pair<std::string, std::string>> infos;
  int checks_passed = 0, checks_failed = 0;
  double seconds = 0;
  std::string output_tail;  // the child's stdout/stderr, last part
};

struct PluginResult {
  std::string path;
  std::map<std::string, std::string> info;  // from L0 load
  std::vector<GroupResult> groups;
  std::string reference;
  // Why the command line does not fit this plugin (--device past its last
  // device): a usage error, not a failure of the plugin.
  std::string usage_error;
};

// What --probe learned about one plugin.
struct ProbeResult {
  std::string path;
  GroupResult load;  // the L0 load group
  std::map<std::string, std::string> info;
  std::vector<std::string> devices;  // one line per device
  bool loads() const { return load.status == "passed"; }
};

struct Counts {
  int passed = 0, failed = 0, skipped = 0;
};
Counts count_groups(const std::vector<PluginResult> &all);

// "L2 numerics".
std::string group_label(const GroupDef &g);

}  // namespace bpcheck
