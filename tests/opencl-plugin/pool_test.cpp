// Pooling and its gradients against the reference on one PoCL device each
// (the kernels of backplane/kernels/pool.cl).
#include "opencl_test.hpp"
#include "pool_checks.hpp"

using namespace ocl_test;

TEST_CASE("pooling and its gradients match the reference for every dtype, window and layout", "[pool]") {
  // MAX_POOL on the 9 numeric dtypes, the other three on the 4 float ones
  // (PoCL has float64).
  CHECK(check_pooling(ocl(), 0, ref()) == 9 + 3 * 4);
}

TEST_CASE("pooling runs on the second device too", "[pool]") { CHECK(check_pooling(ocl(), 1, ref()) > 0); }
