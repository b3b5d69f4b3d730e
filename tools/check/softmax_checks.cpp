// L2 softmax: the SOFTMAX family (softmax and log_softmax, ABI 1.6). Every
// declared combination against the reference over the family's cases
// (engine/softmax_cases.cpp: random shapes and strides, rows near the
// largest value, -inf, +inf and NaN rows, wide rows), with sentinels
// around the outputs; what holds with no reference at all (a softmax row
// sums to 1, and so does exp of a log_softmax row); and the calls plugin.h
// does not define refused with the status it names.
#include <cmath>
#include <string>
#include <vector>

#include "against_reference.hpp"
#include "case_builders.hpp"
#include "case_runner.hpp"
#include "groups.hpp"
#include "refusals.hpp"
#include "rules.hpp"
#include "selection.hpp"
#include "text.hpp"
#include "values.hpp"
#include "views.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

bool in_family(const Combo &c) { return op_family(c.op) == BP_OP_FAMILY_SOFTMAX; }

uint64_t seed_of(const Combo &c) { return uint64_t(c.op) * 7919u + uint64_t(c.dtype) * 31u; }

// The row sums of a [rows, n] dense float output: of the values themselves,
// or of their exponentials (log_softmax).
std::vector<double> row_sums(const Case &c, const std::vector<uint8_t> &out, bool exponentials) {
  const ViewDesc &v = c.output;
  std::vector<double> sums(size_t(v.shape[0]), 0.0);
  for_each_index(v, [&](const int64_t *idx, int64_t) {
    const double y = load_double(v.dtype, out.data() + byte_at(v, idx));
    sums[size_t(idx[0])] += exponentials ? std::exp(y) : y;
  });
  return sums;
}

// Each declared combination against the reference, case by case.
void compare_with_reference(Recorder &rec, Plugin &p, Plugin &ref, int32_t device, const std::string &on,
                            const Combo &combo, bool self) {
  const std::string name = combo_name(combo.op, combo.dtype, combo.out_dtype);
  if (!reference_declares(rec, ref, combo, name)) return;
  compare_cases(rec, {p, device, ref, name, on, self, false},
                make_cases(combo.op, combo.dtype, combo.out_dtype, seed_of(combo)), "cases");
}

// A row of softmax sums to 1, and so do the exponentials of a log_softmax
// row, within the rounding of n terms in the dtype.
void check_row_sums(Recorder &rec, Plugin &p, int32_t device, const std::string &on, const Combo &combo) {
  const std::string name = combo_name(combo.op, combo.dtype, combo.out_dtype);
  const Case c = make_small_cases(combo.op, combo.dtype, combo.out_dtype, seed_of(combo) + 1, {{6, 200}}).front();
  rec.begin(name + on + ": row sums of [6, 200]");
  const Outcome got = run_case(p, device, c);
  if (!got.ok) {
    rec.fail(name + on + " on [6, 200]: " + got.failure);
    return;
  }
  // Each element's error is relative to itself and the elements sum to 1:
  // the sum is off by a few units of the dtype's rounding, plus what the
  // accumulation in the dtype (float32 for the halves, a few of whose units
  // fit in one of theirs) adds.
  const bool half = combo.dtype == BP_FLOAT16 || combo.dtype == BP_BFLOAT16;
  const double eps = combo.dtype == BP_FLOAT16 ? 0x1p-10 : combo.dtype == BP_BFLOAT16 ? 0x1p-7
                     : combo.dtype == BP_FLOAT64 ? 0x1p-52 : 0x1p-23;
  const double bound = (half ? 8 : 64) * eps;
  const std::vector<double> sums = row_sums(c, got.storages[size_t(c.output.storage)], combo.op == BP_OP_LOG_SOFTMAX);
  for (size_t r = 0; r < sums.size(); ++r)
    if (!(std::fabs(sums[r] - 1) <= bound)) {
      rec.fail(name + on + format(": row %zu of [6, 200] sums to %.17g, not 1 (within %.3g)", r, sums[r], bound) +
               (combo.op == BP_OP_LOG_SOFTMAX ? " (the sum of exp of the row)" : ""));
      return;
    }
  rec.pass(name + on + ": every row of [6, 200] sums to 1" + (combo.op == BP_OP_LOG_SOFTMAX ? " (exp of the row)" : ""));
}

