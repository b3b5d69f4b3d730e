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

// The SDK's dtype groups with the 1.4 dtypes added: every group of the
// vocabulary's sets, as this backend implements them.
#define CPU_FLOAT_TYPES BP_FLOAT_TYPES, BP_HALF_TYPES
#define CPU_NUMERIC_TYPES BP_NUMERIC_TYPES, BP_HALF_TYPES, BP_SMALL_INT_TYPES
#define CPU_ALL_TYPES BP_ALL_TYPES, BP_HALF_TYPES, BP_SMALL_INT_TYPES
#define CPU_INTEGRAL_TYPES BP_INTEGRAL_TYPES, BP_SMALL_INT_TYPES
