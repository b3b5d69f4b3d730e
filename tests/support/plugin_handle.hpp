// Test-only access to one plugin's ABI table, without the core: loads the
// .so with dlopen, starts it, and offers small conveniences for buffers.
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "backplane/plugin.h"

namespace bp_test {

// The build tree's plugin folder, or the one BP_TEST_PLUGIN_DIR names: the
// GPU bundle (tools/gpu-run) runs these tests far from the build tree.
inline std::string plugin_path(const std::string &name) {
  const char *dir = std::getenv("BP_TEST_PLUGIN_DIR");
  return std::string(dir && *dir ? dir : BP_TEST_PLUGIN_DIR) + "/libbackplane-" + name + ".so";
}

class PluginHandle {
 public:
  // Loads libbackplane-<name>.so from the build tree and calls init with options.
  explicit PluginHandle(const std::string &name,
                        std::vector<std::pair<std::string, std::string>> options = {}) {
    const std::string path = plugin_path(name);
    lib_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!lib_) throw std::runtime_error(std::string("dlopen: ") + dlerror());
    auto get = reinterpret_cast<bp_plugin_get_api_fn>(dlsym(lib_, BP_PLUGIN_ENTRY_SYMBOL));
    if (!get) throw std::runtime_error("no entry symbol in " + path);
    api_ = get(BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR);
    if (!api_) throw std::runtime_error("plugin refused the host ABI: " + path);
    std::vector<const char *> keys, values;
    for (auto &kv : options) {
      keys.push_back(kv.first.c_str());
      values.push_back(kv.second.c_str());
    }
    check(api_->init(keys.data(), values.data(), static_cast<int32_t>(keys.size())), "init");
  }
  PluginHandle(const PluginHandle &) = delete;
  PluginHandle &operator=(const PluginHandle &) = delete;

  const bp_plugin_api &api() const { return *api_; }

  // Throws with the plugin's own message when a call failed.
  void check(bp_status s, const char *what) const {
    if (s != BP_OK)
      throw std::runtime_error(std::string(what) + " failed (" + std::to_string(s) +
                               "): " + api_->last_error());
  }

  int32_t device_count() const {
    int32_t n = 0;
    const char *why = nullptr;
    check(api_->device_count(&n, &why), "device_count");
    return n;
  }

  bp_buffer alloc(int32_t device, uint64_t bytes) const {
    bp_buffer b = nullptr;
    check(api_->alloc(device, bytes, &b), "alloc");
    return b;
  }

  template <class T>
  bp_buffer upload(int32_t device, const std::vector<T> &host) const {
    bp_buffer b = alloc(device, host.size() * sizeof(T));
    if (!host.empty()) check(api_->write(b, 0, host.data(), host.size() * sizeof(T)), "write");
    return b;
  }

  template <class T>
  std::vector<T> download(bp_buffer b, size_t count, uint64_t offset = 0) const {
    std::vector<T> host(count);
    if (count) check(api_->read(b, offset, host.data(), count * sizeof(T)), "read");
    return host;
  }

 private:
  void *lib_ = nullptr;
  const bp_plugin_api *api_ = nullptr;
};

// A dense C-order view of `buffer` with the given shape.
inline bp_plugin_tensor dense_view(bp_buffer buffer, bp_dtype dtype, std::vector<int64_t> shape,
                                   uint64_t offset = 0) {
  bp_plugin_tensor t;
  std::memset(&t, 0, sizeof t);
  t.buffer = buffer;
  t.offset = offset;
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(shape.size());
  int64_t stride = 1;
  for (int d = t.rank - 1; d >= 0; --d) {
    t.shape[d] = shape[d];
    t.strides[d] = stride;
    stride *= shape[d];
  }
  return t;
}

inline bp_op_attrs default_attrs() {
  bp_op_attrs a;
  std::memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  return a;
}

}  // namespace bp_test
