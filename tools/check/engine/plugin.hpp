// A plugin binary opened directly (dlopen), without the core: what every
// group of checks talks to.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backplane/plugin.h"

namespace bpcheck {

class Plugin {
 public:
  // dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE), the entry symbol, the
  // table for this host's ABI, and its validation (the core's validator). Returns nullptr with
  // *problem set when any of that fails. Does not call init.
  static std::unique_ptr<Plugin> open(const std::string &path, std::string *problem);
  // A table its caller loaded and started itself (the plugin tests'
  // PluginHandle), used as it is: not validated, never closed; `api` must
  // outlive the Plugin.
  static std::unique_ptr<Plugin> borrow(const bp_plugin_api &api);

  // init with no options; "" on success, else "<STATUS>: <message>".
  std::string init();

  const bp_plugin_api &api() const { return *api_; }
  const std::string &path() const { return path_; }
  bool thread_safe() const { return (api_->flags & BP_PLUGIN_THREAD_SAFE) != 0; }
  bool has_copy() const { return api_->copy != nullptr; }
  bool has_host_address() const { return api_->host_address != nullptr; }
  bool has_properties() const { return api_->device_properties != nullptr; }
  // An entry the table may end before (a plugin of an older minor): the
  // entry, or nullptr when the plugin's struct_size does not reach it.
  template <class F>
  F entry(F bp_plugin_api::*member) const {
    return table_reaches(*api_, member) ? api_->*member : nullptr;
  }
  template <class F>
  static bool table_reaches(const bp_plugin_api &api, F bp_plugin_api::*member) {
    static const bp_plugin_api probe{};
    const size_t end = size_t(reinterpret_cast<const char *>(&(probe.*member)) -
                              reinterpret_cast<const char *>(&probe)) + sizeof(F);
    return api.struct_size >= end;
  }
  // "<prefix>:<d>", the device's name in messages.
  std::string device_name(int32_t device) const;

  // Held around every call when the plugin is not thread safe (as the core
  // does); a no-op lock otherwise.
  std::unique_lock<std::mutex> guard() {
    return thread_safe() ? std::unique_lock<std::mutex>() : std::unique_lock<std::mutex>(mutex_);
  }

  // The plugin's last_error() for this thread, never NULL.
  std::string last_error();
  // "BP_ERR_X: message" for a failed status.
  std::string describe(bp_status status);

  // Devices as device_count reports them (after init).
  int32_t device_count(std::string *why_none = nullptr);

  // Convenience wrappers that serialise when needed.
  bp_status alloc(int32_t device, uint64_t bytes, bp_buffer *out);
  bp_status free(bp_buffer buffer);
  bp_status write(bp_buffer dst, uint64_t offset, const void *src, uint64_t bytes);
  bp_status read(bp_buffer src, uint64_t offset, void *dst, uint64_t bytes);
  bp_status copy(bp_buffer src, uint64_t src_offset, bp_buffer dst, uint64_t dst_offset, uint64_t bytes);
  bp_status supports(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype, int32_t *answer);
  bp_status execute(int32_t device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                    int32_t n_inputs, const bp_plugin_tensor *output);
  bp_status synchronize(int32_t device);
  // The 1.2 entries; call only when entry() gave them.
  bp_status collective(const bp_collective_args *args);
  bp_status group_id(int32_t device, void *id, uint32_t capacity, uint32_t *size);
  bp_status group_join(int32_t device, const void *id, uint32_t size, int32_t rank, int32_t nranks, uint64_t *group);
  bp_status group_leave(uint64_t group);
  // The 1.3 entry; call only when entry() gave it.
  bp_status execute_fused(int32_t device, const bp_fused_program *program);

  // 1 when supports() says yes; 0 for no or for an error.
  bool declares(int32_t device, int32_t op, int32_t dtype, int32_t out_dtype);

 private:
  void *lib_ = nullptr;
  const bp_plugin_api *api_ = nullptr;
  std::string path_;
  std::mutex mutex_;
};

// Every (op, dtype, out_dtype) the plugin declares on a device, in op order.
struct Combo {
  int32_t op, dtype, out_dtype;
};
std::vector<Combo> declared_combos(Plugin &plugin, int32_t device);

}  // namespace bpcheck
