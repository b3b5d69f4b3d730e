// Element types: C++ type <-> bp_dtype, and the switch that turns a runtime
// dtype into a template instantiation, shared by the C++ backends
// (the SDK, backplane/plugin_sdk.hpp).
#pragma once

#include "errors.hpp"

namespace cpu_backend {

using bp_plugin::boolean;
using bp_plugin::dispatch;
using bp_plugin::dtype_name;
using bp_plugin::dtype_of;
using bp_plugin::dtype_size;
using bp_plugin::type_tag;

}  // namespace cpu_backend
