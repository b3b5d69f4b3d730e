// `bp check`: the parent process. It runs every group of checks in a child
// process (an exec of this same executable with the hidden --run-group
// option), so that a plugin that crashes, aborts or hangs fails one group
// instead of ending the run, and prints the results for people (a table),
// for machines (--json) and for CI (--junit FILE).
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "backplane/backplane.h"
#include "check_command.hpp"
#include "groups.hpp"
#include "names.hpp"

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
    "      copies through the core, bit-exact copies between devices\n"
    "  L4  concurrency: many threads at once, queued work, ordering, synchronize\n"
    "\n"
    "options:\n"
    "  --level N         run levels 0..N (default 4)\n"
    "  --all             check every plugin the core discovers\n"
    "  --probe           only load the plugin (in a child process) and say what it is\n"
    "  --device I        check only device I (default: numerics on device 0, the rest on all)\n"
    "  --reference PATH  the reference plugin for L2/L4 (default: libbackplane-reference.so\n"
    "                    in the core's plugin directory, else beside the checked plugin)\n"
    "  --timeout S       seconds each group may take (default 300)\n"
    "  --json            print one JSON document instead of the table\n"
    "  --junit FILE      also write JUnit XML to FILE\n"
    "  --verbose         show every failure and note\n"
    "\n"
    "Exit status: 0 when every group passed or was skipped, 1 when one failed, 2 on bad usage.\n";

struct Options {
  std::vector<std::string> plugins;
  int level = 4;
  bool all = false, probe = false, json = false, verbose = false;
  std::string junit, reference;
  int32_t device = -1;
  int timeout = 300;
};

struct GroupResult {
  const GroupDef *def = nullptr;
  std::string status;   // passed, failed, skipped
  std::string summary;  // one line
  std::vector<std::string> failures, notes;
  std::vector<std::pair<std::string, std::string>> infos;
  int checks_passed = 0, checks_failed = 0;
  double seconds = 0;
  std::string output_tail;  // the child's stdout/stderr, last part
};

struct PluginResult {
  std::string path;
  std::map<std::string, std::string> info;  // from L0 load
  std::vector<GroupResult> groups;
  std::string reference;
};

double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

std::string self_exe() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "/proc/self/exe";
  buf[n] = 0;
  return buf;
}

std::string absolute(const std::string &path) {
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf)) return buf;
  if (!path.empty() && path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd)) return std::string(cwd) + "/" + path;
  return path;
}

