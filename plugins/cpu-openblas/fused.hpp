// execute_fused behind the ABI boundary: validates the program (the SDK's
// check_fused, then this plugin's capability table for every instruction),
// then runs it as a tiled interpreter on the thread pool. Throws Error,
// always before writing anything.
#pragma once

#include "backplane/plugin.h"

namespace cpu_backend {

void execute_fused_program(int32_t device, const bp_fused_program *program);

}  // namespace cpu_backend
