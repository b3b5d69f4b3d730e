// --json: the bp-check/2 documents (docs/json-output.md), built with the
// JSON helpers `bp devices --json` uses.
#include <cmath>
#include <map>
#include <set>

#include "json_output.hpp"
#include "reports.hpp"

namespace bpcheck {

namespace {

using bptool::Json;

// The info keys whose values are counts or yes/no: typed by
// bptool::typed_value. Every other key holds text (a version "1.0", a
// name) that must stay a string whatever it looks like.
Json info_value(const std::string &key, const std::string &text) {
  static const std::set<std::string> typed = {"struct_size", "devices", "thread_safe", "declared", "cases"};
  return typed.count(key) ? bptool::typed_value(text) : Json(text);
}

Json info_object(const std::map<std::string, std::string> &values) {
  Json o = Json::object();
  for (auto &kv : values) o[kv.first] = info_value(kv.first, kv.second);
  return o;
}

// What both documents begin with: the schema, the tool that wrote it and the
// "plugins" array, one object per result that starts with its path and that
// `rest` completes.
template <class Result, class Rest>
Json document(const char *tool, const std::vector<Result> &all, Rest rest) {
  Json doc = bptool::json_document(kJsonSchema, kJsonSchemaVersion);
  doc["tool"] = tool;
  doc["plugins"] = Json::array();
  for (const Result &r : all) {
    Json entry = {{"path", r.path}};
    rest(r, entry);
    doc["plugins"].push_back(std::move(entry));
  }
  return doc;
}

Json group_json(const GroupResult &r) {
  // A key recorded more than once has its values joined with "; ".
  std::map<std::string, std::string> infos;
  for (auto &kv : r.infos) infos[kv.first] += (infos[kv.first].empty() ? "" : "; ") + kv.second;
  return {
      {"level", r.def->level},
      {"group", r.def->title},
      {"id", r.def->id},
      {"result", r.status},
      {"summary", r.summary},
      {"checks_passed", r.checks_passed},
      {"checks_failed", r.checks_failed},
      // Microseconds are as fine as a child process's wall time means anything.
      {"seconds", std::round(r.seconds * 1e6) / 1e6},
      {"info", info_object(infos)},
      {"failures", r.failures},
      {"notes", r.notes},
  };
}

}  // namespace

std::string check_json(const std::vector<PluginResult> &all) {
  Json doc = document("bp check", all, [](const PluginResult &p, Json &entry) {
    if (!p.reference.empty()) entry["reference"] = p.reference;
    entry["info"] = info_object(p.info);
    entry["groups"] = Json::array();
    for (const GroupResult &r : p.groups) entry["groups"].push_back(group_json(r));
  });
  const Counts c = count_groups(all);
  doc["summary"] = {{"passed", c.passed}, {"failed", c.failed}, {"skipped", c.skipped}};
  return bptool::json_text(doc, true);
}

std::string probe_json(const std::vector<ProbeResult> &all) {
  return bptool::json_text(document("bp check --probe", all, [](const ProbeResult &r, Json &entry) {
    entry["loads"] = r.loads();
    if (!r.loads()) entry["problem"] = r.load.summary;
    for (auto &kv : r.info) entry[kv.first] = info_value(kv.first, kv.second);
    entry["device_list"] = r.devices;
  }), true);
}

}  // namespace bpcheck