bool file_exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string dir_of(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// ---- child processes ------------------------------------------------------

struct ChildRun {
  std::vector<std::pair<char, std::string>> events;
  std::string output_tail;
  bool exited = false, timed_out = false;
  int exit_code = -1, signal = 0;
  double seconds = 0;
};

void clear_cloexec(int fd) { fcntl(fd, F_SETFD, 0); }

// Runs this executable as `<exe> check <args...>` with the result pipe on fd 3.
ChildRun run_child(const std::vector<std::string> &args, int timeout_s) {
  ChildRun run;
  const double start = now();
  int result_pipe[2], output_pipe[2];
  if (pipe2(result_pipe, O_CLOEXEC) != 0 || pipe2(output_pipe, O_CLOEXEC) != 0) {
    run.output_tail = std::string("pipe failed: ") + std::strerror(errno);
    return run;
  }
  const std::string exe = self_exe();
  std::vector<std::string> argv_s = {exe, "check"};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char *> argv;
  for (std::string &s : argv_s) argv.push_back(&s[0]);
  argv.push_back(nullptr);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    run.output_tail = std::string("fork failed: ") + std::strerror(errno);
    return run;
  }
  if (pid == 0) {
    setpgid(0, 0);
    // Under AddressSanitizer the kit itself reports a plugin's crash by its
    // signal: let SIGSEGV and friends kill the child instead of being turned
    // into a sanitizer report and an abort (later options win).
    for (const char *var : {"ASAN_OPTIONS", "UBSAN_OPTIONS"}) {
      const char *old = getenv(var);
      std::string value = old && *old ? std::string(old) + ":" : std::string();
      value += "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0";
      setenv(var, value.c_str(), 1);
    }
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(output_pipe[1], 1);
    dup2(output_pipe[1], 2);
    int r = dup(result_pipe[1]);  // never 0..2, so dup2 to 3 always makes a new descriptor
    dup2(r, 3);
    clear_cloexec(0);
    clear_cloexec(1);
    clear_cloexec(2);
    clear_cloexec(3);
    execv(exe.c_str(), argv.data());
    const char msg[] = "bp check: exec of itself failed\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(127);
  }
  setpgid(pid, pid);
  close(result_pipe[1]);
  close(output_pipe[1]);
  std::string results, output;
  bool result_open = true, output_open = true;
  int status = 0;
  bool reaped = false;
  const double deadline = start + timeout_s;
  while (result_open || output_open) {
    pollfd fds[2];
    int nfds = 0;
    if (result_open) fds[nfds++] = {result_pipe[0], POLLIN, 0};
    if (output_open) fds[nfds++] = {output_pipe[0], POLLIN, 0};
    int ready = poll(fds, nfds_t(nfds), 200);
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < nfds; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[8192];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        if (fds[i].fd == result_pipe[0]) result_open = false;
        else output_open = false;
        continue;
      }
      if (fds[i].fd == result_pipe[0]) {
        results.append(buf, size_t(n));
      } else {
        output.append(buf, size_t(n));
        if (output.size() > 16384) output.erase(0, output.size() - 8192);
      }
    }
    if (!reaped && waitpid(pid, &status, WNOHANG) == pid) reaped = true;
    if (reaped && ready == 0) break;  // exited, and nothing more came (a grandchild may hold the pipes)
    if (!reaped && now() > deadline) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      run.timed_out = true;
      break;
    }
  }
  close(result_pipe[0]);
  close(output_pipe[0]);
  if (!reaped) {
    if (!run.timed_out && now() > deadline) {
      kill(-pid, SIGKILL);
      run.timed_out = true;
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (WIFEXITED(status)) {
    run.exited = true;
    run.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    run.signal = WTERMSIG(status);
  }
  size_t pos = 0;
  while (pos < results.size()) {
    size_t end = results.find('\n', pos);
    if (end == std::string::npos) end = results.size();
    std::string line = results.substr(pos, end - pos);
    pos = end + 1;
    if (line.size() >= 2) run.events.emplace_back(line[0], line.substr(2));
  }
  run.output_tail = output.size() > 4000 ? output.substr(output.size() - 4000) : output;
  run.seconds = now() - start;
  return run;
}

std::string group_label(const GroupDef &g) { return "L" + std::to_string(g.level) + " " + g.title; }

GroupResult run_group(const GroupDef &g, const std::string &plugin, const Options &opt, const std::string &reference) {
  std::vector<std::string> args = {"--run-group", g.id, "--result-fd", "3"};
  if (!reference.empty()) args.insert(args.end(), {"--reference", reference});
  if (opt.device >= 0) args.insert(args.end(), {"--device", std::to_string(opt.device)});
  args.push_back(plugin);
  ChildRun run = run_child(args, opt.timeout);
  GroupResult r;
  r.def = &g;
  r.seconds = run.seconds;
  r.output_tail = run.output_tail;
  std::string last_begin, verdict;
  for (auto &ev : run.events) {
    switch (ev.first) {
      case 'B': last_begin = ev.second; break;
      case 'P': ++r.checks_passed; break;
      case 'F': ++r.checks_failed; r.failures.push_back(ev.second); break;
      case 'N': r.notes.push_back(ev.second); break;
      case 'I': {
        size_t sp = ev.second.find(' ');
        r.infos.emplace_back(ev.second.substr(0, sp), sp == std::string::npos ? "" : ev.second.substr(sp + 1));
        break;
      }
      case 'R': verdict = ev.second; break;
      default: break;
    }
  }
  const std::string where = last_begin.empty() ? "" : " (while running: " + last_begin + ")";
  if (run.timed_out) {
    r.status = "failed";
    r.summary = format("timed out after %d s in group ", opt.timeout) + group_label(g) + where;
    r.failures.insert(r.failures.begin(), r.summary);
    return r;
  }
  if (run.signal) {
    r.status = "failed";
    r.summary = "crashed: " + signal_name(run.signal) + " in group " + group_label(g) + where;
    r.failures.insert(r.failures.begin(), r.summary);
    return r;
  }
  if (verdict.empty()) {
    r.status = "failed";
    r.summary = format("the check process of group %s exited with status %d without a verdict", group_label(g).c_str(),
                       run.exit_code) + where;
    r.failures.insert(r.failures.begin(), r.summary);
    return r;
  }
  size_t sp = verdict.find(' ');
  r.status = verdict.substr(0, sp);
  r.summary = sp == std::string::npos ? "" : verdict.substr(sp + 1);
  if (r.status == "failed" && !r.failures.empty()) r.summary = r.failures.front();
  return r;
}

GroupResult not_run(const GroupDef &g, const std::string &status, const std::string &why) {
  GroupResult r;
  r.def = &g;
  r.status = status;
  r.summary = why;
  if (status == "failed") r.failures.push_back(why);
  return r;
}

// The reference plugin: --reference, the core's plugin directory, or beside
// the checked plugin.
std::string find_reference(const Options &opt, const std::string &plugin) {
  if (!opt.reference.empty()) return absolute(opt.reference);
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&bp_api_version), &info) && info.dli_fname) {
    std::string p = dir_of(absolute(info.dli_fname)) + "/backplane/plugins/libbackplane-reference.so";
    if (file_exists(p)) return p;
  }
  std::string beside = dir_of(plugin) + "/libbackplane-reference.so";
  if (file_exists(beside)) return beside;
  // Ask the core (in a child: discovery loads every plugin).
  ChildRun run = run_child({"--list-plugins", "--result-fd", "3"}, 60);
  for (auto &ev : run.events) {
    if (ev.first != 'I') continue;
    // "candidate <loaded>\t<name>\t<path>\t<reason>"
    std::string line = ev.second;
    if (line.rfind("candidate ", 0) != 0) continue;
    std::vector<std::string> parts;
    size_t pos = 10;
    while (pos <= line.size()) {
      size_t tab = line.find('\t', pos);
      if (tab == std::string::npos) tab = line.size();
      parts.push_back(line.substr(pos, tab - pos));
      pos = tab + 1;
    }
    if (parts.size() >= 3 && parts[0] == "1" && parts[1] == "reference") return parts[2];
  }
  return {};
}

