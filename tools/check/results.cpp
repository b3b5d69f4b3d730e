#include "results.hpp"

namespace bpcheck {

Counts count_groups(const std::vector<PluginResult> &all) {
  Counts c;
  for (const PluginResult &p : all)
    for (const GroupResult &g : p.groups) {
      if (g.status == "passed") ++c.passed;
      else if (g.status == "skipped") ++c.skipped;
      else ++c.failed;
    }
  return c;
}

std::string group_label(const GroupDef &g) { return "L" + std::to_string(g.level) + " " + g.title; }

}  // namespace bpcheck
