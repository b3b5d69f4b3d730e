// Lazy fusion on or off (fusion/fusion.hpp).
#include "backplane/backplane.h"
#include "capi/guard.hpp"
#include "capi/runtime_switch.hpp"
#include "fusion/fusion.hpp"
#include "runtime/runtime.hpp"

using namespace bp::core;

extern "C" {

bp_status bp_fusion_enable(int32_t on) { return set_switch(fusion::enabled, on); }

int32_t bp_fusion_enabled(void) {
  int32_t on = 0;
  // The configuration decides until the runtime has started: start it. A
  // runtime that cannot start fuses nothing.
  guarded([&] {
    Runtime::get();
    on = fusion::enabled.load(std::memory_order_relaxed) ? 1 : 0;
  });
  return on;
}

}  // extern "C"
