#include <cstdio>

#include "reports.hpp"
#include "text.hpp"

namespace bpcheck {

std::string plugin_title(const PluginResult &p) {
  auto get = [&](const char *k) {
    auto it = p.info.find(k);
    return it == p.info.end() ? std::string() : it->second;
  };
  // A table the validator rejected still says which ABI it was built for.
  if (get("name").empty())
    return get("abi").empty() ? "" : "ABI " + get("abi") + ", struct_size " + get("struct_size") + " (the table was rejected)";
  std::string s = "backend " + get("name") + " " + get("version") + ", device prefix \"" + get("prefix") + "\", ABI " +
                  get("abi");
  const std::string n = get("devices");
  if (!n.empty()) s += ", " + n + (n == "1" ? " device" : " devices");
  if (n == "0" && !get("why_none").empty()) s += " (" + get("why_none") + ")";
  if (get("thread_safe") == "yes") s += ", thread safe";
  return s;
}

void print_header(const PluginResult &p) {
  std::printf("bp check %s\n", p.path.c_str());
  std::fflush(stdout);
}

void print_group(const GroupResult &r, bool verbose) {
  const std::string label = "L" + std::to_string(r.def->level) + "  " + r.def->title;
  std::string detail = r.summary;
  if (r.status == "passed" && r.seconds >= 0.05) detail += format(" (%.1f s)", r.seconds);
  std::printf("  %-24s %-8s %s\n", label.c_str(), r.status.c_str(), detail.c_str());
  const size_t max_fail = verbose ? r.failures.size() : 5;
  for (size_t i = 0; i < r.failures.size() && i < max_fail; ++i)
    if (r.failures[i] != r.summary) std::printf("  %-24s %-8s %s\n", "", "", r.failures[i].c_str());
  if (r.failures.size() > max_fail)
    std::printf("  %-24s %-8s ... and %zu more failures (--verbose shows them)\n", "", "", r.failures.size() - max_fail);
  const size_t max_notes = verbose ? r.notes.size() : 3;
  for (size_t i = 0; i < r.notes.size() && i < max_notes; ++i)
    std::printf("  %-24s %-8s note: %s\n", "", "", r.notes[i].c_str());
  if (r.notes.size() > max_notes)
    std::printf("  %-24s %-8s ... and %zu more notes (--verbose shows them)\n", "", "", r.notes.size() - max_notes);
  if (r.status == "failed" && !r.output_tail.empty() && (verbose || r.checks_passed + r.checks_failed == 0)) {
    std::string tail = r.output_tail;
    if (tail.size() > 1500) tail = "..." + tail.substr(tail.size() - 1500);
    std::printf("  %-24s %-8s output of the check process:\n", "", "");
    size_t pos = 0;
    while (pos < tail.size()) {
      size_t end = tail.find('\n', pos);
      if (end == std::string::npos) end = tail.size();
      std::printf("  %-24s %-8s | %s\n", "", "", tail.substr(pos, end - pos).c_str());
      pos = end + 1;
    }
  }
  std::fflush(stdout);
}

void print_counts(const Counts &c) { std::printf("\n%d passed, %d failed, %d skipped\n", c.passed, c.failed, c.skipped); }

void print_probe(const ProbeResult &r) {
  auto info = r.info;
  const bool ok = r.loads();
  std::printf("bp check --probe %s\n", r.path.c_str());
  std::printf("  loads:          %s\n", ok ? "yes" : ("no: " + r.load.summary).c_str());
  if (info.count("name")) {
    std::printf("  backend:        %s %s\n", info["name"].c_str(), info["version"].c_str());
    std::printf("  device prefix:  %s\n", info["prefix"].c_str());
  }
  if (info.count("abi")) std::printf("  ABI:            %s (struct_size %s)\n", info["abi"].c_str(), info["struct_size"].c_str());
  if (info.count("thread_safe")) std::printf("  thread safe:    %s\n", info["thread_safe"].c_str());
  if (info.count("optional")) std::printf("  optional:       %s\n", info["optional"].c_str());
  if (info.count("devices")) {
    std::printf("  devices:        %s", info["devices"].c_str());
    if (info["devices"] == "0") std::printf(" (%s)", info.count("why_none") ? info["why_none"].c_str() : "no reason given");
    std::printf("\n");
  }
  for (const std::string &d : r.devices) std::printf("    %s\n", d.c_str());
  if (!ok)
    for (size_t f = 1; f < r.load.failures.size(); ++f) std::printf("  also:           %s\n", r.load.failures[f].c_str());
}

}  // namespace bpcheck
