// L0 invalid arguments of the GATHER and SCATTER families, on the first
// declared combination of each: an index that is not int64 (BP_ERR_DTYPE),
// shapes that do not fit index [N, k] (BP_ERR_SHAPE), and index values
// outside their axis. For those plugin.h lets a device backend skip the row
// where a host-memory one (it has host_address) returns BP_ERR_INDEX, so
// only the latter must say BP_ERR_INDEX; either must not crash, nor write
// outside its output view.
#include <cinttypes>
#include <vector>

#include "case_builders.hpp"
#include "case_runner.hpp"
#include "groups.hpp"
#include "judge.hpp"
#include "refusals.hpp"
#include "text.hpp"
#include "values.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

// The checks on one declared combination of a GATHER or SCATTER operator.
void check_combo(Recorder &rec, Plugin &p, const Combo &combo) {
  const bool gather = op_family(combo.op) == BP_OP_FAMILY_GATHER;
  const std::string call = "execute(" + combo_name(combo.op, combo.dtype, combo.out_dtype) + ")";
  // Data (gather) or output (scatter) [4, 3]; an index [N, 1]; rows [N, 3].
  const Case c = make_small_cases(combo.op, combo.dtype, combo.out_dtype, 41, {{4, 3}}).front();
  const size_t index_at = gather ? 1 : 0;
  const ViewDesc &index = c.inputs[index_at];
  rec.begin(call + ": setting up the index checks");
  BoundCase bound(p, 0, c);
  if (!bound.ok()) {
    rec.fail("cannot set up the index checks of " + call + ": " + bound.failure());
    return;
  }
  const std::vector<bp_plugin_tensor> inputs = {bound.tensor(c.inputs[0]), bound.tensor(c.inputs[1])};
  const bp_plugin_tensor output = bound.tensor(c.output);

  // The well-formed call with its views changed by `mutate(inputs, output,
  // index, rows)` must fail with `expected` and a message.
  auto refused = [&](const std::string &what, bp_status expected, auto &&mutate) {
    std::vector<bp_plugin_tensor> in = inputs;
    bp_plugin_tensor out = output;
    bp_plugin_tensor &rows = gather ? out : in[1];
    mutate(in[index_at], rows);
    const std::string name = call + " with " + what;
    rec.begin(name);
    const bp_status s = p.execute(0, combo.op, &c.attrs, in.data(), 2, &out);
    const std::string failure = refusal_failure(p, s, expected, p.api().last_error());
    if (!failure.empty())
      rec.fail(name + failure);
    else
      rec.pass(name + ": " + status_name(s));
  };
  // An int32 view of the int64 index holds its low and high halves: still
  // coordinates inside the axis, so only the dtype is wrong.
  refused("an int32 index", BP_ERR_DTYPE, [](bp_plugin_tensor &i, bp_plugin_tensor &) { i.dtype = BP_INT32; });
  refused("an index of rank 1", BP_ERR_SHAPE, [](bp_plugin_tensor &i, bp_plugin_tensor &) {
    i.rank = 1;
    i.shape[1] = i.strides[1] = 0;
  });
  refused("an index [N, 0]", BP_ERR_SHAPE, [](bp_plugin_tensor &i, bp_plugin_tensor &) { i.shape[1] = 0; });
  // Stride 0 repeats each row's one coordinate: the view stays in its buffer.
  refused("an index [N, 3] for a tensor of rank 2", BP_ERR_SHAPE,
          [](bp_plugin_tensor &i, bp_plugin_tensor &) {
            i.shape[1] = 3;
            i.strides[1] = 0;
          });
  refused(std::string(gather ? "an output" : "values") + " [N, 2] for rows of 3 elements", BP_ERR_SHAPE,
          [](bp_plugin_tensor &, bp_plugin_tensor &r) { r.shape[1] = 2; });
  refused(std::string(gather ? "an output" : "values") + " of N - 1 rows", BP_ERR_SHAPE,
          [](bp_plugin_tensor &, bp_plugin_tensor &r) { r.shape[0] -= 1; });

  // Index values outside axis 0 (extent 4), in the first row.
  const bool host_memory = p.has_host_address();
  for (const int64_t bad : {int64_t(4), int64_t(-1), int64_t(1) << 40}) {
    Case k = c;
    const int64_t first[2] = {0, 0};
    Val v;
    v.i = bad;
    store(BP_INT64, k.storages[size_t(index.storage)].data() + byte_at(index, first), v);
    const std::string name = call + format(" with the index value %" PRId64 " on an axis of extent 4", bad);
    rec.begin(name);
    BoundCase b(p, 0, k);
    if (!b.ok()) {
      rec.fail("cannot set up " + name + ": " + b.failure());
      continue;
    }
    const bp_status s = b.execute();
    const char *e = p.api().last_error();
    const std::string message = e ? e : "";
    std::vector<std::vector<uint8_t>> after;
    std::string problem = b.read_all(&after);
    if (problem.empty()) problem = check_sentinels(k, after[size_t(k.output.storage)]);
    if (problem.empty()) problem = check_inputs_untouched(k, after);
    if (!problem.empty())
      rec.fail(name + ": " + problem);
    else if (s == BP_ERR_INDEX && message.empty())
      rec.fail(name + " failed with BP_ERR_INDEX but last_error() gives no message");
    else if (s == BP_ERR_INDEX)
      rec.pass(name + ": BP_ERR_INDEX");
    else if (s == BP_OK && !host_memory)
      rec.pass(name + ": BP_OK (a device backend may skip the row)");
    else if (s == BP_OK)
      rec.fail(name + " returned BP_OK; a plugin whose buffers are host memory (it has host_address) must "
                      "return BP_ERR_INDEX");
    else
      rec.fail(name + " returned " + p.describe(s) + "; it must be BP_ERR_INDEX" +
               (host_memory ? "" : " (or BP_OK, skipping the row)"));
  }
}

}  // namespace

void check_index_arguments(Recorder &rec, Plugin &p) {
  const std::vector<Combo> declared = declared_combos(p, 0);
  for (int32_t family : {BP_OP_FAMILY_GATHER, BP_OP_FAMILY_SCATTER})
    for (const Combo &c : declared)
      if (op_family(c.op) == family) {
        check_combo(rec, p, c);
        break;
      }
}

}  // namespace bpcheck