// The calls plugin.h does not define, on the first declared combination:
// each must fail with its status and a message, writing nothing.
void check_refusals(Recorder &rec, Plugin &p, int32_t device, const Combo &combo) {
  const std::string call = "execute(" + combo_name(combo.op, combo.dtype, combo.out_dtype) + ")";
  const Case c = make_small_cases(combo.op, combo.dtype, combo.out_dtype, seed_of(combo) + 2, {{4, 6}}).front();
  rec.begin(call + ": setting up the argument checks");
  BoundCase bound(p, device, c);
  if (!bound.ok()) {
    rec.fail("cannot set up the argument checks of " + call + ": " + bound.failure());
    return;
  }
  const bp_plugin_tensor input = bound.tensor(c.inputs[0]), output = bound.tensor(c.output);
  auto refused = [&](const std::string &what, bp_status expected, auto &&mutate, int32_t n_inputs = 1) {
    bp_plugin_tensor in[2] = {input, input}, out = output;
    mutate(in[0], out);
    const std::string name = call + " with " + what;
    rec.begin(name);
    const bp_status s = p.execute(device, combo.op, &c.attrs, in, n_inputs, &out);
    const std::string failure = refusal_failure(p, s, expected, p.api().last_error());
    if (!failure.empty())
      rec.fail(name + failure);
    else
      rec.pass(name + ": " + status_name(s));
  };
  // [4, 6] in; the output's views keep inside its buffer (fewer elements).
  refused("an output of another shape", BP_ERR_SHAPE, [](bp_plugin_tensor &, bp_plugin_tensor &o) {
    o.shape[1] = 5;
  });
  refused("views of rank 0", BP_ERR_SHAPE, [](bp_plugin_tensor &i, bp_plugin_tensor &o) {
    i.rank = o.rank = 0;
    i.shape[0] = i.shape[1] = o.shape[0] = o.shape[1] = 0;
    i.strides[0] = i.strides[1] = o.strides[0] = o.strides[1] = 0;
  });
  // An int32 view of a float32 (or wider) buffer stays inside it.
  if (bp_vocab_dtype_size(combo.dtype) >= 4)
    refused("int32 views", BP_ERR_UNSUPPORTED, [](bp_plugin_tensor &i, bp_plugin_tensor &o) {
      i.dtype = o.dtype = BP_INT32;
    });
  if (combo.dtype == BP_FLOAT64)
    refused("a float32 output of a float64 input", BP_ERR_UNSUPPORTED, [](bp_plugin_tensor &, bp_plugin_tensor &o) {
      o.dtype = BP_FLOAT32;
    });
  refused("two inputs", BP_ERR_INVALID_ARGUMENT, [](bp_plugin_tensor &, bp_plugin_tensor &) {}, 2);
}

}  // namespace

void group_softmax(Context &ctx, Plugin &p, Plugin &ref) {
  Recorder &rec = ctx.rec;
  if (p.api().abi_minor < 6) {
    rec.skip(format("the plugin's ABI 1.%u predates the SOFTMAX family (1.6)", p.api().abi_minor));
    return;
  }
  rec.info("reference", ref.path());
  const bool self = is_reference_itself(
      rec, p, ref, "outputs are checked for out-of-bounds writes and row sums; not compared with itself");
  const std::vector<int32_t> devices = ctx.devices(p, false);
  for (int32_t d : devices) {
    const std::string on = devices.size() > 1 || d != 0 ? " on " + p.device_name(d) : "";
    std::vector<Combo> combos;
    for (const Combo &c : declared_combos(p, d))
      if (in_family(c) && (ctx.options.ops.empty() || op_selected(ctx.options.ops, c.op))) combos.push_back(c);
    if (combos.empty()) {
      rec.skip(ctx.options.ops.empty() ? "declares neither softmax nor log_softmax"
                                       : "declares none of the operators of --ops " + op_list_text(ctx.options.ops));
      continue;
    }
    for (const Combo &combo : combos) {
      compare_with_reference(rec, p, ref, d, on, combo, self);
      check_row_sums(rec, p, d, on, combo);
    }
    check_refusals(rec, p, d, combos.front());
  }
}

}  // namespace bpcheck
