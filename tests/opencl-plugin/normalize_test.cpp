// VAR and the NORMALIZE family (LAYER_NORM, RMS_NORM) against the reference
// on every case the kit builds for them (tests/support/kit_cases.hpp), on
// both PoCL devices: every float dtype, weight, bias and statistics absent
// or present, strided and in place, empty and constant rows, rows far from
// 0, long rows, special values. One program per dtype (a few kernel
// compiles, cached by PoCL).
#include "kit_cases.hpp"
#include "opencl_test.hpp"

using namespace ocl_test;

TEST_CASE("var, layer_norm and rms_norm match the reference on the kit's cases", "[normalize][sweep]") {
  if (!has_device(ocl(), "OpenCL")) return;
  const int32_t devices = ocl().device_count();
  for (int32_t d = 0; d < devices; ++d)
    for (bp_op op : {BP_OP_VAR, BP_OP_LAYER_NORM, BP_OP_RMS_NORM})
      for (bp_dtype dtype : kFloatTypes) check_kit_cases(ocl(), d, ref(), op, dtype, dtype);
}
