// Scans, gathers, scatters and top-k against the reference for every dtype and
// layout, through the shared comparisons (tests/support/family_checks.hpp),
// on one PoCL device each.
#include "family_checks.hpp"
#include "opencl_test.hpp"

using namespace ocl_test;

TEST_CASE("scans match the reference for every dtype and layout (shared comparisons)", "[scan]") {
  std::mt19937_64 rng(81);
  check_scans(ocl(), 0, ref(), rng);
}

TEST_CASE("gathers of every index length match the reference for every dtype and layout", "[indexing]") {
  std::mt19937_64 rng(82);
  check_gathers(ocl(), 1, ref(), rng);
}

TEST_CASE("scatters of every index length into known values match the reference for every dtype and layout",
          "[indexing][sweep]") {
  std::mt19937_64 rng(83);
  check_scatters(ocl(), 0, ref(), rng);
}

TEST_CASE("topk matches the reference bit for bit for every dtype, direction, k and layout", "[topk]") {
  std::mt19937_64 rng(84);
  check_topks(ocl(), 1, ref(), rng);
}
