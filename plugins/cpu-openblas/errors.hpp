// Errors inside the plugin are C++ exceptions carrying a bp_status; the ABI
// entry points (plugin_api.cpp) catch them and keep the message for
// last_error() of the calling thread. The machinery is shared by the C++
// backends and third-party plugins alike (the SDK, backplane/plugin_sdk.hpp).
#pragma once

#include "backplane/plugin_sdk.hpp"

namespace cpu_backend {

using bp_plugin::Error;
using bp_plugin::fail;
using bp_plugin::last_error_message;
using bp_plugin::set_last_error_message;

}  // namespace cpu_backend
