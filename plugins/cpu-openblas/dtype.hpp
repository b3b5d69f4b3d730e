// Element types: C++ type <-> bp_dtype, and the switch that turns a runtime
// dtype into a template instantiation, shared by the C++ backends
// (the SDK, backplane/plugin_sdk.hpp).
#pragma once

#include "backplane_kernels/op_dispatch.hpp"
#include "errors.hpp"

namespace cpu_backend {

using bp_plugin::boolean;
using bp_plugin::dispatch;
using bp_plugin::dtype_name;
using bp_plugin::dtype_of;
using bp_plugin::dtype_size;
using bp_plugin::type_tag;

}  // namespace cpu_backend

// Every dtype of each of the vocabulary's sets (backplane_kernels/op_dispatch.hpp).
#define CPU_FLOAT_TYPES BP_KERNEL_FLOAT_TYPES
#define CPU_NUMERIC_TYPES BP_KERNEL_NUMERIC_TYPES
#define CPU_ALL_TYPES BP_KERNEL_ALL_TYPES
