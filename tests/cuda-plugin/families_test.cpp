// Scans, gathers, scatters and top-k of the CUDA plugin against the reference for
// every dtype and layout, through the shared comparisons
// (tests/support/family_checks.hpp).
#include "cuda_test.hpp"
#include "family_checks.hpp"

using namespace cuda_test;

TEST_CASE("cuda: scans match the reference for every dtype and layout", "[cuda][scan]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(71);
  check_scans(pair.plugin, 0, pair.ref, rng);
}

TEST_CASE("cuda: gathers of every index length match the reference for every dtype and layout", "[cuda][gather]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(72);
  check_gathers(pair.plugin, 0, pair.ref, rng);
}

TEST_CASE("cuda: scatters of every index length into known values match the reference for every dtype and layout",
          "[cuda][scatter]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(73);
  check_scatters(pair.plugin, 0, pair.ref, rng);
}

TEST_CASE("cuda: topk matches the reference bit for bit for every dtype, direction, k and layout", "[cuda][topk]") {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(74);
  check_topks(pair.plugin, 0, pair.ref, rng);
}
