#include "plugin.hpp"

#include <dlfcn.h>

#include <cstring>

#include "plugin_validation.hpp"
#include "text.hpp"
#include "vocab.hpp"

namespace bpcheck {

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
  std::string bad = bp::plugin_validation::validate_plugin_api(api);
  if (bad.empty()) bad = bp::plugin_validation::conformance_problem(*api);
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

std::unique_ptr<Plugin> Plugin::borrow(const bp_plugin_api &api) {
  std::unique_ptr<Plugin> p(new Plugin);
  p->api_ = &api;
  p->path_ = "(borrowed)";
  return p;
}

std::string Plugin::device_name(int32_t device) const {
  return std::string(api_->device_prefix) + ":" + std::to_string(device);
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
  return e ? plugin_text(e) : std::string("(last_error returned NULL)");
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
  if (why_none) *why_none = why ? plugin_text(why) : "";
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

bp_status Plugin::collective(const bp_collective_args *args) {
  auto lock = guard();
  return api_->collective(args);
}
bp_status Plugin::group_id(int32_t device, void *id, uint32_t capacity, uint32_t *size) {
  auto lock = guard();
  return api_->group_id(device, id, capacity, size);
}
bp_status Plugin::group_join(int32_t device, const void *id, uint32_t size, int32_t rank, int32_t nranks,
                             uint64_t *group) {
  auto lock = guard();
  return api_->group_join(device, id, size, rank, nranks, group);
}
bp_status Plugin::group_leave(uint64_t group) {
  auto lock = guard();
  return api_->group_leave(group);
}

bp_status Plugin::execute_fused(int32_t device, const bp_fused_program *program) {
  auto lock = guard();
  return api_->execute_fused(device, program);
}

bool Plugin::declares(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype) {
  int32_t answer = 0;
  return supports(device, op, dtype, out_dtype, &answer) == BP_OK && answer == 1;
}

std::vector<Combo> declared_combos(Plugin &plugin, int32_t device) {
  std::vector<Combo> out;
  for (int32_t op : vocab_ops())
    for (int32_t d : vocab_dtypes())
      for (int32_t o : vocab_dtypes()) {
        // Creation ops name their output dtype twice (plugin.h, supports).
        if (op_family(op) == BP_OP_FAMILY_CREATE && o != d) continue;
        if (plugin.declares(device, op, d, o)) out.push_back({op, d, o});
      }
  return out;
}

}  // namespace bpcheck