// ---- output -----------------------------------------------------------

std::string json_escape(const std::string &s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) out += format("\\u%04x", c);
        else out += char(c);
    }
  }
  return out;
}

std::string xml_escape(const std::string &s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (c < 0x20 && c != '\n' && c != '\t') out += ' ';
        else out += char(c);
    }
  }
  return out;
}

std::string plugin_title(const PluginResult &p) {
  auto get = [&](const char *k) {
    auto it = p.info.find(k);
    return it == p.info.end() ? std::string() : it->second;
  };
  if (get("name").empty()) return "";
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

void count(const std::vector<PluginResult> &all, int *passed, int *failed, int *skipped) {
  *passed = *failed = *skipped = 0;
  for (const PluginResult &p : all)
    for (const GroupResult &g : p.groups) {
      if (g.status == "passed") ++*passed;
      else if (g.status == "skipped") ++*skipped;
      else ++*failed;
    }
}

std::string to_json(const std::vector<PluginResult> &all) {
  int passed, failed, skipped;
  count(all, &passed, &failed, &skipped);
  std::string j = "{\n  \"tool\": \"bp check\",\n  \"plugins\": [";
  for (size_t i = 0; i < all.size(); ++i) {
    const PluginResult &p = all[i];
    j += i ? ",\n    {" : "\n    {";
    j += "\n      \"path\": \"" + json_escape(p.path) + "\",";
    if (!p.reference.empty()) j += "\n      \"reference\": \"" + json_escape(p.reference) + "\",";
    j += "\n      \"info\": {";
    size_t k = 0;
    for (auto &kv : p.info) j += std::string(k++ ? ", " : "") + "\"" + json_escape(kv.first) + "\": \"" + json_escape(kv.second) + "\"";
    j += "},\n      \"groups\": [";
    for (size_t g = 0; g < p.groups.size(); ++g) {
      const GroupResult &r = p.groups[g];
      j += g ? ",\n        {" : "\n        {";
      j += format("\"level\": %d, \"group\": \"%s\", \"id\": \"%s\", ", r.def->level, json_escape(r.def->title).c_str(), r.def->id);
      j += "\"result\": \"" + r.status + "\", \"summary\": \"" + json_escape(r.summary) + "\", ";
      j += format("\"checks_passed\": %d, \"checks_failed\": %d, \"seconds\": %.3f, ", r.checks_passed, r.checks_failed, r.seconds);
      std::map<std::string, std::string> infos;
      for (auto &kv : r.infos) infos[kv.first] += (infos[kv.first].empty() ? "" : "; ") + kv.second;
      j += "\"info\": {";
      size_t n = 0;
      for (auto &kv : infos) j += std::string(n++ ? ", " : "") + "\"" + json_escape(kv.first) + "\": \"" + json_escape(kv.second) + "\"";
      j += "}, \"failures\": [";
      for (size_t f = 0; f < r.failures.size(); ++f) j += std::string(f ? ", " : "") + "\"" + json_escape(r.failures[f]) + "\"";
      j += "], \"notes\": [";
      for (size_t f = 0; f < r.notes.size(); ++f) j += std::string(f ? ", " : "") + "\"" + json_escape(r.notes[f]) + "\"";
      j += "]}";
    }
    j += "\n      ]\n    }";
  }
  j += format("\n  ],\n  \"summary\": {\"passed\": %d, \"failed\": %d, \"skipped\": %d}\n}\n", passed, failed, skipped);
  return j;
}

bool write_junit(const std::string &file, const std::vector<PluginResult> &all) {
  int passed, failed, skipped;
  count(all, &passed, &failed, &skipped);
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += format("<testsuites name=\"bp check\" tests=\"%d\" failures=\"%d\" skipped=\"%d\">\n", passed + failed + skipped, failed,
              skipped);
  for (const PluginResult &p : all) {
    auto it = p.info.find("name");
    std::string name = it != p.info.end() ? it->second : p.path.substr(p.path.rfind('/') + 1);
    int pf = 0, ps = 0;
    double t = 0;
    for (const GroupResult &g : p.groups) {
      pf += g.status == "failed";
      ps += g.status == "skipped";
      t += g.seconds;
    }
    x += format("  <testsuite name=\"backplane.check.%s\" tests=\"%zu\" failures=\"%d\" errors=\"0\" skipped=\"%d\" time=\"%.3f\">\n",
                xml_escape(name).c_str(), p.groups.size(), pf, ps, t);
    x += "    <properties>\n      <property name=\"path\" value=\"" + xml_escape(p.path) + "\"/>\n";
    for (auto &kv : p.info)
      x += "      <property name=\"" + xml_escape(kv.first) + "\" value=\"" + xml_escape(kv.second) + "\"/>\n";
    x += "    </properties>\n";
    for (const GroupResult &g : p.groups) {
      x += format("    <testcase classname=\"backplane.check.%s.L%d\" name=\"%s\" time=\"%.3f\"", xml_escape(name).c_str(),
                  g.def->level, xml_escape(g.def->title).c_str(), g.seconds);
      if (g.status == "passed") {
        x += "/>\n";
      } else if (g.status == "skipped") {
        x += ">\n      <skipped message=\"" + xml_escape(g.summary) + "\"/>\n    </testcase>\n";
      } else {
        std::string body;
        for (const std::string &f : g.failures) body += f + "\n";
        if (!g.output_tail.empty()) body += "--- output of the check process ---\n" + g.output_tail;
        x += ">\n      <failure message=\"" + xml_escape(g.summary) + "\">" + xml_escape(body) + "</failure>\n    </testcase>\n";
      }
    }
    x += "  </testsuite>\n";
  }
  x += "</testsuites>\n";
  std::ofstream out(file);
  out << x;
  return bool(out);
}

// ---- the modes ------------------------------------------------------------

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
      r = &g == load ? not_run(g, "failed", "cannot load: " + p.path + ": no such file")
                     : not_run(g, "skipped", "the plugin did not load (see L0 load and ABI)");
    } else if (!blocked.empty()) {
      r = not_run(g, "skipped", blocked);
    } else if (g.needs_devices && !no_devices.empty()) {
      r = not_run(g, "skipped", no_devices);
    } else {
      if ((g.id == std::string("numerics") || g.level == 4) && !reference_looked_up) {
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
    }
    p.groups.push_back(r);
    if (!opt.json) print_group(r, opt.verbose);
  }
  return p;
}

