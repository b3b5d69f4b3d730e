// The execute entry: validation, then the kernels of one operator enqueued
// on the device's stream.
#pragma once

#include <cstdint>

#include "backplane/plugin.h"

namespace bp_cuda {

void execute_op(int32_t device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs, int32_t n_inputs,
                const bp_plugin_tensor *output);

}  // namespace bp_cuda
