#include "two_sides.hpp"

#include "fuzz_support.hpp"

bp_device bp_fuzz::g_sides[bp_fuzz::kSides];

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  bp_fuzz::start_host_runtime();
  if (bp_device_get("cpu:0", &bp_fuzz::g_sides[0]) != BP_OK ||
      bp_device_get("reference:0", &bp_fuzz::g_sides[1]) != BP_OK)
    bp_fuzz::fail("cpu:0 and reference:0 are both needed: %s", bp_last_error());
  return 0;
}
