// fused.hpp — the ABI's execute_fused: a fused elementwise program run as
// one generated kernel (fused_source.hpp), cached per device (fused_cache.hpp).
#pragma once

#include <cstdint>

#include "backplane/plugin.h"

namespace bp_ocl {

// Checks the program completely (the SDK's check_fused, then what this
// device implements) and enqueues it. A program this device or the
// generator cannot run is BP_ERR_UNSUPPORTED before anything is written.
void execute_fused(int32_t device, const bp_fused_program *program);

}  // namespace bp_ocl
