// Pooling and its gradients against the reference, on one thread and on
// several (the forward splits rows of outputs, the gradients planes).
#include "cpu_vs_reference.hpp"
#include "pool_checks.hpp"

using namespace cpu_test;

TEST_CASE("pooling and its gradients match the reference for every dtype, window and layout", "[pool]") {
  for (const char *threads : {"1", "3"}) {
    INFO("threads = " << threads);
    Pair pair(Options{{"threads", threads}});
    // MAX_POOL on the 9 numeric dtypes, the other three on the 4 float ones.
    CHECK(check_pooling(pair.cpu, 0, pair.ref) == 9 + 3 * 4);
  }
}
