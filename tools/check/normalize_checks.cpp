// L2 normalisation: every LAYER_NORM and RMS_NORM combination the plugin
// declares, against the reference on the NORMALIZE family's cases
// (engine/normalize_cases.cpp: absent weight, bias and statistics, layouts,
// in place, empty rows, constant rows, rows far from 0, special values),
// each of its three outputs judged on its own scale; then the calls plugin.h
// says a plugin refuses, which must fail with their status and write
// nothing: an eps that is negative or NaN, a mean given to RMS_NORM, weight,
// mean or rstd of the wrong shape, statistics of the wrong dtype and an x of
// rank 0. L2 numerics leaves the family to this group.
#include <algorithm>
#include <cmath>
#include <vector>

#include "against_reference.hpp"
#include "case_builders.hpp"
#include "case_runner.hpp"
#include "groups.hpp"
#include "paths.hpp"
#include "refusals.hpp"
#include "rules.hpp"
#include "selection.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

uint64_t seed_of(const Combo &c) { return uint64_t(c.op) * 7919u + uint64_t(c.dtype) * 31u + 11u; }

// The refusals of one combination, on its [4, 3] case with every part present.
void check_refusals(Recorder &rec, Plugin &p, int32_t device, const std::string &on, const Combo &combo) {
  const std::string call = "execute(" + combo_name(combo.op, combo.dtype, combo.out_dtype) + ")";
  const Case c = make_small_cases(combo.op, combo.dtype, combo.out_dtype, 43, {{4, 3}}).front();
  rec.begin(call + on + ": setting up the refusals");
  BoundCase bound(p, device, c);
  if (!bound.ok()) {
    rec.fail("cannot set up the refusals of " + call + on + ": " + bound.failure());
    return;
  }
  std::vector<bp_plugin_tensor> in, out;
  for (const ViewDesc &v : c.inputs) in.push_back(bound.tensor(v));
  for (size_t i = 0; i < output_count(c); ++i) out.push_back(bound.tensor(output_at(c, i)));
  // The well-formed call changed by mutate(attrs, inputs, outputs) must fail
  // with `expected`, a message, and no element of any output written.
  auto refused = [&](const std::string &what, bp_status expected, auto &&mutate) {
    bp_op_attrs attrs = c.attrs;
    std::vector<bp_plugin_tensor> i = in, o = out;
    mutate(attrs, i, o);
    const std::string name = call + " with " + what + on;
    rec.begin(name);
    const bp_status s = p.execute(device, combo.op, &attrs, i.data(), int32_t(i.size()), o.data());
    const char *message = p.api().last_error();
    std::vector<std::vector<uint8_t>> after;
    const std::string problem = bound.read_all(&after);
    bool untouched = problem.empty();
    for (size_t k = 0; untouched && k < output_count(c); ++k) {
      const ViewDesc &v = output_at(c, k);
      if (!is_absent(v)) untouched = after[size_t(v.storage)] == c.storages[size_t(v.storage)];
    }
    const std::string failure = refusal_failure(p, s, expected, message);
    if (!failure.empty())
      rec.fail(name + failure);
    else if (!problem.empty())
      rec.fail(name + ": " + problem);
    else if (!untouched)
      rec.fail(name + " failed with " + status_name(s) + " but wrote into an output first");
    else
      rec.pass(name + ": " + status_name(s));
  };
  using T = std::vector<bp_plugin_tensor>;
  refused("eps -1", BP_ERR_INVALID_ARGUMENT, [](bp_op_attrs &a, T &, T &) { a.scalar = -1; });
  refused("eps NaN", BP_ERR_INVALID_ARGUMENT, [](bp_op_attrs &a, T &, T &) { a.scalar = std::nan(""); });
  refused("a weight of 2 elements for rows of 3", BP_ERR_SHAPE, [](bp_op_attrs &, T &i, T &) { i[1].shape[0] = 2; });
  refused("a bias of rank 2", BP_ERR_SHAPE, [](bp_op_attrs &, T &i, T &) {
    i[2].rank = 2;
    i[2].shape[1] = 1;
  });
  refused("x of rank 0", BP_ERR_SHAPE, [](bp_op_attrs &, T &i, T &o) {
    i[0].rank = o[0].rank = 0;
    for (int d = 0; d < BP_MAX_RANK; ++d) i[0].shape[d] = o[0].shape[d] = i[0].strides[d] = o[0].strides[d] = 0;
  });
  refused("rstd [4] instead of [4, 1]", BP_ERR_SHAPE, [](bp_op_attrs &, T &, T &o) {
    o[2].rank = 1;
    o[2].shape[1] = o[2].strides[1] = 0;
  });
  // A narrower dtype than the statistics' own, so the view stays inside its buffer.
  const int32_t wrong = combo.dtype == BP_FLOAT64 ? BP_FLOAT32 : BP_FLOAT16;
  refused(std::string("rstd of ") + dtype_name(wrong), BP_ERR_DTYPE, [&](bp_op_attrs &, T &, T &o) { o[2].dtype = wrong; });
  if (combo.op == BP_OP_RMS_NORM)
    refused("a mean output (rms_norm writes none)", BP_ERR_INVALID_ARGUMENT, [](bp_op_attrs &, T &, T &o) { o[1] = o[2]; });
}

}  // namespace

void group_normalize(Context &ctx, Plugin &p, Plugin &ref) {
  Recorder &rec = ctx.rec;
  rec.info("reference", ref.path());
  for (const std::string &note : rules_not_applied()) rec.note(note);
  const std::vector<int32_t> devices = ctx.devices(p, false);
  for (int32_t d : devices) {
    const std::string dn = p.device_name(d);
    const std::string on = devices.size() > 1 || d != 0 ? " on " + dn : "";
    std::vector<Combo> combos = declared_combos(p, d);
    combos.erase(std::remove_if(combos.begin(), combos.end(),
                                [&](const Combo &c) {
                                  return op_family(c.op) != BP_OP_FAMILY_NORMALIZE ||
                                         (!ctx.options.ops.empty() && !op_selected(ctx.options.ops, c.op));
                                }),
                 combos.end());
    if (combos.empty()) {
      rec.skip(ctx.options.ops.empty() ? "declares no normalisation operator"
                                       : "declares none of the operators of --ops " + op_list_text(ctx.options.ops));
      continue;
    }
    const bool self = real_path(p.path()) == real_path(ref.path());
    for (const Combo &combo : combos) {
      const std::string name = combo_name(combo.op, combo.dtype, combo.out_dtype);
      if (!reference_declares(rec, ref, combo, name)) continue;
      compare_cases(rec, {p, d, ref, name, on, self, false},
                    make_cases(combo.op, combo.dtype, combo.out_dtype, seed_of(combo)), "cases");
      check_refusals(rec, p, d, on, combo);
    }
  }
}

}  // namespace bpcheck
