// Element types: C++ type <-> bp_dtype, and the switch that turns a runtime
// dtype into a template instantiation (host code of .cpp and .cu files).
#pragma once

#include <cstdint>

#include "backplane/types.h"
#include "backplane_kernels/op_dispatch.hpp"
#include "errors.hpp"

// dispatch<...> lists of every dtype of a vocabulary set
// (backplane_kernels/op_dispatch.hpp).
#define BP_CUDA_FLOAT_TYPES BP_KERNEL_FLOAT_TYPES
#define BP_CUDA_NUMERIC_TYPES BP_KERNEL_NUMERIC_TYPES
#define BP_CUDA_ALL_TYPES BP_KERNEL_ALL_TYPES

namespace bp_cuda {

using bp_plugin::boolean;
using bp_plugin::dispatch;
using bp_plugin::dtype_name;
using bp_plugin::dtype_of;
using bp_plugin::dtype_size;
using bp_plugin::type_tag;
inline bool is_float_dtype(int32_t dtype) { return bp_vocab_dtype_kind(dtype) == BP_DTYPE_KIND_FLOAT; }

}  // namespace bp_cuda
