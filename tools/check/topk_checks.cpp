// L2 top-k and sort (ABI 1.6): every TOPK combination the plugin declares,
// on the TOPK cases of the numerics group (both directions, ties, NaN of
// every kind, signed zeros, every layout and k), against the results the
// kit computes itself from plugin.h's order (engine/topk_oracle.cpp).
// plugin.h fixes every bit of both outputs, so the reference is held to it
// as well: L2 numerics only compares a plugin with the reference.
#include "case_builders.hpp"
#include "case_runner.hpp"
#include "groups.hpp"
#include "judge.hpp"
#include "selection.hpp"
#include "text.hpp"
#include "topk_oracle.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

const char kOrder[] = "plugin.h's order";

// "" or what is wrong with the plugin's outcome of a TOPK case.
std::string judge_topk(const Case &c, const Outcome &got) {
  if (!got.ok) return got.failure;
  for (size_t i = 0; i < output_count(c); ++i) {
    std::string s = check_sentinels(c, got.storages[size_t(output_at(c, i).storage)], i);
    if (!s.empty()) return format("output %zu: ", i) + s;
  }
  std::string s = check_inputs_untouched(c, got.storages);
  if (!s.empty()) return s;
  const std::vector<std::vector<uint8_t>> want = topk_result(c);
  for (size_t i = 0; i < output_count(c); ++i) {
    const int storage = output_at(c, i).storage;
    s = compare_outputs(c, got.storages[size_t(storage)], want[size_t(storage)], kOrder, i);
    if (s.empty()) continue;
    const int indices = c.more_outputs[0].storage;
    const std::string why = topk_diagnosis(c, got.storages[size_t(indices)], want[size_t(indices)]);
    return why.empty() ? s : s + " (" + why + ")";
  }
  return {};
}

}  // namespace

void group_topk(Context &ctx, Plugin &p) {
  Recorder &rec = ctx.rec;
  // The core never asks a plugin of an older minor about TOPK (vocabulary.h).
  if (p.api().abi_minor < bp_vocab_op_since(BP_OP_TOPK)) {
    rec.skip(format("ABI 1.%u plugin: topk came in 1.%u, and the core never asks it about topk",
                    unsigned(p.api().abi_minor), unsigned(bp_vocab_op_since(BP_OP_TOPK))));
    return;
  }
  const std::vector<int32_t> devices = ctx.devices(p, false);
  for (int32_t d : devices) {
    const std::string on = devices.size() > 1 || d != 0 ? " on " + p.device_name(d) : "";
    std::vector<Combo> combos;
    for (const Combo &c : declared_combos(p, d))
      if (op_family(c.op) == BP_OP_FAMILY_TOPK && op_selected(ctx.options.ops, c.op)) combos.push_back(c);
    if (combos.empty()) {
      rec.skip(ctx.options.ops.empty() ? "declares no topk" : "declares no topk among --ops " + op_list_text(ctx.options.ops));
      continue;
    }
    for (const Combo &combo : combos) {
      const std::string name = combo_name(combo.op, combo.dtype, combo.out_dtype);
      if (!bp_vocab_allows(combo.op, combo.dtype, combo.out_dtype)) continue;  // L2 numerics notes it
      const uint64_t seed = uint64_t(combo.op) * 1000003u + uint64_t(combo.dtype) * 101u + uint64_t(combo.out_dtype);
      const std::vector<Case> cases = make_cases(combo.op, combo.dtype, combo.out_dtype, seed);
      bool failed = false;
      for (const Case &c : cases) {
        rec.begin(name + on + ", case " + c.label);
        const std::string verdict = judge_topk(c, run_case(p, d, c));
        if (!verdict.empty()) {
          rec.fail("declares " + name + " but " + verdict + on + " (case " + c.label + ")");
          failed = true;
          break;
        }
      }
      if (!failed) rec.pass(name + on + format(": %zu cases in %s", cases.size(), kOrder));
    }
  }
}

}  // namespace bpcheck
