// Element types: C++ type <-> bp_dtype, and the switch that turns a runtime
// dtype into a template instantiation (host code of .cpp and .cu files).
#pragma once

#include <cstdint>

#include "backplane/types.h"
#include "errors.hpp"

// dispatch<...> lists of every dtype of a vocabulary set, the 1.4 ones
// (plugin_sdk.hpp's BP_SMALL_INT_TYPES, BP_HALF_TYPES) included.
#define BP_CUDA_FLOAT_TYPES BP_FLOAT_TYPES, BP_HALF_TYPES
#define BP_CUDA_NUMERIC_TYPES BP_NUMERIC_TYPES, BP_SMALL_INT_TYPES, BP_HALF_TYPES
#define BP_CUDA_ALL_TYPES BP_ALL_TYPES, BP_SMALL_INT_TYPES, BP_HALF_TYPES
#define BP_CUDA_INTEGRAL_TYPES int32_t, int64_t, ::bp_plugin::boolean, BP_SMALL_INT_TYPES

namespace bp_cuda {

using bp_plugin::boolean;
using bp_plugin::dispatch;
using bp_plugin::dtype_name;
using bp_plugin::dtype_of;
using bp_plugin::dtype_size;
using bp_plugin::type_tag;
inline bool is_float_dtype(int32_t dtype) { return bp_vocab_dtype_kind(dtype) == BP_DTYPE_KIND_FLOAT; }

}  // namespace bp_cuda
