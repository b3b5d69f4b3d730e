// Differential testing of the cpu-openblas plugin against the reference
// plugin, through the shared harness (tests/support/plugin_harness.hpp).
#pragma once

#include "plugin_harness.hpp"

namespace cpu_test {

using namespace bp_test;

// cpu-openblas (as `cpu`, with `cpu_options`) and the reference (`ref`).
class Pair : public Comparison {
 public:
  explicit Pair(const Options &cpu_options = {}) : Comparison("cpu-openblas", cpu_options) {}
  PluginHandle &cpu = plugin;
};

}  // namespace cpu_test
