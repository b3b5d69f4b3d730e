// What a plugin's table says of itself, checked the same way for every
// built-in plugin.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "backplane/plugin.h"

namespace bp_test {

// The table is of this build's ABI (size and version) and names the
// backend and its devices' prefix.
inline void check_table_identity(const bp_plugin_api &api, const std::string &name, const std::string &device_prefix) {
  CHECK(api.struct_size == sizeof(bp_plugin_api));
  CHECK(api.abi_major == BP_PLUGIN_ABI_MAJOR);
  CHECK(api.abi_minor == BP_PLUGIN_ABI_MINOR);
  CHECK(std::string(api.name) == name);
  CHECK(std::string(api.device_prefix) == device_prefix);
}

}  // namespace bp_test
