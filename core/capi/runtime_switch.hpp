// The runtime's on/off switches that C functions also set (bp_trace_enable,
// bp_fusion_enable).
#pragma once

#include <atomic>
#include <cstdint>

#include "capi/guard.hpp"
#include "runtime/runtime.hpp"

namespace bp::core {

// Sets the switch after starting the runtime: a runtime started later would
// overwrite the caller's choice with its configuration's key.
inline bp_status set_switch(std::atomic<bool> &flag, int32_t on) {
  return guarded([&] {
    Runtime::get();
    flag.store(on != 0, std::memory_order_relaxed);
  });
}

}  // namespace bp::core
