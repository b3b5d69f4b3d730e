#include "groups.hpp"

#include <errno.h>
#include <unistd.h>

#include <exception>

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

std::unique_ptr<Plugin> Context::open_plugin() {
  std::string problem;
  auto plugin = Plugin::open(options.plugin_path, &problem);
  if (!plugin) {
    rec.fail("the plugin does not load: " + problem);
    return nullptr;
  }
  std::string init_problem = plugin->init();
  if (!init_problem.empty()) {
    rec.fail("init failed: " + init_problem);
    return nullptr;
  }
  return plugin;
}

std::unique_ptr<Plugin> Context::open_reference() {
  if (options.reference_path.empty()) {
    rec.fail("no reference plugin was found to compare against (give --reference PATH to "
             "libbackplane-reference.so)");
    return nullptr;
  }
  std::string problem;
  auto ref = Plugin::open(options.reference_path, &problem);
  if (!ref) {
    rec.fail("the reference plugin " + options.reference_path + " does not load: " + problem);
    return nullptr;
  }
  if (std::string(ref->api().name) != "reference") {
    rec.fail("--reference " + options.reference_path + " is the backend '" + ref->api().name +
             "', not 'reference'");
    return nullptr;
  }
  std::string init_problem = ref->init();
  if (!init_problem.empty()) {
    rec.fail("the reference plugin failed to start: " + init_problem);
    return nullptr;
  }
  return ref;
}

bool Context::open_with_reference(std::unique_ptr<Plugin> *plugin, std::unique_ptr<Plugin> *reference) {
  *plugin = open_plugin();
  if (*plugin) *reference = open_reference();
  return *plugin && *reference;
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

const std::vector<GroupDef> &all_groups() {
  static const std::vector<GroupDef> groups = {
      {"load", 0, "load and ABI", false, group_load},
      {"arguments", 0, "invalid arguments", false, group_arguments},
      {"devices", 1, "devices", true, group_devices},
      {"memory", 1, "memory", true, group_memory},
      {"oom", 1, "out of memory", true, group_out_of_memory},
      {"numerics", 2, "numerics", true, group_numerics},
      {"capabilities", 3, "capabilities", true, group_capabilities},
      {"core", 3, "through the core", true, group_core},
      {"copies", 3, "copies", true, group_copies},
      {"threads", 4, "threads", true, group_threads},
      {"queues", 4, "queues", true, group_queues},
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
