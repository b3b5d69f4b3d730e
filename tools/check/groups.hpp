// The groups of checks, each run in a child process, and the recorder that
// streams their findings to the parent through a pipe (one line per event,
// written with write(2) at once, so nothing is lost when the plugin crashes).
//
// Protocol (child -> parent), one event per line:
//   B <text>   a case begins (named in a crash report)
//   P <text>   a check passed
//   F <text>   a check failed
//   N <text>   a note (shown with the details, does not fail)
//   I <key> <value>   a fact about the plugin (name, devices, ...)
//   R <passed|failed|skipped> <text>   the group's verdict, last line
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "plugin.hpp"

namespace bpcheck {

class Recorder {
 public:
  explicit Recorder(int fd) : fd_(fd) {}
  void begin(const std::string &what);
  void pass(const std::string &what);
  void fail(const std::string &what);
  void note(const std::string &what);
  void info(const std::string &key, const std::string &value);
  // pass(what) when ok, else fail(failure).
  bool expect(bool ok, const std::string &what, const std::string &failure);
  // The group ends as skipped (unless something failed) with this reason.
  void skip(const std::string &why);
  int failures() const;
  int passes() const;
  // Sends the verdict line; called once by the group runner.
  void finish();

 private:
  void send(char kind, const std::string &text);
  int fd_;
  mutable std::mutex mutex_;
  int passed_ = 0, failed_ = 0;
  std::string skip_reason_;
};

struct GroupOptions {
  std::string plugin_path;
  std::string reference_path;  // "" when none was found
  int32_t device = -1;         // --device, -1: the default for each group
  std::vector<int32_t> ops;    // --ops: the operators L2 numerics checks (empty: all)
};

struct Context {
  Recorder &rec;
  const GroupOptions &options;
  // Opens and starts the plugin under test; on failure records it (as a
  // failure) and returns nullptr.
  std::unique_ptr<Plugin> open_plugin();
  // Opens and starts the reference plugin, or records why it cannot.
  std::unique_ptr<Plugin> open_reference();
  // The devices a group checks: --device when given (if it exists), else
  // all of them when all_by_default, else device 0.
  std::vector<int32_t> devices(Plugin &plugin, bool all_by_default);
};

// Whether the plugin has the optional entry `member`; else the group is
// skipped, saying `missing` (what the core does without it).
template <class F>
bool has_optional_entry(Recorder &rec, const Plugin &p, F bp_plugin_api::*member, const std::string &missing) {
  if (p.entry(member)) return true;
  rec.skip(missing);
  return false;
}

struct GroupDef {
  const char *id;     // for --run-group
  int level;          // 0..4
  const char *title;  // "numerics": shown as "L2 numerics"
  bool needs_devices; // skipped when the plugin has no devices
  void (*run)(Context &);
};

const std::vector<GroupDef> &all_groups();
const GroupDef *find_group(const std::string &id);

// Group bodies (one file per level). The plugin under test, and the
// reference for the groups that compare with it, come opened and started:
// when either cannot be, the failure is recorded and the body does not run.
void group_load(Context &);
void group_arguments(Context &, Plugin &p);
void group_devices(Context &, Plugin &p);
void group_memory(Context &, Plugin &p);
void group_out_of_memory(Context &, Plugin &p);
void group_numerics(Context &, Plugin &p, Plugin &ref);
// The SOFTMAX family (softmax_checks.cpp; since 1.6).
void group_softmax(Context &, Plugin &p, Plugin &ref);
// TOPK against the kit's own results (topk_checks.cpp; since 1.6).
void group_topk(Context &, Plugin &p);
void group_normalize(Context &, Plugin &p, Plugin &ref);
// The optional fused ATTENTION entry on random problems (attention_checks.cpp).
void group_attention(Context &, Plugin &p, Plugin &ref);
// Random convolutions against the reference, and their refusals (conv_checks.cpp).
void group_conv(Context &, Plugin &p, Plugin &ref);
// The POOL and POOL_GRAD families (pool_checks.cpp; since 1.6).
void group_pool(Context &, Plugin &p, Plugin &ref);
void group_capabilities(Context &, Plugin &p);
void group_core(Context &);
void group_copies(Context &, Plugin &p);
void group_collectives(Context &, Plugin &p);
// Opens the reference itself, once it knows the plugin has execute_fused.
void group_fused(Context &, Plugin &p);
// The optional wrap_host entry (wrap_host_checks.cpp).
void group_wrap_host(Context &, Plugin &p);
void group_threads(Context &, Plugin &p, Plugin &ref);
void group_queues(Context &, Plugin &p, Plugin &ref);
// Part of group_arguments in a file of its own: execute's arguments of the
// GATHER and SCATTER families (index_argument_checks.cpp).
void check_index_arguments(Recorder &rec, Plugin &p);
// Part of group_collectives in a file of its own: the malformed calls of the
// collective entry on `devices` (collective_malformed.cpp).
void check_collective_malformed(Recorder &rec, Plugin &p, const std::vector<int32_t> &devices);

// Runs one group in this (child) process: the hidden --run-group mode.
int run_group_here(const std::string &id, const GroupOptions &options, int result_fd);

}  // namespace bpcheck
