#include "groups.hpp"

#include <errno.h>
#include <unistd.h>

#include <exception>

#include "rules.hpp"
#include "text.hpp"

namespace bpcheck {

void Recorder::send(char kind, const std::string &text) {
  std::string line;
  line.reserve(text.size() + 3);
  line += kind;
  line += ' ';
  line += one_line(text);
  line += '\n';
  std::lock_guard<std::mutex> lock(mutex_);
  const char *p = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // the parent went away: nothing to report to
    }
    p += n;
    left -= size_t(n);
  }
}

void Recorder::begin(const std::string &what) { send('B', what); }
void Recorder::pass(const std::string &what) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++passed_;
  }
  send('P', what);
}
void Recorder::fail(const std::string &what) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++failed_;
  }
  send('F', what);
}
void Recorder::note(const std::string &what) { send('N', what); }
void Recorder::info(const std::string &key, const std::string &value) { send('I', key + " " + value); }

bool Recorder::expect(bool ok, const std::string &what, const std::string &failure) {
  if (ok)
    pass(what);
  else
    fail(failure);
  return ok;
}

void Recorder::skip(const std::string &why) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (skip_reason_.empty()) skip_reason_ = why;
}

int Recorder::failures() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failed_;
}
int Recorder::passes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return passed_;
}

void Recorder::finish() {
  std::string verdict;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failed_ > 0)
      verdict = "failed " + std::to_string(failed_) + " of " + std::to_string(failed_ + passed_) + " checks failed";
    else if (!skip_reason_.empty())
      verdict = "skipped " + skip_reason_;
    else
      verdict = "passed " + std::to_string(passed_) + " checks";
  }
  send('R', verdict);
}

namespace {

// Plugin::open, or nullptr with the failure recorded as `failure` + why.
std::unique_ptr<Plugin> load(Recorder &rec, const std::string &path, const std::string &failure) {
  std::string problem;
  auto plugin = Plugin::open(path, &problem);
  if (!plugin) rec.fail(failure + problem);
  return plugin;
}

// Plugin::init; false with the failure recorded as `failure` + why.
bool start(Recorder &rec, Plugin &plugin, const std::string &failure) {
  std::string problem = plugin.init();
  if (!problem.empty()) rec.fail(failure + problem);
  return problem.empty();
}

}  // namespace

std::unique_ptr<Plugin> Context::open_plugin() {
  auto plugin = load(rec, options.plugin_path, "the plugin does not load: ");
  if (!plugin) return nullptr;
  hold_to_abi_minor(plugin->api().abi_minor);
  if (!start(rec, *plugin, "init failed: ")) return nullptr;
  return plugin;
}

std::unique_ptr<Plugin> Context::open_reference() {
  if (options.reference_path.empty()) {
    rec.fail("no reference plugin was found to compare against (give --reference PATH to "
             "libbackplane-reference.so)");
    return nullptr;
  }
  auto ref = load(rec, options.reference_path, "the reference plugin " + options.reference_path + " does not load: ");
  if (!ref) return nullptr;
  if (std::string(ref->api().name) != "reference") {
    rec.fail("--reference " + options.reference_path + " is the backend '" + ref->api().name +
             "', not 'reference'");
    return nullptr;
  }
  if (!start(rec, *ref, "the reference plugin failed to start: ")) return nullptr;
  return ref;
}

std::vector<int32_t> Context::devices(Plugin &plugin, bool all_by_default) {
  int32_t n = plugin.device_count();
  std::vector<int32_t> out;
  if (options.device >= 0) {
    if (options.device < n)
      out.push_back(options.device);
    else
      rec.fail(format("--device %d: the plugin has %d device(s)", int(options.device), int(n)));
    return out;
  }
  for (int32_t i = 0; i < n && (all_by_default || i == 0); ++i) out.push_back(i);
  return out;
}

namespace {

// GroupDef::run for the bodies that take the plugin, or the plugin and the
// reference: opens them first, in that order, and skips the body when one
// cannot be opened (open_plugin and open_reference record why).
template <void (*body)(Context &, Plugin &)>
void with_plugin(Context &ctx) {
  if (auto plugin = ctx.open_plugin()) body(ctx, *plugin);
}

template <void (*body)(Context &, Plugin &, Plugin &)>
void with_reference(Context &ctx) {
  auto plugin = ctx.open_plugin();
  if (!plugin) return;
  if (auto ref = ctx.open_reference()) body(ctx, *plugin, *ref);
}

}  // namespace

const std::vector<GroupDef> &all_groups() {
  static const std::vector<GroupDef> groups = {
      {"load", 0, "load and ABI", false, group_load},
      {"arguments", 0, "invalid arguments", false, with_plugin<group_arguments>},
      {"devices", 1, "devices", true, with_plugin<group_devices>},
      {"memory", 1, "memory", true, with_plugin<group_memory>},
      {"oom", 1, "out of memory", true, with_plugin<group_out_of_memory>},
      {"numerics", 2, "numerics", true, with_reference<group_numerics>},
      {"softmax", 2, "softmax", true, with_reference<group_softmax>},
      {"normalize", 2, "normalisation", true, with_reference<group_normalize>},
      {"topk", 2, "top-k and sort", true, with_plugin<group_topk>},
      {"attention", 2, "attention", true, with_reference<group_attention>},
      {"conv", 2, "convolution", true, with_reference<group_conv>},
      {"pool", 2, "pooling", true, with_reference<group_pool>},
      {"capabilities", 3, "capabilities", true, with_plugin<group_capabilities>},
      {"core", 3, "through the core", true, group_core},
      {"copies", 3, "copies", true, with_plugin<group_copies>},
      {"collectives", 3, "collectives", true, with_plugin<group_collectives>},
      {"fused", 3, "fused programs", true, with_plugin<group_fused>},
      {"wrap-host", 3, "borrowed host memory", true, with_plugin<group_wrap_host>},
      {"threads", 4, "threads", true, with_reference<group_threads>},
      {"queues", 4, "queues", true, with_reference<group_queues>},
  };
  return groups;
}

const GroupDef *find_group(const std::string &id) {
  for (const GroupDef &g : all_groups())
    if (id == g.id) return &g;
  return nullptr;
}

int run_group_here(const std::string &id, const GroupOptions &options, int result_fd) {
  Recorder rec(result_fd);
  const GroupDef *group = find_group(id);
  if (!group) {
    rec.fail("unknown group '" + id + "'");
    rec.finish();
    return 2;
  }
  Context ctx{rec, options};
  try {
    group->run(ctx);
  } catch (const std::exception &e) {
    rec.fail(std::string("the check itself failed: ") + e.what());
  }
  rec.finish();
  return 0;
}

}  // namespace bpcheck
