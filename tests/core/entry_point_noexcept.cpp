// A C++ plugin written for 1.0 that declares its own entry point, with an
// exception specification plugin.h's declaration does not have, still
// compiles against the current headers when it says so
// (BP_PLUGIN_NO_ENTRY_DECLARATION). Compiled, never run, by a test.
#define BP_PLUGIN_NO_ENTRY_DECLARATION
#include "backplane/plugin.h"

extern "C" __attribute__((visibility("default"))) const bp_plugin_api *bp_plugin_get_api(
    uint32_t host_abi_major, uint32_t host_abi_minor) noexcept {
  (void)host_abi_major;
  (void)host_abi_minor;
  return nullptr;
}
