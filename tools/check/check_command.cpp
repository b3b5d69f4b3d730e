// `bp check`: the command-line front end. It reads the options and runs one
// mode: check plugins (plugin_check.cpp), --probe, --all (discovery.cpp), or
// a hidden child mode (--run-group, --list-plugins) in the re-executed
// child processes (child_process.cpp).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "check_command.hpp"
#include "discovery.hpp"
#include "plugin_check.hpp"
#include "reports.hpp"
#include "selection.hpp"

namespace bpcheck {

namespace {

const char kUsage[] =
    "usage: bp check PLUGIN.so... [options]\n"
    "       bp check --all [options]\n"
    "       bp check --probe PLUGIN.so...\n"
    "\n"
    "Checks that a Backplane plugin binary keeps the contract of backplane/plugin.h,\n"
    "without rebuilding anything. Each group of checks runs in a child process, so a\n"
    "crash is reported as the failure of that group.\n"
    "\n"
    "Levels (each includes the ones before it):\n"
    "  L0  load and ABI: entry symbol, versions, table, init; invalid arguments are errors\n"
    "  L1  devices and memory: enumeration, device info, alloc/free, host round trips,\n"
    "      zero-size buffers, out of memory as BP_ERR_OUT_OF_MEMORY\n"
    "  L2  numerics: every declared op and dtype against the reference backend, on many\n"
    "      shapes and layouts, with sentinel bytes around every output\n"
    "  L3  semantics: supports() consistent with execute(), device mismatch errors and\n"
    "      copies through the core, bit-exact copies between devices, the optional\n"
    "      collective (and group) entries against values computed on the host,\n"
    "      the optional execute_fused entry on random and malformed programs\n"
    "  L4  concurrency: many threads at once, queued work, ordering, synchronize\n"
    "\n"
    "options:\n"
    "  --level N         run levels 0..N (default 4)\n"
    "  --all             check every plugin the core discovers\n"
    "  --probe           only load the plugin (in a child process) and say what it is\n"
    "  --device I        check only device I (default: numerics on device 0, the rest on all);\n"
    "                    past the plugin's last device: a usage error (exit 2)\n"
    "  --reference PATH  the reference plugin for L2/L4 (default: libbackplane-reference.so\n"
    "                    in the core's plugin directory, else beside the checked plugin)\n"
    "  --timeout S       seconds each group may take (default 300; with --probe, 30)\n"
    "  --only G[,G...]   run only these groups (ids as in --json: numerics, fused, ...);\n"
    "                    L0 load always runs; the others are skipped, with the reason\n"
    "  --ops OP[,OP...]  L2 numerics checks only these operators (add, cumsum, ...)\n"
    "  --json            print one JSON document instead of the table\n"
    "  --junit FILE      also write JUnit XML to FILE\n"
    "  --verbose         show every failure and note\n"
    "\n"
    "Exit status: 0 when every group passed or was skipped, 1 when one failed, 2 on bad usage.\n";

bool parse_int(const char *s, int *out) {
  char *end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (!s[0] || *end) return false;
  *out = int(v);
  return true;
}

}  // namespace

}  // namespace bpcheck

