// VAR and the NORMALIZE family (LAYER_NORM, RMS_NORM) against the reference
// on every case the kit builds for them (tests/support/kit_cases.hpp):
// every float dtype, weight, bias and statistics absent or present, strided
// and in place, empty and constant rows, rows far from 0, long rows,
// special values. Skipped without a CUDA device.
#include "cuda_test.hpp"
#include "kit_cases.hpp"

using namespace cuda_test;

TEST_CASE("var, layer_norm and rms_norm match the reference on the kit's cases", "[normalize]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  for (bp_op op : {BP_OP_VAR, BP_OP_LAYER_NORM, BP_OP_RMS_NORM})
    for (bp_dtype dtype : kFloatTypes) check_kit_cases(pair.plugin, 0, pair.ref, op, dtype, dtype);
}
