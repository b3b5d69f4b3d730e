#include "discovery.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "backplane/backplane.h"
#include "builtin_plugins.hpp"
#include "child_process.hpp"
#include "config/config.hpp"
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

// The candidate files as the core finds them (its directories in order, each
// one's libbackplane-*.so sorted), read here without loading any: for when
// the core's discovery dies in the listing child. The directories are the
// built-in one and the configuration's plugins.paths (with
// BACKPLANE_PLUGIN_PATH); a configuration that does not load leaves only
// the built-in one.
std::vector<std::string> candidate_files() {
  std::vector<std::string> dirs{builtin_plugin_dir()};
  try {
    const char *file = std::getenv("BACKPLANE_CONFIG");
    bp::config::Config c = file && *file ? bp::config::load_file(file) : bp::config::defaults();
    bp::config::apply_environment(c, [](const char *name) { return std::getenv(name); });
    dirs.insert(dirs.end(), c.plugin_paths.begin(), c.plugin_paths.end());
  } catch (const bp::config::ConfigError &e) {
    std::fprintf(stderr, "bp check: %s\n", e.what());
  }
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string &dir : dirs) {
    std::error_code ec;
    std::vector<std::string> here;
    for (const auto &entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("libbackplane-", 0) == 0 && entry.path().extension() == ".so")
        here.push_back(absolute(entry.path().string()));
    }
    std::sort(here.begin(), here.end());
    for (const std::string &f : here)
      if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
  }
  return files;
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
  if (run.signal || !run.exited || run.exit_code != 0) {
    // A plugin the core loads in-process (a built-in one, or one with
    // probe_in_subprocess = false) took the listing down. Each file is
    // checked on its own instead, so the culprit fails its own L0 group.
    std::fprintf(stderr,
                 "bp check --all: the core's plugin discovery %s; checking every candidate file on its own\n%s",
                 run.timed_out ? "hung"
                 : run.signal  ? ("died (" + signal_name(run.signal) + ")").c_str()
                               : ("exited with status " + std::to_string(run.exit_code)).c_str(),
                 run.output_tail.c_str());
    for (const std::string &f : candidate_files())
      if (std::find(paths.begin(), paths.end(), f) == paths.end()) paths.push_back(f);
  }
  return paths;
}

std::string find_reference(const Options &opt, const std::string &plugin) {
  if (!opt.reference.empty()) return absolute(opt.reference);
  if (std::string dir = builtin_plugin_dir(); !dir.empty() && file_exists(dir + "/libbackplane-reference.so"))
    return dir + "/libbackplane-reference.so";
  std::string beside = dir_of(plugin) + "/libbackplane-reference.so";
  if (file_exists(beside)) return beside;
  for (const Candidate &c : list_candidates(60))
    if (c.loaded && c.name == "reference") return c.path;
  return {};
}

}  // namespace bpcheck
