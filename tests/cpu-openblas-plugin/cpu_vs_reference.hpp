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

// Device 0's property `key` ("" when it has none).
inline std::string device_property(const PluginHandle &plugin, const std::string &key) {
  bp_property props[64];
  int32_t count = 0;
  plugin.check(plugin.api().device_properties(0, props, 64, &count), "device_properties");
  for (int32_t i = 0; i < count; ++i)
    if (key == props[i].key) return props[i].value;
  return "";
}

// A row of a table of shared comparisons, on device 0.
inline void run_on_cpu(const ComparisonTest &t) {
  Pair pair;
  std::mt19937_64 rng(t.seed);
  t.check(pair.cpu, 0, pair.ref, rng);
}

}  // namespace cpu_test