int bp_check_main(int argc, char **argv) {
  using namespace bpcheck;
  Options opt;
  std::string run_group_id;
  int result_fd = -1;
  bool list_plugins = false, timeout_given = false;
  auto need = [&](int &i, const char *name) -> const char * {
    if (i + 1 >= argc) {
      std::fprintf(stderr, "bp check: %s needs a value\n%s", name, kUsage);
      return nullptr;
    }
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char *v = nullptr;
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "--level") {
      if (!(v = need(i, "--level"))) return 2;
      if (!parse_int(v, &opt.level) || opt.level < 0 || opt.level > 4) {
        std::fprintf(stderr, "bp check: --level must be 0..4, not '%s'\n", v);
        return 2;
      }
    } else if (a == "--device") {
      int d = 0;
      if (!(v = need(i, "--device"))) return 2;
      if (!parse_int(v, &d) || d < 0) {
        std::fprintf(stderr, "bp check: --device must be an index >= 0, not '%s'\n", v);
        return 2;
      }
      opt.device = d;
    } else if (a == "--timeout") {
      if (!(v = need(i, "--timeout"))) return 2;
      if (!parse_int(v, &opt.timeout) || opt.timeout <= 0) {
        std::fprintf(stderr, "bp check: --timeout must be a number of seconds, not '%s'\n", v);
        return 2;
      }
      timeout_given = true;
    } else if (a == "--only" || a == "--ops") {
      std::string error;
      if (!(v = need(i, a.c_str()))) return 2;
      if (!(a == "--only" ? parse_group_list(v, opt.only, error) : parse_op_list(v, opt.ops, error))) {
        std::fprintf(stderr, "bp check: %s\n", error.c_str());
        return 2;
      }
    } else if (a == "--reference") {
      if (!(v = need(i, "--reference"))) return 2;
      opt.reference = v;
    } else if (a == "--junit") {
      if (!(v = need(i, "--junit"))) return 2;
      opt.junit = v;
    } else if (a == "--json") {
      opt.json = true;
    } else if (a == "--all") {
      opt.all = true;
    } else if (a == "--probe") {
      opt.probe = true;
    } else if (a == "--verbose" || a == "-v") {
      opt.verbose = true;
    } else if (a == "--run-group") {  // hidden: the child side
      if (!(v = need(i, "--run-group"))) return 2;
      run_group_id = v;
    } else if (a == "--result-fd") {  // hidden
      if (!(v = need(i, "--result-fd")) || !parse_int(v, &result_fd)) return 2;
    } else if (a == "--list-plugins") {  // hidden
      list_plugins = true;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "bp check: unknown option '%s'\n%s", a.c_str(), kUsage);
      return 2;
    } else {
      opt.plugins.push_back(a);
    }
  }

  if (list_plugins) return list_plugins_here(result_fd < 0 ? 1 : result_fd);
  if (!run_group_id.empty()) {
    if (opt.plugins.size() != 1) return 2;
    GroupOptions go;
    go.plugin_path = opt.plugins[0];
    go.reference_path = opt.reference;
    go.device = opt.device;
    go.ops = opt.ops;
    return run_group_here(run_group_id, go, result_fd < 0 ? 1 : result_fd);
  }

  if (opt.all) {
    std::vector<std::string> found = discovered_plugins();
    opt.plugins.insert(opt.plugins.end(), found.begin(), found.end());
    if (opt.plugins.empty()) {
      std::fprintf(stderr, "bp check --all: the core discovered no plugins (see `bp devices`)\n");
      return 1;
    }
  }
  if (opt.plugins.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  if (opt.probe) {
    if (!timeout_given) opt.timeout = kProbeTimeout;
    return probe(opt.plugins, opt);
  }

  // Our own stdout is a pipe in CI: keep the lines in order with the children's.
  std::vector<PluginResult> results;
  for (size_t i = 0; i < opt.plugins.size(); ++i) {
    if (i && !opt.json) std::printf("\n");
    results.push_back(check_plugin(opt.plugins[i], opt));
    if (!results.back().usage_error.empty()) {
      std::fflush(stdout);
      std::fprintf(stderr, "bp check: %s\n", results.back().usage_error.c_str());
      return 2;
    }
  }
  const Counts counts = count_groups(results);
  if (opt.json)
    std::fputs(check_json(results).c_str(), stdout);
  else
    print_counts(counts);
  if (!opt.junit.empty() && !write_junit(opt.junit, results)) {
    std::fprintf(stderr, "bp check: cannot write %s\n", opt.junit.c_str());
    return 2;
  }
  std::fflush(stdout);
  return counts.failed ? 1 : 0;
}
