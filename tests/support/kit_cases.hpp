// Running the conformance kit's cases of one operator and dtype on a plugin
// and on the reference, judged by the kit (its cases, views with sentinel
// bytes and its one tolerance table): what the plugin tests of a family
// that the kit covers case by case (VAR, the NORMALIZE family) share, so
// they hold every backend to exactly what `bp check` holds it to.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "case_builders.hpp"
#include "case_runner.hpp"
#include "judge.hpp"
#include "plugin.hpp"
#include "plugin_handle.hpp"
#include "vocab.hpp"

namespace bp_test {

// Every kit case of (op, dtype -> out_dtype) on device `device` of
// `plugin`, against the reference's device 0; one CHECK per case.
inline void check_kit_cases(const PluginHandle &plugin, int32_t device, const PluginHandle &reference, int32_t op,
                            int32_t dtype, int32_t out_dtype, uint64_t seed = 97) {
  const auto p = bpcheck::Plugin::borrow(plugin.api());
  const auto ref = bpcheck::Plugin::borrow(reference.api());
  const std::vector<bpcheck::Case> cases = bpcheck::make_cases(op, dtype, out_dtype, seed);
  REQUIRE(!cases.empty());
  for (const bpcheck::Case &c : cases) {
    INFO(bpcheck::combo_name(op, dtype, out_dtype) << ", case " << c.label);
    const bpcheck::Outcome expected = bpcheck::run_case(*ref, 0, c);
    REQUIRE(expected.ok);
    const bpcheck::Outcome got = bpcheck::run_case(*p, device, c);
    const std::string verdict = bpcheck::judge(c, got, expected);
    INFO(verdict);
    CHECK(verdict.empty());
  }
}

}  // namespace bp_test
