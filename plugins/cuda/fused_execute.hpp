// The execute_fused entry: validation, then one generated kernel (compiled
// with NVRTC at a program's first run, cached) enqueued on the device's
// stream. Programs it cannot run are refused with BP_ERR_UNSUPPORTED before
// anything is written, so the core runs them op by op.
#pragma once

#include <cstdint>

#include "backplane/plugin.h"

namespace bp_cuda {

void execute_fused(int32_t device, const bp_fused_program *program);

}  // namespace bp_cuda