int probe(const std::vector<std::string> &plugins, const Options &opt) {
  int failures = 0;
  std::string json = "{\n  \"tool\": \"bp check --probe\",\n  \"plugins\": [";
  for (size_t i = 0; i < plugins.size(); ++i) {
    const std::string path = absolute(plugins[i]);
    GroupResult r = file_exists(path) ? run_group(*find_group("load"), path, opt, "")
                                      : not_run(*find_group("load"), "failed", "cannot load: " + path + ": no such file");
    std::map<std::string, std::string> info;
    std::vector<std::string> devices;
    for (auto &kv : r.infos) {
      if (kv.first == "device") devices.push_back(kv.second);
      else info[kv.first] = kv.second;
    }
    const bool ok = r.status == "passed";
    failures += !ok;
    if (opt.json) {
      json += i ? ",\n    {" : "\n    {";
      json += "\"path\": \"" + json_escape(path) + "\", \"loads\": " + (ok ? "true" : "false");
      if (!ok) json += ", \"problem\": \"" + json_escape(r.summary) + "\"";
      for (auto &kv : info) json += ", \"" + json_escape(kv.first) + "\": \"" + json_escape(kv.second) + "\"";
      json += ", \"device_list\": [";
      for (size_t d = 0; d < devices.size(); ++d) json += std::string(d ? ", " : "") + "\"" + json_escape(devices[d]) + "\"";
      json += "]}";
      continue;
    }
    std::printf("bp check --probe %s\n", path.c_str());
    std::printf("  loads:          %s\n", ok ? "yes" : ("no: " + r.summary).c_str());
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
    for (const std::string &d : devices) std::printf("    %s\n", d.c_str());
    if (!ok)
      for (size_t f = 1; f < r.failures.size(); ++f) std::printf("  also:           %s\n", r.failures[f].c_str());
  }
  if (opt.json) {
    json += "\n  ]\n}\n";
    std::fputs(json.c_str(), stdout);
  }
  return failures ? 1 : 0;
}

