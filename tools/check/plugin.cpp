#include "plugin.hpp"

#include <dlfcn.h>

#include <cstring>

#include "names.hpp"

namespace bpcheck {

bool valid_backend_name(const char *name) {
  if (!name) return false;
  size_t n = std::strlen(name);
  if (n == 0 || n > 63) return false;
  for (size_t i = 0; i < n; ++i) {
    char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) return false;
  }
  return true;
}

std::string validate_table(const bp_plugin_api *api) {
  if (!api)
    return format("bp_plugin_get_api returned NULL (the plugin refused host ABI %d.%d)", BP_PLUGIN_ABI_MAJOR,
                  BP_PLUGIN_ABI_MINOR);
  if (api->abi_major != BP_PLUGIN_ABI_MAJOR)
    return format("ABI major version %u found, this kit needs %d", api->abi_major, BP_PLUGIN_ABI_MAJOR);
  if (api->struct_size < BP_PLUGIN_API_SIZE_1_0)
    return format("struct_size %u is smaller than a version 1.0 table (%zu bytes)", api->struct_size,
                  size_t(BP_PLUGIN_API_SIZE_1_0));
  if (!valid_backend_name(api->name))
    return "backend name is missing or not made of [a-z0-9_-] (at most 63 characters)";
  if (!api->version || !*api->version) return "version string is missing or empty";
  if (!valid_backend_name(api->device_prefix) || std::strcmp(api->device_prefix, "gpu") == 0 ||
      std::strcmp(api->device_prefix, "auto") == 0 || std::strcmp(api->device_prefix, "default") == 0)
    return "device_prefix is missing, malformed or reserved (gpu, auto, default)";
  struct Required {
    const void *fn;
    const char *name;
  };
  const Required required[] = {
      {reinterpret_cast<const void *>(api->last_error), "last_error"},
      {reinterpret_cast<const void *>(api->init), "init"},
      {reinterpret_cast<const void *>(api->device_count), "device_count"},
      {reinterpret_cast<const void *>(api->device_info), "device_info"},
      {reinterpret_cast<const void *>(api->alloc), "alloc"},
      {reinterpret_cast<const void *>(api->free), "free"},
      {reinterpret_cast<const void *>(api->write), "write"},
      {reinterpret_cast<const void *>(api->read), "read"},
      {reinterpret_cast<const void *>(api->supports), "supports"},
      {reinterpret_cast<const void *>(api->execute), "execute"},
      {reinterpret_cast<const void *>(api->synchronize), "synchronize"},
  };
  for (const Required &r : required)
    if (!r.fn) return std::string("required entry '") + r.name + "' is NULL";
  return {};
}

std::unique_ptr<Plugin> Plugin::open(const std::string &path, std::string *problem) {
  void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!lib) {
    const char *e = dlerror();
    *problem = std::string("cannot load: ") + (e ? e : "dlopen failed");
    return nullptr;
  }
  auto get = reinterpret_cast<bp_plugin_get_api_fn>(dlsym(lib, BP_PLUGIN_ENTRY_SYMBOL));
  if (!get) {
    *problem = std::string("missing entry symbol ") + BP_PLUGIN_ENTRY_SYMBOL;
    return nullptr;
  }
  const bp_plugin_api *api = get(BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR);
  std::string bad = validate_table(api);
  if (!bad.empty()) {
    *problem = bad;
    return nullptr;
  }
  std::unique_ptr<Plugin> p(new Plugin);
  p->lib_ = lib;
  p->api_ = api;
  p->path_ = path;
  return p;
}

std::string Plugin::init() {
  bp_status s;
  {
    auto lock = guard();
    s = api_->init(nullptr, nullptr, 0);
  }
  if (s == BP_OK) return {};
  return describe(s);
}

std::string Plugin::last_error() {
  const char *e = api_->last_error();
  return e ? one_line(e) : std::string("(last_error returned NULL)");
}

std::string Plugin::describe(bp_status status) {
  std::string msg = last_error();
  return std::string(status_name(status)) + (msg.empty() ? ": (no message)" : ": " + msg);
}

int32_t Plugin::device_count(std::string *why_none) {
  int32_t n = 0;
  const char *why = nullptr;
  auto lock = guard();
  if (api_->device_count(&n, &why) != BP_OK) return 0;
  if (why_none) *why_none = why ? why : "";
  return n;
}

bp_status Plugin::alloc(int32_t device, uint64_t bytes, bp_buffer *out) {
  auto lock = guard();
  return api_->alloc(device, bytes, out);
}
bp_status Plugin::free(bp_buffer buffer) {
  auto lock = guard();
  return api_->free(buffer);
}
bp_status Plugin::write(bp_buffer dst, uint64_t offset, const void *src, uint64_t bytes) {
  auto lock = guard();
  return api_->write(dst, offset, src, bytes);
}
bp_status Plugin::read(bp_buffer src, uint64_t offset, void *dst, uint64_t bytes) {
  auto lock = guard();
  return api_->read(src, offset, dst, bytes);
}
bp_status Plugin::copy(bp_buffer src, uint64_t src_offset, bp_buffer dst, uint64_t dst_offset, uint64_t bytes) {
  auto lock = guard();
  return api_->copy(src, src_offset, dst, dst_offset, bytes);
}
bp_status Plugin::supports(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype, int32_t *answer) {
  auto lock = guard();
  return api_->supports(device, op, dtype, out_dtype, answer);
}
bp_status Plugin::execute(int32_t device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                          int32_t n_inputs, const bp_plugin_tensor *output) {
  auto lock = guard();
  return api_->execute(device, op, attrs, inputs, n_inputs, output);
}
bp_status Plugin::synchronize(int32_t device) {
  auto lock = guard();
  return api_->synchronize(device);
}

bool Plugin::declares(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype) {
  int32_t answer = 0;
  return supports(device, op, dtype, out_dtype, &answer) == BP_OK && answer == 1;
}

std::vector<Combo> declared_combos(Plugin &plugin, int32_t device) {
  std::vector<Combo> out;
  for (const OpInfo &info : all_ops())
    for (int32_t d : all_dtypes())
      for (int32_t o : all_dtypes()) {
        // Creation ops name their output dtype twice (plugin.h, supports).
        if (info.family == Family::create && o != d) continue;
        if (plugin.declares(device, info.op, d, o)) out.push_back({info.op, d, o});
      }
  return out;
}

}  // namespace bpcheck
