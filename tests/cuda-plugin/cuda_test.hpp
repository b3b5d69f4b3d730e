// Shared by the CUDA plugin's tests: the skip rule for machines without a
// CUDA device, and differential testing against the reference plugin
// through the shared harness (tests/support/plugin_harness.hpp).
#pragma once

#include "comparison_tests.hpp"
#include "plugin_harness.hpp"

namespace cuda_test {

using namespace bp_test;

// The plugin under test (its file is libbackplane-<name>.so).
constexpr const char *kPlugin = "cuda";

// The CUDA plugin (`plugin`) and the reference (`ref`).
class Pair : public Comparison {
 public:
  explicit Pair(const Options &options = {}) : Comparison(kPlugin, options) {}
};

// True when the plugin has a device; otherwise the test says
// "skipped: no CUDA device (<reason>)" (see bp_test::has_device).
inline bool has_device(const PluginHandle &plugin) { return bp_test::has_device(plugin, "CUDA"); }

// A row of a table of shared comparisons, on device 0 where there is one.
inline void run_on_cuda(const ComparisonTest &t) {
  Pair pair;
  if (!has_device(pair.plugin)) return;
  std::mt19937_64 rng(t.seed);
  t.check(pair.plugin, 0, pair.ref, rng);
}

}  // namespace cuda_test
