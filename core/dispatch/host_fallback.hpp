// The opt-in host fallback ([dispatch] host_fallback = true): an operator the
// owning backend does not implement runs on cpu:0 instead, its inputs copied
// there and its output copied back, every copy recorded in the trace.
#pragma once

#include <atomic>

#include "backplane/plugin.h"

namespace bp::core {

struct Device;

extern std::atomic<bool> host_fallback_enabled;

// Runs op on cpu:0 for operands that live on `device` (absent views, of
// dtype BP_DTYPE_INVALID, stay absent); false when cpu:0 cannot run it either
// (the caller then reports the original refusal).
bool run_on_host(Device &device, int32_t op, int32_t dtype, int32_t out_dtype,
                 const bp_op_attrs &attrs, const bp_plugin_tensor *inputs, int32_t n_inputs,
                 const bp_plugin_tensor *outputs, int32_t n_outputs);

}  // namespace bp::core
