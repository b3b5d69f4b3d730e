#include "discovery.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "backplane/backplane.h"
#include "child_process.hpp"
#include "paths.hpp"
#include "text.hpp"

namespace bpcheck {

namespace {

// One candidate of the core's discovery, as list_plugins_here sends it:
// "candidate <loaded>\t<name>\t<path>\t<reason>".
struct Candidate {
  bool loaded = false;
  std::string name, path, reason;
};

std::vector<Candidate> list_candidates(int timeout_s, ChildRun *run_out = nullptr) {
  ChildRun run = run_child({"--list-plugins", "--result-fd", "3"}, timeout_s);
  std::vector<Candidate> out;
  for (auto &ev : run.events) {
    if (ev.first != 'I' || ev.second.rfind("candidate ", 0) != 0) continue;
    std::vector<std::string> parts;
    const std::string &line = ev.second;
    for (size_t pos = 10; pos <= line.size();) {
      size_t tab = std::min(line.find('\t', pos), line.size());
      parts.push_back(line.substr(pos, tab - pos));
      pos = tab + 1;
    }
    if (parts.size() < 3) continue;
    parts.resize(4);
    out.push_back({parts[0] == "1", parts[1], parts[2], parts[3]});
  }
  if (run_out) *run_out = run;
  return out;
}

}  // namespace

int list_plugins_here(int result_fd) {
  Recorder rec(result_fd);
  int32_t n = bp_plugin_report_count();
  for (int32_t i = 0; i < n; ++i) {
    bp_plugin_report r;
    std::memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    if (bp_plugin_report_get(i, 0, &r) != BP_OK) continue;
    rec.info("candidate", std::string(r.loaded ? "1" : "0") + "\t" + (r.name ? r.name : "") + "\t" + (r.path ? r.path : "") +
                              "\t" + (r.reason ? r.reason : ""));
  }
  rec.finish();
  return 0;
}

std::vector<std::string> discovered_plugins() {
  ChildRun run;
  std::vector<std::string> paths;
  for (const Candidate &c : list_candidates(120, &run))
    if (std::find(paths.begin(), paths.end(), c.path) == paths.end()) paths.push_back(c.path);
  if (run.signal || (run.exited && run.exit_code != 0))
    std::fprintf(stderr, "bp check: listing the core's plugins failed%s\n%s",
                 run.signal ? (" (" + signal_name(run.signal) + ")").c_str() : "", run.output_tail.c_str());
  return paths;
}

std::string find_reference(const Options &opt, const std::string &plugin) {
  if (!opt.reference.empty()) return absolute(opt.reference);
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&bp_api_version), &info) && info.dli_fname) {
    std::string p = dir_of(absolute(info.dli_fname)) + "/backplane/plugins/libbackplane-reference.so";
    if (file_exists(p)) return p;
  }
  std::string beside = dir_of(plugin) + "/libbackplane-reference.so";
  if (file_exists(beside)) return beside;
  for (const Candidate &c : list_candidates(60))
    if (c.loaded && c.name == "reference") return c.path;
  return {};
}

}  // namespace bpcheck
