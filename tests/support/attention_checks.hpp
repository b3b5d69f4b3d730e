// The fused ATTENTION entry of a plugin against the reference, with the
// kit's own cases and judge (tools/check/engine: the fixed cases of
// make_cases and the random problems of the `attention` group, judged on
// the scale attention_scale gives), for every float dtype the plugin
// implements on the device. Each backend's plugin tests call it (the GPU
// tests skip first when there is no device).
#pragma once

#include "attention_cases.hpp"
#include "case_builders.hpp"
#include "case_runner.hpp"
#include "family_builders.hpp"
#include "judge.hpp"
#include "plugin_harness.hpp"

namespace bp_test {

// One case on both plugins; the judge's verdict ("" when they agree).
inline std::string attention_verdict(bpcheck::Plugin &plugin, int32_t device, bpcheck::Plugin &ref,
                                     const bpcheck::Case &c) {
  const bpcheck::Outcome got = bpcheck::run_case(plugin, device, c), want = bpcheck::run_case(ref, 0, c);
  if (!want.ok) return "the reference failed: " + want.failure;
  return bpcheck::judge(c, got, want);
}

// Every dtype the plugin declares ATTENTION for: the fixed cases and
// `problems` random ones each. Returns how many dtypes it checked.
inline int check_attention(PluginHandle &plugin, int32_t device, PluginHandle &reference, int problems) {
  const auto kit = bpcheck::Plugin::borrow(plugin.api());
  const auto ref = bpcheck::Plugin::borrow(reference.api());
  int checked = 0;
  for (bp_dtype dtype : dtypes_in(BP_DTYPE_SET_FLOAT)) {
    if (!kit->declares(device, BP_OP_ATTENTION, dtype, dtype)) continue;
    ++checked;
    for (const bpcheck::Case &c : bpcheck::make_cases(BP_OP_ATTENTION, dtype, dtype, 29)) {
      INFO(dtype_name(dtype) << ", case " << c.label);
      CHECK(attention_verdict(*kit, device, *ref, c) == "");
    }
    bpcheck::Builder b(BP_OP_ATTENTION, dtype, dtype, 0x29A77u + uint64_t(dtype));
    for (int i = 0; i < problems; ++i) {
      const bpcheck::AttentionSpec spec = bpcheck::random_attention(b.rng);
      bpcheck::Case &c = b.start("random #" + std::to_string(i));
      bpcheck::add_attention(b, c, spec);
      INFO(dtype_name(dtype) << ", " << c.label << ": Lq " << spec.lq << ", Lk " << spec.lk << ", D " << spec.d
                             << ", Dv " << spec.dv << ", causal " << spec.causal << ", mask " << int(spec.mask));
      CHECK(attention_verdict(*kit, device, *ref, c) == "");
      b.cases.clear();
    }
  }
  return checked;
}

}  // namespace bp_test
