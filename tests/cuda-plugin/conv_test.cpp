// The convolutions (cuDNN) against the reference on the kit's cases; with no
// CUDA device, skipped with the reason.
#include "conv_check.hpp"
#include "cuda_test.hpp"

using namespace cuda_test;

TEST_CASE("cuda: convolutions agree with the reference on the kit's cases", "[cuda][conv]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  check_conv_cases(pair.plugin, pair.ref, 12);
}

TEST_CASE("cuda: convolutions with allow_tf32 = false keep float32 precision", "[cuda][conv]") {
  Pair pair(Options{{"allow_tf32", "false"}});
  if (!has_device(pair.plugin)) return;
  check_conv_cases(pair.plugin, pair.ref, 4);
}
