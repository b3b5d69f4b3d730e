// --json: the bp-check/1 documents (docs/json-output.md), built with the
// JSON writer `bp devices --json` uses.
#include <map>

#include "json_writer.hpp"
#include "reports.hpp"

namespace bpcheck {

namespace {

using bptool::JsonWriter;

void string_object(JsonWriter &j, const std::map<std::string, std::string> &values) {
  j.begin_object();
  for (auto &kv : values) j.field(kv.first, kv.second);
  j.end_object();
}

void string_array(JsonWriter &j, const std::vector<std::string> &values) {
  j.begin_array();
  for (const std::string &v : values) j.value(v);
  j.end_array();
}

// What both documents begin with: the schema, the tool that wrote it and the
// "plugins" array, one object per result that starts with its path and that
// `rest` completes. The caller ends the document.
template <class Result, class Rest>
void begin_document(JsonWriter &j, const char *tool, const std::vector<Result> &all, Rest rest) {
  j.begin_object();
  j.field("schema", kJsonSchema);
  j.field("tool", tool);
  j.key("plugins").begin_array();
  for (const Result &r : all) {
    j.begin_object();
    j.field("path", r.path);
    rest(r);
    j.end_object();
  }
  j.end_array();
}

void group_json(JsonWriter &j, const GroupResult &r) {
  j.begin_object();
  j.field("level", int64_t(r.def->level));
  j.field("group", r.def->title);
  j.field("id", r.def->id);
  j.field("result", r.status);
  j.field("summary", r.summary);
  j.field("checks_passed", int64_t(r.checks_passed));
  j.field("checks_failed", int64_t(r.checks_failed));
  j.field("seconds", r.seconds);
  // A key recorded more than once has its values joined with "; ".
  std::map<std::string, std::string> infos;
  for (auto &kv : r.infos) infos[kv.first] += (infos[kv.first].empty() ? "" : "; ") + kv.second;
  j.key("info");
  string_object(j, infos);
  j.key("failures");
  string_array(j, r.failures);
  j.key("notes");
  string_array(j, r.notes);
  j.end_object();
}

}  // namespace

std::string check_json(const std::vector<PluginResult> &all) {
  JsonWriter j(true);
  begin_document(j, "bp check", all, [&](const PluginResult &p) {
    if (!p.reference.empty()) j.field("reference", p.reference);
    j.key("info");
    string_object(j, p.info);
    j.key("groups").begin_array();
    for (const GroupResult &r : p.groups) group_json(j, r);
    j.end_array();
  });
  const Counts c = count_groups(all);
  j.key("summary").begin_object();
  j.field("passed", int64_t(c.passed)).field("failed", int64_t(c.failed)).field("skipped", int64_t(c.skipped));
  j.end_object();
  j.end_object();
  return j.str() + "\n";
}

std::string probe_json(const std::vector<ProbeResult> &all) {
  JsonWriter j(true);
  begin_document(j, "bp check --probe", all, [&](const ProbeResult &r) {
    j.key("loads").boolean(r.loads());
    if (!r.loads()) j.field("problem", r.load.summary);
    for (auto &kv : r.info) j.field(kv.first, kv.second);
    j.key("device_list");
    string_array(j, r.devices);
  });
  j.end_object();
  return j.str() + "\n";
}

}  // namespace bpcheck
