// L0 load and ABI: dlopen with every symbol resolved, only the entry symbol
// exported, the table (the core's validator: versions, struct_size, name,
// version, prefix, required entries), init, device_count and what each
// device is.
#include <dlfcn.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "builtin_plugins.hpp"
#include "elf_exports.hpp"
#include "groups.hpp"
#include "paths.hpp"
#include "plugin_validation.hpp"
#include "text.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

// How long the load group watches a started plugin before it ends.
constexpr int kWatchAfterInitMs = 1500;

}  // namespace

void group_load(Context &ctx) {
  Recorder &rec = ctx.rec;
  const std::string &path = ctx.options.plugin_path;
  const std::string file = base_name(path);
  if (file.rfind("libbackplane-", 0) != 0 || file.size() < 17 || file.compare(file.size() - 3, 3, ".so") != 0)
    rec.note("the core's discovery only loads files named libbackplane-<name>.so; this one is " + file);

  rec.begin("dlopen");
  void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!lib) {
    const char *e = dlerror();
    rec.fail(std::string("cannot load: ") + (e ? e : "dlopen failed"));
    return;
  }
  rec.pass("loads with dlopen(RTLD_NOW): no unresolved symbols");

  auto get = reinterpret_cast<bp_plugin_get_api_fn>(dlsym(lib, BP_PLUGIN_ENTRY_SYMBOL));
  if (!get) {
    rec.fail(std::string("missing entry symbol ") + BP_PLUGIN_ENTRY_SYMBOL);
    return;
  }
  rec.pass(std::string("has the entry symbol ") + BP_PLUGIN_ENTRY_SYMBOL);

  std::string elf_error;
  std::vector<std::string> extra = extra_exports(path, &elf_error);
  if (!elf_error.empty()) {
    rec.note("could not list the exported symbols: " + elf_error);
  } else if (!extra.empty()) {
    std::string list;
    for (size_t i = 0; i < extra.size() && i < 5; ++i) list += (i ? ", " : "") + extra[i];
    if (extra.size() > 5) list += ", ...";
    rec.fail(format("exports %zu symbol(s) besides %s (%s): link with the plugin version script "
                    "(backplane_add_plugin does)",
                    extra.size(), BP_PLUGIN_ENTRY_SYMBOL, list.c_str()));
  } else {
    rec.pass(std::string("exports only ") + BP_PLUGIN_ENTRY_SYMBOL);
  }

  rec.begin(format("bp_plugin_get_api(%d, %d)", BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR));
  const bp_plugin_api *api = get(BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR);
  namespace validation = bp::plugin_validation;
  if (api) {
    // The first four fields exist in every table of every version.
    rec.info("abi", validation::abi_version(*api));
    rec.info("struct_size", std::to_string(api->struct_size));
  }
  // The core's own validator: the kit rejects exactly what the core rejects,
  // and fails, too, what the core still loads but plugin.h forbids.
  std::string problem = validation::validate_plugin_api(api);
  if (problem.empty()) problem = validation::conformance_problem(*api);
  if (!problem.empty()) {
    rec.fail(problem);
    return;
  }
  rec.pass("ABI " + validation::abi_version(*api) + format(": major %u, struct_size %u covers the 1.0 table",
                                                            api->abi_major, api->struct_size));
  const std::string newer = validation::newer_minor_note(*api);
  if (!newer.empty()) rec.note(newer);
  rec.pass("name, version, device prefix and every required entry are present");
  rec.info("name", api->name);
  rec.info("version", api->version);
  rec.info("prefix", api->device_prefix);
  rec.info("thread_safe", (api->flags & BP_PLUGIN_THREAD_SAFE) ? "yes" : "no");
  std::string optional;
  if (api->device_properties) optional += " device_properties";
  if (api->copy) optional += " copy";
  if (api->host_address) optional += " host_address";
  if (Plugin::table_reaches(*api, &bp_plugin_api::collective) && api->collective) optional += " collective";
  if (Plugin::table_reaches(*api, &bp_plugin_api::group_leave) && api->group_id && api->group_join &&
      api->group_leave)
    optional += " groups";
  rec.info("optional", optional.empty() ? "none" : optional.substr(1));
  const std::string expected_file = std::string("libbackplane-") + api->name + ".so";
  if (file != expected_file)
    rec.note("backend '" + std::string(api->name) + "' is in " + file + "; by convention the file is " + expected_file);

  rec.begin("backend name and device prefix against the built-in plugins");
  bool reuses = false;
  for (const BuiltinBackend &b : builtin_backends(path)) {
    const bool name = b.name == api->name, prefix = b.prefix == api->device_prefix;
    if (!name && !prefix) continue;
    if (another_build(b, path, api->name, api->device_prefix)) {
      rec.note("another build of the built-in plugin " + b.path + ": the core loads this one in its place with [plugins." +
               b.name + "] replace_builtin = true (as L3 through the core does)");
      continue;
    }
    reuses = true;
    rec.fail(std::string(name ? "backend name '" + b.name + "'" : "device prefix '" + b.prefix + "'") +
             " is the built-in plugin's " + b.path +
             ": the core loads the built-in one and rejects this plugin; choose another name and prefix");
  }
  if (!reuses) rec.pass("reuses no built-in plugin's backend name or device prefix");

  rec.begin(format("bp_plugin_get_api(%d, 0) from a host of another ABI major", BP_PLUGIN_ABI_MAJOR + 1));
  const bp_plugin_api *other = get(BP_PLUGIN_ABI_MAJOR + 1, 0);
  if (other && other->abi_major == BP_PLUGIN_ABI_MAJOR)
    rec.note(format("answers a host of ABI %d.0 with its %d.x table (allowed: that host checks abi_major)",
                    BP_PLUGIN_ABI_MAJOR + 1, BP_PLUGIN_ABI_MAJOR));
  rec.pass("a host of another ABI major gets an answer, not a crash");
  rec.begin("bp_plugin_get_api again");
  rec.expect(get(BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR) == api, "bp_plugin_get_api returns one table",
             "bp_plugin_get_api returned a different table on its second call");

  rec.begin("init(NULL, NULL, 0)");
  bp_status s = api->init(nullptr, nullptr, 0);
  if (s != BP_OK) {
    const char *e = api->last_error();
    rec.fail(std::string("init failed: ") + status_name(s) + ": " + (e && *e ? plugin_text(e) : "(no message)"));
    return;
  }
  rec.pass("init succeeds");
  rec.begin("last_error()");
  rec.expect(api->last_error() != nullptr, "last_error() returns a string", "last_error() returned NULL");

  rec.begin("device_count");
  int32_t n = -1;
  const char *why = nullptr;
  s = api->device_count(&n, &why);
  if (s != BP_OK) {
    const char *e = api->last_error();
    rec.fail(std::string("device_count failed: ") + status_name(s) + ": " + (e ? plugin_text(e) : ""));
    return;
  }
  if (n < 0) {
    rec.fail(format("device_count reported %d devices", int(n)));
    return;
  }
  rec.pass(format("device_count: %d", int(n)));
  rec.info("devices", std::to_string(n));
  if (n == 0) {
    std::string reason = why && *why ? plugin_text(why) : "the plugin gave no reason";
    rec.info("why_none", reason);
    rec.note("no devices: " + reason);
  }
  // What each device is (for --probe; L1 checks the details).
  for (int32_t d = 0; d < n && d < 64; ++d) {
    rec.begin(format("device_info(%d)", int(d)));
    bp_plugin_device_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (api->device_info(d, &info) != BP_OK) continue;
    info.model[sizeof info.model - 1] = 0;
    const char *kind = info.kind == BP_DEVICE_CPU ? "cpu" : info.kind == BP_DEVICE_GPU ? "gpu"
                       : info.kind == BP_DEVICE_ACCELERATOR ? "accelerator" : "unknown kind";
    std::string text = format("%s:%d  %s  %s", api->device_prefix, int(d), kind, info.model);
    if (info.memory_total) text += format("  %.1f GiB", double(info.memory_total) / double(1u << 30));
    rec.info("device", text);
  }
  // A thread the plugin started in init that faults a little later takes
  // its host down as surely as a crash in init: give it the time to.
  rec.begin(format("watching the plugin for %d ms after init", kWatchAfterInitMs));
  std::this_thread::sleep_for(std::chrono::milliseconds(kWatchAfterInitMs));
  rec.pass(format("still running %d ms after init", kWatchAfterInitMs));
}

}  // namespace bpcheck
