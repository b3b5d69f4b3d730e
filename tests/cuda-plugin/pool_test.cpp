// Pooling and its gradients of the CUDA plugin (pool.cu) against the
// reference for every dtype, window and layout.
#include "cuda_test.hpp"
#include "pool_checks.hpp"

using namespace cuda_test;

TEST_CASE("cuda: pooling and its gradients match the reference for every dtype, window and layout", "[cuda][pool]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  CHECK(check_pooling(pair.plugin, 0, pair.ref) == 9 + 3 * 4);
}
