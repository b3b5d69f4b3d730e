// Element types (host code of .cpp and .cu files): the SDK's C++ type of
// each dtype and the switch from a runtime dtype to a template instance
// over a dtype set of the vocabulary (bp_plugin::dispatch_set,
// backplane/plugin_sdk.hpp).
#pragma once

#include <cstdint>

#include "backplane/types.h"
#include "backplane/kernels/op_dispatch.hpp"
#include "errors.hpp"

namespace bp_cuda {

using namespace bp_plugin::dtypes;
inline bool is_float_dtype(int32_t dtype) { return bp_vocab_dtype_kind(dtype) == BP_DTYPE_KIND_FLOAT; }

}  // namespace bp_cuda
