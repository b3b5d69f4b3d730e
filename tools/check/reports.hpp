// The three ways `bp check` reports: a table for people (printed as the
// groups finish), one JSON document (--json, schema bp-check/2, see
// docs/json-output.md) and JUnit XML (--junit FILE).
#pragma once

#include <string>
#include <vector>

#include "results.hpp"

namespace bpcheck {

// The name and version of the JSON layout, the first keys of every --json
// document; a change a reader of this version would trip on is a new version.
constexpr const char kJsonSchema[] = "bp-check";
constexpr int kJsonSchemaVersion = 2;

// Text: "bp check PATH", the plugin's one-line title, one row per group
// (with its failures and notes), the final counts, and --probe's report.
void print_header(const PluginResult &p);
std::string plugin_title(const PluginResult &p);
void print_group(const GroupResult &r, bool verbose);
void print_counts(const Counts &c);
void print_probe(const ProbeResult &r);

// JSON documents of a check run and of --probe.
std::string check_json(const std::vector<PluginResult> &all);
std::string probe_json(const std::vector<ProbeResult> &all);

// JUnit XML; false when the file cannot be written.
bool write_junit(const std::string &file, const std::vector<PluginResult> &all);

}  // namespace bpcheck
