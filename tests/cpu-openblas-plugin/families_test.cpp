// Scans, gathers, scatters and top-k against the reference for every dtype and
// layout, through the shared comparisons (tests/support/family_checks.hpp).
#include "cpu_vs_reference.hpp"
#include "family_checks.hpp"

using namespace cpu_test;

TEST_CASE("scans match the reference for every dtype and layout", "[scan]") {
  Pair pair;
  std::mt19937_64 rng(61);
  check_scans(pair.cpu, 0, pair.ref, rng);
}

TEST_CASE("gathers of every index length match the reference for every dtype and layout", "[gather]") {
  Pair pair;
  std::mt19937_64 rng(62);
  check_gathers(pair.cpu, 0, pair.ref, rng);
}

TEST_CASE("scatters of every index length into known values match the reference for every dtype and layout",
          "[scatter][sweep]") {
  Pair pair;
  std::mt19937_64 rng(63);
  check_scatters(pair.cpu, 0, pair.ref, rng);
}

TEST_CASE("topk matches the reference bit for bit for every dtype, direction, k and layout", "[topk]") {
  Pair pair;
  std::mt19937_64 rng(64);
  check_topks(pair.cpu, 0, pair.ref, rng);
}
