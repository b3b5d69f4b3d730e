// ATTENTION of the CUDA plugin (its flash-style kernel, attention.cu)
// against the reference in every float dtype, through the kit's cases and
// judge (tests/support/attention_checks.hpp); skipped without a device.
#include "attention_checks.hpp"
#include "cuda_test.hpp"

using namespace cuda_test;

TEST_CASE("cuda: attention matches the reference in every float dtype, masks, causal, scales and layouts",
          "[cuda][attention]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  CHECK(check_attention(pair.plugin, 0, pair.ref, 60) == 4);
}
