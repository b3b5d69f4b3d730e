// L2 attention: the optional fused ATTENTION entry (plugin.h) against the
// reference's over seeded random problems (shapes, batch broadcasting,
// masks with -inf and fully hidden rows, causal, scales, strided views),
// for every float dtype the plugin declares it for. A plugin that does not
// declare it is skipped: the core runs bp_attention's composite on its
// devices, which the numerics group has checked operator by operator.
#include "against_reference.hpp"
#include "attention_cases.hpp"
#include "family_builders.hpp"
#include "groups.hpp"
#include "text.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

constexpr int kProblems = 60;  // per dtype and device: a few seconds on the reference

std::string spec_text(const AttentionSpec &s) {
  static const char *const masks[] = {"no mask", "mask", "key mask", "shared mask"};
  std::string t = "batch " + shape_text(int32_t(s.batch.size()), s.batch.data()) + format(
      ", Lq %lld, Lk %lld, D %lld, Dv %lld, ", (long long)s.lq, (long long)s.lk, (long long)s.d, (long long)s.dv);
  t += masks[int(s.mask)];
  if (s.mask != AttentionMask::none) t += format(" (%.0f%% hidden%s)", s.hidden * 100, s.hidden_row ? ", row 0 all" : "");
  t += s.causal ? ", causal" : "";
  t += format(", scale %g", s.scale);
  t += s.shared_kv ? ", k and v broadcast" : "";
  t += s.transposed_k ? ", k transposed" : "";
  t += s.strided_out ? ", strided output" : "";
  return t;
}

}  // namespace

void group_attention(Context &ctx, Plugin &p, Plugin &ref) {
  Recorder &rec = ctx.rec;
  // The reference checked against itself: each problem runs once, judged
  // for sentinels and untouched inputs only (as in the numerics group).
  const bool self = is_reference_itself(rec, p, ref, "outputs are checked for out-of-bounds writes, not compared");
  bool any = false;
  for (int32_t d : ctx.devices(p, false)) {
    const std::string on = d != 0 ? " on " + p.device_name(d) : "";
    for (int32_t dtype : vocab_dtypes()) {
      if (!is_float(dtype) || !p.declares(d, BP_OP_ATTENTION, dtype, dtype)) continue;
      any = true;
      const std::string name = combo_name(BP_OP_ATTENTION, dtype, dtype);
      Builder b(BP_OP_ATTENTION, dtype, dtype, 0xA77E0000u + uint64_t(dtype));
      const Comparison cmp{p, d, ref, name, on, self, false};
      bool failed = false;
      for (int i = 0; i < kProblems && !failed; ++i) {
        const AttentionSpec spec = random_attention(b.rng);
        Case &c = b.start(format("random #%d: ", i) + spec_text(spec));
        add_attention(b, c, spec);
        failed = compare_case(rec, cmp, c, c.label) == CaseVerdict::failed;
        b.cases.clear();  // each problem's storages are done with
      }
      if (!failed) rec.pass(name + on + format(": %d random problems agree with the reference", kProblems));
    }
  }
  if (!any)
    rec.skip("does not offer the fused attention entry (optional): the core runs bp_attention as its composite "
             "of matmul, softmax and where on these devices");
}

}  // namespace bpcheck
