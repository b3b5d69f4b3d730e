// SOFTMAX and LOG_SOFTMAX of the OpenCL plugin (softmax.cl) against the
// reference for every float dtype, layout and special row, through the shared
// comparisons (tests/support/softmax_checks.hpp), on one PoCL device.
#include "opencl_test.hpp"
#include "softmax_checks.hpp"

using namespace ocl_test;

TEST_CASE("softmax and log_softmax match the reference for every dtype, layout and special row", "[softmax]") {
  std::mt19937_64 rng(87);
  check_softmax(ocl(), 0, ref(), rng);
}
