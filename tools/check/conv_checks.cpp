// L2 convolution: every convolution (CONV, CONV_TRANSPOSE, CONV_WEIGHT_GRAD)
// and dtype the plugin declares, on random problems (1- to 3-D, strides,
// dilations, asymmetric padding, groups, depthwise, output padding, with
// and without a bias, strided views) against the reference; and the calls
// plugin.h says it must refuse, each leaving the output untouched.
#include <functional>

#include "against_reference.hpp"
#include "case_runner.hpp"
#include "conv_cases.hpp"
#include "family_builders.hpp"
#include "groups.hpp"
#include "selection.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

// Random problems per declared combination: dozens of shapes in a few
// seconds even on the reference's plain loops.
constexpr int kProblems = 24;

const char *status_text(bp_status s) { return status_name(s); }

// The refusals of one declared combination: a well-formed case broken one
// way at a time must fail with `want` and write nothing.
void check_refusals(Recorder &rec, Plugin &p, int32_t device, const std::string &on, const Combo &combo) {
  const std::string name = combo_name(combo.op, combo.dtype, combo.out_dtype);
  // A dense 2-D grouped problem with padding and a bias.
  Builder b(combo.op, combo.dtype, combo.out_dtype, 7);
  ConvSpec spec;
  spec.n = 2, spec.c_in = 4, spec.c_out = 6, spec.groups = 2;
  spec.in[0] = 6, spec.in[1] = 5, spec.kernel[0] = spec.kernel[1] = 3;
  spec.pad_begin[0] = spec.pad_begin[1] = spec.pad_end[0] = spec.pad_end[1] = 1;
  add_conv(b, spec, "refusals");
  const Case base = b.cases.front();
  auto refused = [&](const std::string &what, bp_status want, const std::function<void(Case &)> &mutate) {
    Case c = base;
    mutate(c);
    rec.begin(name + on + " with " + what);
    BoundCase bound(p, device, c);
    if (!bound.ok()) return rec.fail(name + on + ": cannot set up " + what + ": " + bound.failure());
    const bp_status s = bound.execute();
    std::vector<uint8_t> out;
    const std::string read = bound.read_storage(c.output.storage, &out);
    const bool untouched = read.empty() && out == c.storages[size_t(c.output.storage)];
    rec.expect(s == want && untouched, name + on + " with " + what + ": " + status_text(want),
               "execute(" + name + ")" + on + " with " + what + " returned " + p.describe(s) +
                   (untouched ? "" : " and wrote into its output") + "; plugin.h asks for " + status_text(want));
  };
  refused("no window (attrs.params NULL)", BP_ERR_INVALID_ARGUMENT, [](Case &c) { c.window.reset(); });
  refused("a window whose struct_size stops before its fields", BP_ERR_INVALID_ARGUMENT,
          [](Case &c) { c.window->struct_size = 8; });
  refused("stride 0", BP_ERR_INVALID_ARGUMENT, [](Case &c) { c.window->stride[0] = 0; });
  refused("negative padding", BP_ERR_INVALID_ARGUMENT, [](Case &c) { c.window->pad_end[0] = -1; });
  refused("groups 0", BP_ERR_INVALID_ARGUMENT, [](Case &c) { c.window->groups = 0; });
  refused("spatial_rank 4", BP_ERR_INVALID_ARGUMENT, [](Case &c) { c.window->spatial_rank = 4; });
  refused("views of another rank than the window's + 2", BP_ERR_SHAPE,
          [](Case &c) { c.window->spatial_rank = (c.output.rank - 2) % 3 + 1; });
  refused("a kernel extent other than the weight's", BP_ERR_SHAPE, [](Case &c) { c.window->kernel[0] += 1; });
  refused("groups that do not divide the channels", BP_ERR_SHAPE,
          [](Case &c) { c.window->groups = int32_t(c.output.shape[1] * 8 + 7); });
  refused("an output longer along its last axis than plugin.h's relation allows", BP_ERR_SHAPE, [](Case &c) {
    Shape longer(c.output.shape, c.output.shape + c.output.rank);
    longer.back() += 1 + c.window->stride[c.output.rank - 3] + c.window->dilation[c.output.rank - 3];
    c.output = add_view(c, c.output.dtype, longer, dense(), true);
  });
  refused("an absent input 1", BP_ERR_INVALID_ARGUMENT, [](Case &c) { c.inputs[1] = absent_view(); });
  if (combo.op == BP_OP_CONV_WEIGHT_GRAD)
    refused("a bias (input 2), which it does not take", BP_ERR_INVALID_ARGUMENT, [](Case &c) { c.inputs[2] = c.inputs[1]; });
}

}  // namespace

void group_conv(Context &ctx, Plugin &p, Plugin &ref) {
  Recorder &rec = ctx.rec;
  rec.info("reference", ref.path());
  const bool self = is_reference_itself(
      rec, p, ref, "its results are checked for out-of-bounds writes and its refusals, not compared with itself");
  size_t checked = 0;
  for (int32_t d : ctx.devices(p, false)) {
    const std::string on = d != 0 ? " on " + p.device_name(d) : "";
    for (const Combo &combo : declared_combos(p, d)) {
      if (op_family(combo.op) != BP_OP_FAMILY_CONV) continue;
      if (!ctx.options.ops.empty() && !op_selected(ctx.options.ops, combo.op)) continue;
      const std::string name = combo_name(combo.op, combo.dtype, combo.out_dtype);
      ++checked;
      compare_cases(rec, {p, d, ref, name, on, self, true},
                    random_conv_cases(combo.op, combo.dtype, uint64_t(combo.op) * 7919u + uint64_t(combo.dtype),
                                      kProblems),
                    "random problems");
      check_refusals(rec, p, d, on, combo);
    }
  }
  if (checked == 0) rec.skip("declares no convolution");
}

}  // namespace bpcheck
