// The convolutions (im2col + CLBlast) against the reference on the kit's
// cases; with no OpenCL device, skipped with the reason.
#include "conv_check.hpp"
#include "opencl_test.hpp"

using namespace ocl_test;

TEST_CASE("opencl: convolutions agree with the reference on the kit's cases") {
  if (!has_device(ocl(), "OpenCL")) return;
  check_conv_cases(ocl(), ref(), 8);
}
