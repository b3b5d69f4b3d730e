#include "selection.hpp"

#include <algorithm>

#include "vocab.hpp"

namespace bpcheck {

namespace {

// The comma-separated items of `list`, empty ones dropped.
std::vector<std::string> items(const std::string &list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    if (comma > start) out.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::string joined(const std::vector<std::string> &parts) {
  std::string out;
  for (const std::string &p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

}  // namespace

bool parse_group_list(const std::string &list, std::vector<std::string> &ids, std::string &error) {
  ids = items(list);
  for (const std::string &id : ids)
    if (!find_group(id)) {
      std::vector<std::string> known;
      for (const GroupDef &g : all_groups()) known.push_back(g.id);
      error = "--only: no group '" + id + "' (the groups: " + joined(known) + ")";
      return false;
    }
  if (ids.empty()) error = "--only needs at least one group";
  return !ids.empty();
}

bool parse_op_list(const std::string &list, std::vector<int32_t> &ops, std::string &error) {
  ops.clear();
  for (const std::string &name : items(list)) {
    const auto &all = vocab_ops();
    const auto found = std::find_if(all.begin(), all.end(), [&](int32_t op) { return name == op_name(op); });
    if (found == all.end()) {
      error = "--ops: '" + name + "' is not an operator of backplane/vocabulary.h (spelled as in `bp check` " +
              "messages: add, cumsum, matmul, ...)";
      return false;
    }
    ops.push_back(*found);
  }
  if (ops.empty()) error = "--ops needs at least one operator";
  return !ops.empty();
}

std::string op_list_text(const std::vector<int32_t> &ops) {
  std::vector<std::string> names;
  for (int32_t op : ops) names.push_back(op_name(op));
  return joined(names);
}

bool group_selected(const std::vector<std::string> &ids, const GroupDef &g) {
  return ids.empty() || g.id == std::string("load") || std::find(ids.begin(), ids.end(), g.id) != ids.end();
}

std::string not_selected_reason(const std::vector<std::string> &ids) {
  return "not selected (--only " + joined(ids) + ")";
}

bool op_selected(const std::vector<int32_t> &ops, int32_t op) {
  return ops.empty() || std::find(ops.begin(), ops.end(), op) != ops.end();
}

}  // namespace bpcheck
