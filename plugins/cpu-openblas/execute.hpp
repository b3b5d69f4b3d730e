// execute() behind the ABI boundary: checks every argument against the
// operator's contract (plugin.h), then runs the kernel. Throws Error.
#pragma once

#include "backplane/plugin.h"

namespace cpu_backend {

void execute_op(int32_t device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                int32_t n_inputs, const bp_plugin_tensor *output);

// BP_ERR_UNKNOWN_DEVICE unless device is 0 (cpu:0 is the only device).
void check_device(int32_t device);

}  // namespace cpu_backend
