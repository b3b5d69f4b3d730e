// The conformance kit's convolution cases (tools/check/engine/conv_cases:
// L2 numerics' fixed problems and the conv group's random ones) run on a
// plugin's device and on the reference plugin, each judged as bp check
// judges it: the plugin tests of every backend call this once per
// declared convolution and dtype.
#pragma once

#include <catch2/catch.hpp>

#include "case_builders.hpp"
#include "case_runner.hpp"
#include "conv_cases.hpp"
#include "judge.hpp"
#include "plugin.hpp"
#include "plugin_harness.hpp"

namespace bp_test {

inline void check_conv_cases(PluginHandle &plugin, PluginHandle &reference, int random_problems, int32_t device = 0) {
  const auto p = bpcheck::Plugin::borrow(plugin.api()), r = bpcheck::Plugin::borrow(reference.api());
  int checked = 0;
  for (bp_op op : ops_in(BP_OP_FAMILY_CONV))
    for (bp_dtype dtype : kFloatTypes) {
      if (!supported(plugin, op, dtype, dtype, device)) continue;
      ++checked;
      const uint64_t seed = uint64_t(op) * 131u + uint64_t(dtype);
      std::vector<bpcheck::Case> cases = bpcheck::make_cases(op, dtype, dtype, seed);
      for (bpcheck::Case &c : bpcheck::random_conv_cases(op, dtype, seed, random_problems)) cases.push_back(std::move(c));
      for (const bpcheck::Case &c : cases) {
        INFO(op_name(op) << " " << dtype_name(dtype) << ", case " << c.label);
        const bpcheck::Outcome got = bpcheck::run_case(*p, device, c), want = bpcheck::run_case(*r, 0, c);
        REQUIRE(want.ok);
        CHECK(bpcheck::judge(c, got, want) == "");
      }
    }
  CHECK(checked > 0);
}

}  // namespace bp_test
