// Room the core hands a plugin to fill (bp_plugin_device_info, an array of
// bp_property): never the core's own object, but a zeroed scratch area
// followed by kGuardBytes of a known pattern. A plugin that writes past what
// it was given (built against a newer header and ignoring struct_size, say)
// writes into the guard instead of the core's stack; check() sees that and
// fails the call naming the plugin. An overrun longer than the guard is not
// contained (docs/writing-a-plugin.md).
#pragma once

#include <cstddef>
#include <memory>

namespace bp::core {

class Backend;

class PluginScratch {
 public:
  static constexpr size_t kGuardBytes = 4096;

  explicit PluginScratch(size_t bytes);

  template <class T>
  T *as() {
    return reinterpret_cast<T *>(bytes_.get());
  }

  // Throws BP_ERR_PLUGIN, naming the backend and its entry `call`, when the
  // guard after the area changed.
  void check(const Backend &b, const char *call) const;

 private:
  size_t size_;
  std::unique_ptr<unsigned char[]> bytes_;  // new[]: aligned for any struct of the ABI
};

}  // namespace bp::core
