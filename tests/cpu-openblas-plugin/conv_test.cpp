// The convolutions (oneDNN where it is built in and takes the problem,
// im2col + OpenBLAS otherwise) against the reference on the kit's cases,
// on one thread and on several.
#include "conv_check.hpp"

using namespace bp_test;

TEST_CASE("cpu: convolutions agree with the reference on the kit's cases") {
  Comparison pair("cpu-openblas", Options{{"threads", "1"}});
  check_conv_cases(pair.plugin, pair.ref, 12);
}

TEST_CASE("cpu: threaded convolutions agree with the reference (batch slices, summed weight gradients)") {
  Comparison pair("cpu-openblas", Options{{"threads", "3"}});
  check_conv_cases(pair.plugin, pair.ref, 12);
}