// Hidden mode: list the core's plugin candidates (run in a child).
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
  ChildRun run = run_child({"--list-plugins", "--result-fd", "3"}, 120);
  std::vector<std::string> paths;
  for (auto &ev : run.events) {
    if (ev.first != 'I' || ev.second.rfind("candidate ", 0) != 0) continue;
    std::string line = ev.second.substr(10);
    size_t t1 = line.find('\t'), t2 = line.find('\t', t1 + 1), t3 = line.find('\t', t2 + 1);
    if (t1 == std::string::npos || t2 == std::string::npos) continue;
    std::string path = line.substr(t2 + 1, t3 == std::string::npos ? std::string::npos : t3 - t2 - 1);
    if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
  }
  if (run.signal || (run.exited && run.exit_code != 0))
    std::fprintf(stderr, "bp check: listing the core's plugins failed%s\n%s",
                 run.signal ? (" (" + signal_name(run.signal) + ")").c_str() : "", run.output_tail.c_str());
  return paths;
}

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
  bool list_plugins = false;
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
  if (opt.probe) return probe(opt.plugins, opt);

  // Our own stdout is a pipe in CI: keep the lines in order with the children's.
  std::vector<PluginResult> results;
  for (size_t i = 0; i < opt.plugins.size(); ++i) {
    if (i && !opt.json) std::printf("\n");
    results.push_back(check_plugin(opt.plugins[i], opt));
  }
  int passed, failed, skipped;
  count(results, &passed, &failed, &skipped);
  if (opt.json)
    std::fputs(to_json(results).c_str(), stdout);
  else
    std::printf("\n%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  if (!opt.junit.empty() && !write_junit(opt.junit, results)) {
    std::fprintf(stderr, "bp check: cannot write %s\n", opt.junit.c_str());
    return 2;
  }
  std::fflush(stdout);
  return failed ? 1 : 0;
}
