// The POOL and POOL_GRAD families (plugin.h, since 1.6) against the
// reference plugin: every operator and dtype the plugin implements, on the
// conformance kit's own cases (tools/check/engine/pool_cases.cpp: random
// windows, ceil mode, both count modes, ties, NaN, strided views, a large
// case), judged by the kit's judge and its one table of tolerances. Each
// backend's plugin tests call it with the plugin under test and one of its
// devices (the GPU tests skip first when there is none).
#pragma once

#include "case_runner.hpp"
#include "judge.hpp"
#include "plugin.hpp"
#include "plugin_harness.hpp"
#include "pool_cases.hpp"

namespace bp_test {

// Returns how many (op, dtype) combinations were compared.
inline int check_pooling(const PluginHandle &plugin, int32_t device, const PluginHandle &ref) {
  const std::unique_ptr<bpcheck::Plugin> p = bpcheck::Plugin::borrow(plugin.api());
  const std::unique_ptr<bpcheck::Plugin> r = bpcheck::Plugin::borrow(ref.api());
  int combos = 0;
  for (int32_t family : {BP_OP_FAMILY_POOL, BP_OP_FAMILY_POOL_GRAD})
    for (bp_op op : ops_in(family))
      for (bp_dtype d : dtypes_in(bp_vocab_op_dtypes(op))) {
        if (!supported(plugin, op, d, d, device)) continue;
        ++combos;
        for (const bpcheck::Case &c : bpcheck::pool_cases(op, d, d, 0x9001u + uint64_t(op) * 13u + uint64_t(d))) {
          const bpcheck::Outcome got = bpcheck::run_case(*p, device, c);
          const bpcheck::Outcome want = bpcheck::run_case(*r, 0, c);
          INFO(op_name(op) << " " << dtype_name(d) << ", case " << c.label);
          REQUIRE(want.ok);
          const std::string verdict = bpcheck::judge(c, got, want);
          INFO(verdict);
          CHECK(verdict.empty());
        }
      }
  return combos;
}

}  // namespace bp_test
