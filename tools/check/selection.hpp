// Running a part of the kit: --only (the groups) and --ops (the operators
// L2 numerics checks), for a plugin author working on one thing, and for
// the kit's own tests of a planted bug, which need only the part where the
// bug lives. A group left out is reported skipped with the reason, never
// passed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "groups.hpp"

namespace bpcheck {

// "numerics,fused" into group ids, each one of all_groups(); false with a
// message naming the first unknown id and listing the known ones.
bool parse_group_list(const std::string &list, std::vector<std::string> &ids, std::string &error);
// "cumsum,sum" into operators of backplane/vocabulary.h, by their names.
bool parse_op_list(const std::string &list, std::vector<int32_t> &ops, std::string &error);
// The operators as --ops spells them ("cumsum,sum"), to hand to a child.
std::string op_list_text(const std::vector<int32_t> &ops);

// Whether g runs under --only `ids` (none given: every group). L0 load
// always runs: it finds the plugin's devices that the others need.
bool group_selected(const std::vector<std::string> &ids, const GroupDef &g);
// Why a group left out did not run: "not selected (--only numerics,fused)".
std::string not_selected_reason(const std::vector<std::string> &ids);
// Whether L2 numerics checks op under --ops `ops` (none given: every one).
bool op_selected(const std::vector<int32_t> &ops, int32_t op);

}  // namespace bpcheck
