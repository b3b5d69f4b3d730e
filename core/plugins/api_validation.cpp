#include "plugins/api_validation.hpp"

#include <cstring>

namespace bp::core {

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

std::string validate_plugin_api(const bp_plugin_api *api) {
  if (!api) return "bp_plugin_get_api returned NULL (the plugin refused host ABI " +
                    std::to_string(BP_PLUGIN_ABI_MAJOR) + "." +
                    std::to_string(BP_PLUGIN_ABI_MINOR) + ")";
  if (api->abi_major != BP_PLUGIN_ABI_MAJOR)
    return "ABI major version " + std::to_string(api->abi_major) + " found, this core needs " +
           std::to_string(BP_PLUGIN_ABI_MAJOR);
  if (api->struct_size < BP_PLUGIN_API_SIZE_1_0)
    return "struct_size " + std::to_string(api->struct_size) +
           " is smaller than a version 1.0 table (" + std::to_string(BP_PLUGIN_API_SIZE_1_0) +
           " bytes)";
  if (!valid_backend_name(api->name))
    return "backend name is missing or not made of [a-z0-9_-] (at most 63 characters)";
  if (!valid_backend_name(api->device_prefix) || std::strcmp(api->device_prefix, "gpu") == 0 ||
      std::strcmp(api->device_prefix, "auto") == 0 ||
      std::strcmp(api->device_prefix, "default") == 0)
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

}  // namespace bp::core
