// Element types: the SDK's C++ type of each dtype and the switch from a
// runtime dtype to a template instance over a dtype set of the vocabulary
// (bp_plugin::dispatch_set, backplane/plugin_sdk.hpp).
#pragma once

#include "backplane/kernels/op_dispatch.hpp"
#include "errors.hpp"

namespace cpu_backend {

using namespace bp_plugin::dtypes;

}  // namespace cpu_backend
