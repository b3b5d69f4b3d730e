// L2 pool: the POOL and POOL_GRAD families (plugin.h, since 1.6), every
// declared operator and dtype against the reference on the cases of
// engine/pool_cases.cpp (random windows, ceil mode, both count modes, ties,
// NaN, strided views), with sentinel bytes around every output; then the
// calls plugin.h says a plugin refuses: no window, the attributes of a 1.5
// core (too short to hold one), extents the window does not give, an index
// outside its plane on a host-memory plugin.
#include <cstring>

#include "against_reference.hpp"
#include "case_runner.hpp"
#include "groups.hpp"
#include "host_results.hpp"
#include "pool_cases.hpp"
#include "selection.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

uint64_t seed_of(const Combo &c) { return uint64_t(c.op) * 7919u + uint64_t(c.dtype) * 31u + 5u; }

// A call the plugin must refuse with `want`, leaving its output alone;
// attrs null: the case's own.
void expect_refused(Recorder &rec, Plugin &p, const Case &c, const bp_op_attrs *attrs, bp_status want,
                    const std::string &what) {
  rec.begin(what);
  BoundCase bound(p, 0, c);
  if (!bound.ok()) {
    rec.fail(what + ": cannot set up the case: " + bound.failure());
    return;
  }
  const bp_status s = attrs ? bound.execute_raw(attrs) : bound.execute();
  std::vector<uint8_t> out;
  const std::string read_error = bound.read_storage(c.output.storage, &out);
  const bool untouched = read_error.empty() && out == c.storages[size_t(c.output.storage)];
  if (s != want)
    rec.fail(what + " returned " + (s == BP_OK ? std::string("BP_OK") : p.describe(s)) + "; it must be refused with " +
             status_name(want));
  else if (!untouched)
    rec.fail(what + ": refused, but wrote into the output anyway");
  else
    rec.pass(what + ": " + status_name(want));
}

// The malformed calls of one declared combination.
void check_refusals(Recorder &rec, Plugin &p, const Combo &combo) {
  const std::string name = combo_name(combo.op, combo.dtype, combo.out_dtype);
  Builder b(combo.op, combo.dtype, combo.out_dtype, 43);
  Case &c = b.start("refusals");
  add_pool(b, c, {6, 4});
  bp_op_attrs attrs = c.attrs;
  attrs.params = nullptr;
  expect_refused(rec, p, c, &attrs, BP_ERR_INVALID_ARGUMENT, "execute(" + name + ") without a window (params NULL)");
  // A 1.5 core's attributes end before params: the plugin must not read it.
  bp_window_params w = *c.window;
  attrs = c.attrs;
  attrs.params = &w;
  attrs.struct_size = BP_OP_ATTRS_SIZE_1_3;
  expect_refused(rec, p, c, &attrs, BP_ERR_INVALID_ARGUMENT,
                 "execute(" + name + ") with the attributes of a 1.5 core (no params)");
  attrs = c.attrs;
  attrs.params = &w;
  w.stride[0] = 0;
  expect_refused(rec, p, c, &attrs, BP_ERR_INVALID_ARGUMENT, "execute(" + name + ") with a window of stride 0");
  // The window of a larger input: the extents no longer follow from it.
  w = *c.window;
  w.kernel[0] = 4;
  expect_refused(rec, p, c, &attrs, BP_ERR_SHAPE,
                 "execute(" + name + ") with extents its window (kernel 4 where the case has 2) does not give");
  if (combo.op == BP_OP_MAX_POOL_GRAD && p.has_host_address()) {
    Case bad = c;
    const ViewDesc &index = bad.inputs[1];
    const int64_t beyond = 6 * 4;
    std::memcpy(bad.storages[size_t(index.storage)].data() + index.offset, &beyond, sizeof beyond);
    expect_refused(rec, p, bad, nullptr, BP_ERR_INDEX,
                   "execute(" + name + ") with an index past its plane, on a host-memory plugin");
  }
}

}  // namespace

void group_pool(Context &ctx, Plugin &p, Plugin &ref) {
  Recorder &rec = ctx.rec;
  rec.info("reference", ref.path());
  const bool self = is_reference_itself(
      rec, p, ref, "outputs are checked for out-of-bounds writes and untouched inputs, not compared with itself");
  const std::vector<int32_t> devices = ctx.devices(p, false);
  size_t compared = 0;
  for (int32_t d : devices) {
    const std::string on = devices.size() > 1 || d != 0 ? " on " + p.device_name(d) : "";
    size_t cases_run = 0;
    for (const Combo &combo : declared_combos(p, d)) {
      if (!is_pool_op(combo.op) || !op_selected(ctx.options.ops, combo.op)) continue;
      const std::string name = combo_name(combo.op, combo.dtype, combo.out_dtype);
      if (!reference_declares(rec, ref, combo, name)) continue;
      ++compared;
      cases_run += compare_cases(rec, {p, d, ref, name, on, self, true},
                                 pool_cases(combo.op, combo.dtype, combo.out_dtype, seed_of(combo)), "cases");
      if (d == 0) check_refusals(rec, p, combo);
    }
    rec.info("cases", std::to_string(cases_run));
  }
  if (compared == 0) rec.skip("declares no pooling operator");
}

}  // namespace bpcheck
