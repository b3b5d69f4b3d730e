// Differential testing of the cpu-openblas plugin against the reference
// plugin, through the shared harness (tests/support/plugin_harness.hpp).
#pragma once

#include "comparison_tests.hpp"
#include "plugin_harness.hpp"

namespace cpu_test {

using namespace bp_test;

// cpu-openblas (as `cpu`, with `cpu_options`) and the reference (`ref`).
class Pair : public Comparison {
 public:
  explicit Pair(const Options &cpu_options = {}) : Comparison("cpu-openblas", cpu_options) {}
  PluginHandle &cpu = plugin;
};

// A row of a table of shared comparisons, on device 0.
inline void run_on_cpu(const ComparisonTest &t) {
  Pair pair;
  std::mt19937_64 rng(t.seed);
  t.check(pair.cpu, 0, pair.ref, rng);
}

}  // namespace cpu_test
