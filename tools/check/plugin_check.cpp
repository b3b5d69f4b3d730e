#include <cstdlib>

#include "plugin_check.hpp"

#include <cstdio>

#include "discovery.hpp"
#include "group_runner.hpp"
#include "paths.hpp"
#include "reports.hpp"
#include "selection.hpp"

namespace bpcheck {

namespace {

// The L0 load group, or why it cannot run: the file is not there.
GroupResult load_group(const std::string &path, const Options &opt) {
  const GroupDef &load = *find_group("load");
  return file_exists(path) ? run_group(load, path, opt, "")
                           : not_run(load, "failed", "cannot load: " + path + ": " + file_problem(path));
}

}  // namespace

PluginResult check_plugin(const std::string &path_in, const Options &opt) {
  PluginResult p;
  p.path = absolute(path_in);
  if (!opt.json) print_header(p);
  const GroupDef *load = find_group("load");
  std::string blocked;  // why the groups after L0 load cannot run
  std::string no_devices;
  std::string reference;
  bool reference_looked_up = false;
  for (const GroupDef &g : all_groups()) {
    if (g.level > opt.level) continue;
    GroupResult r;
    if (!file_exists(p.path)) {
      r = &g == load ? load_group(p.path, opt) : not_run(g, "skipped", "the plugin did not load (see L0 load and ABI)");
    } else if (!blocked.empty()) {
      r = not_run(g, "skipped", blocked);
    } else if (g.needs_devices && !no_devices.empty()) {
      r = not_run(g, "skipped", no_devices);
    } else if (!group_selected(opt.only, g)) {
      r = not_run(g, "skipped", not_selected_reason(opt.only));
    } else {
      // The groups from L2 on compare with the reference (numerics, fused
      // programs, L4); --only may leave numerics out.
      if (g.level >= 2 && !reference_looked_up) {
        reference = find_reference(opt, p.path);
        reference_looked_up = true;
        p.reference = reference;
        if (!opt.json && !reference.empty()) std::printf("  (reference: %s)\n", reference.c_str());
      }
      r = run_group(g, p.path, opt, reference);
    }
    if (&g == load) {
      for (auto &kv : r.infos) p.info[kv.first] = kv.second;
      if (r.status != "passed") blocked = "the plugin did not load (see L0 load and ABI)";
      else if (p.info["devices"] == "0")
        no_devices = "no devices (" + (p.info.count("why_none") ? p.info["why_none"] : std::string("no reason given")) + ")";
      if (!opt.json && !plugin_title(p).empty()) std::printf("  %s\n", plugin_title(p).c_str());
      const int devices = p.info.count("devices") ? std::atoi(p.info["devices"].c_str()) : 0;
      if (r.status == "passed" && opt.device >= devices) {
        p.usage_error = "--device " + std::to_string(opt.device) + ": " + p.path + " has " +
                        std::to_string(devices) + " device(s)" +
                        (devices ? " (0.." + std::to_string(devices - 1) + ")" : "");
        return p;
      }
    }
    p.groups.push_back(r);
    if (!opt.json) print_group(r, opt.verbose);
  }
  return p;
}

int probe(const std::vector<std::string> &plugins, const Options &opt) {
  std::vector<ProbeResult> results;
  int failures = 0;
  for (const std::string &given : plugins) {
    ProbeResult r;
    r.path = absolute(given);
    r.load = load_group(r.path, opt);
    for (auto &kv : r.load.infos) {
      if (kv.first == "device") r.devices.push_back(kv.second);
      else r.info[kv.first] = kv.second;
    }
    failures += !r.loads();
    if (!opt.json) print_probe(r);
    results.push_back(std::move(r));
  }
  if (opt.json) std::fputs(probe_json(results).c_str(), stdout);
  return failures ? 1 : 0;
}

}  // namespace bpcheck
