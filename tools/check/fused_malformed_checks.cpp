// Part of L3 fused programs: malformed programs. A valid two-output program
// of one operator the plugin declares, broken one way at a time, must be
// refused with the status plugin.h gives that fault (bp_sdk_check_fused's)
// and a message, and must leave every buffer as it was.
#include <cstddef>
#include <cstring>
#include <functional>

#include "fused_program.hpp"
#include "groups.hpp"
#include "text.hpp"
#include "values.hpp"
#include "views.hpp"
#include "vocab.hpp"

namespace bpcheck {

void check_malformed_programs(Recorder &rec, Plugin &p, int32_t device, const std::vector<Combo> &combos);

namespace {

// The operator of the base program: a binary one of float32 when declared,
// else the first binary, compare, unary or copy combo, else any.
Combo base_combo(const std::vector<Combo> &combos) {
  for (const Combo &c : combos)
    if (op_family(c.op) == BP_OP_FAMILY_BINARY && c.dtype == BP_FLOAT32) return c;
  for (const Combo &c : combos)
    if (op_family(c.op) != BP_OP_FAMILY_WHERE) return c;
  return combos[0];
}

// Inputs v0 and v1 of the combo's dtype and v2 of another (bool unless
// the combo's dtype is bool), all [3, 4]; v3 = the combo on v0 and v1 (for
// WHERE on the bool one and v0, v1); two outputs of v3.
FusedCase base_program(const Combo &c) {
  FusedCase fc;
  fc.label = "program " + combo_name(c.op, c.dtype, c.out_dtype) + " of inputs [3, 4]";
  const Shape shape = {3, 4};
  const int32_t other = c.dtype == BP_BOOL ? BP_INT32 : BP_BOOL;
  for (int32_t dtype : {c.dtype, c.dtype, other}) {
    ViewDesc v = add_view(fc.data, dtype, shape, dense(), false);
    fill(fc.data, v, [](const int64_t *, int64_t i) { return Val{double(i % 3), i % 2}; });
    fc.inputs.push_back(v);
  }
  bp_fused_instr in = blank_instr(c);
  const int32_t family = op_family(c.op);
  if (family == BP_OP_FAMILY_WHERE) {
    in.args[0] = c.dtype == BP_BOOL ? 0 : 2;
    in.args[1] = 0;
    in.args[2] = 1;
  } else {
    in.args[0] = 0;
    if (family == BP_OP_FAMILY_BINARY || family == BP_OP_FAMILY_COMPARE) in.args[1] = 1;
  }
  fc.instrs.push_back(in);
  for (int j = 0; j < 2; ++j) {
    fc.outputs.push_back(add_view(fc.data, c.out_dtype, shape, dense(), true));
    fc.output_values.push_back(3);
  }
  return fc;
}

using Mutation = std::function<const bp_fused_program *(BoundProgram &, int32_t &device)>;

class Refusals {
 public:
  Refusals(Recorder &rec, Plugin &p, int32_t device, const FusedCase &fc, bool declines_base)
      : rec_(rec), p_(p), device_(device), fc_(fc), declines_base_(declines_base) {}

  void expect(const std::string &what, bp_status expected, const Mutation &mutate) {
    const std::string label = "execute_fused of a " + fc_.label + " with " + what;
    rec_.begin(label);
    BoundProgram bound(p_, device_, fc_);
    if (!bound.ok()) {
      rec_.fail(label + ": " + bound.failure());
      return;
    }
    int32_t device = device_;
    const bp_fused_program *given = mutate(bound, device);
    const bp_status s = bound.run(device, given);
    const std::string message = s == BP_OK ? "" : p_.last_error();
    std::vector<Bytes> after;
    const std::string read = bound.read_all(&after);
    bool untouched = read.empty();
    for (size_t i = 0; untouched && i < after.size(); ++i) untouched = after[i] == fc_.data.storages[i];
    // A plugin that declines even the valid program may decline this one.
    const bool declined = declines_base_ && s == BP_ERR_UNSUPPORTED;
    if (s == BP_OK)
      rec_.fail(label + " returned BP_OK; it must be refused with " + status_name(expected));
    else if (s != expected && !declined)
      rec_.fail(label + " returned " + p_.describe(s) + "; plugin.h's status for it is " + status_name(expected));
    else if (message.empty())
      rec_.fail(label + " returned " + status_name(s) + " without a message (last_error is empty)");
    else if (!untouched)
      rec_.fail(label + " returned " + status_name(s) + " but " + (read.empty() ? "wrote into a buffer" : read));
    else
      rec_.pass(label + " is refused (" + status_name(s) + ")");
  }

 private:
  Recorder &rec_;
  Plugin &p_;
  int32_t device_;
  const FusedCase &fc_;
  bool declines_base_;
};

}  // namespace

void check_malformed_programs(Recorder &rec, Plugin &p, int32_t device, const std::vector<Combo> &combos) {
  const Combo c = base_combo(combos);
  const FusedCase fc = base_program(c);
  rec.begin("execute_fused of the valid " + fc.label);
  const FusedRun base = run_fused(p, device, fc);
  if (base.status != BP_OK && base.status != BP_ERR_UNSUPPORTED) {
    rec.fail("execute_fused refused the valid " + fc.text() + ": " + base.failure);
    return;
  }
  Refusals r(rec, p, device, fc, base.status == BP_ERR_UNSUPPORTED);
  using B = BoundProgram;
  const int32_t family = op_family(c.op);
  const int arity = family == BP_OP_FAMILY_WHERE ? 3 : family == BP_OP_FAMILY_BINARY || family == BP_OP_FAMILY_COMPARE ? 2 : 1;
  const int typed = family == BP_OP_FAMILY_WHERE ? 1 : 0;  // an operand of the combo's dtype

  r.expect("a NULL program", BP_ERR_INVALID_ARGUMENT, [](B &, int32_t &) { return nullptr; });
  r.expect("a struct_size older than 1.3", BP_ERR_INVALID_ARGUMENT, [](B &b, int32_t &) {
    b.program.struct_size = uint32_t(offsetof(bp_fused_program, output_values));
    return &b.program;
  });
  r.expect("an unknown device", BP_ERR_UNKNOWN_DEVICE, [&p](B &b, int32_t &d) {
    d = p.device_count();
    return &b.program;
  });
  r.expect("no instructions", BP_ERR_INVALID_ARGUMENT, [](B &b, int32_t &) {
    b.program.n_instrs = 0;
    return &b.program;
  });
  r.expect("no outputs", BP_ERR_INVALID_ARGUMENT, [](B &b, int32_t &) {
    b.program.n_outputs = 0;
    return &b.program;
  });
  r.expect("more instructions than BP_FUSED_MAX_INSTRS", BP_ERR_INVALID_ARGUMENT, [](B &b, int32_t &) {
    b.program.n_instrs = BP_FUSED_MAX_INSTRS + 1;
    return &b.program;
  });
  r.expect("NULL instrs", BP_ERR_INVALID_ARGUMENT, [](B &b, int32_t &) {
    b.program.instrs = nullptr;
    return &b.program;
  });
  r.expect("an operand that is its own result (value 3)", BP_ERR_INVALID_ARGUMENT, [](B &b, int32_t &) {
    b.instrs[0].args[0] = 3;
    return &b.program;
  });
  r.expect("an operand -1 inside the arity", BP_ERR_INVALID_ARGUMENT, [](B &b, int32_t &) {
    b.instrs[0].args[0] = -1;
    return &b.program;
  });
  r.expect("an operand of the wrong dtype", BP_ERR_DTYPE, [typed](B &b, int32_t &) {
    b.instrs[0].args[typed] = 2;
    return &b.program;
  });
  if (arity < 3)
    r.expect("an operand past the arity that is not -1", BP_ERR_INVALID_ARGUMENT, [arity](B &b, int32_t &) {
      b.instrs[0].args[arity] = 0;
      return &b.program;
    });
  r.expect("reserved set", BP_ERR_INVALID_ARGUMENT, [](B &b, int32_t &) {
    b.instrs[0].reserved = 1;
    return &b.program;
  });
  r.expect("scalar_mode 7", BP_ERR_INVALID_ARGUMENT, [](B &b, int32_t &) {
    b.instrs[0].scalar_mode = 7;
    return &b.program;
  });
  r.expect("a reduction (sum) as an instruction", BP_ERR_INVALID_ARGUMENT, [](B &b, int32_t &) {
    b.instrs[0].op = BP_OP_SUM;
    b.instrs[0].args[1] = -1;
    b.instrs[0].args[2] = -1;
    return &b.program;
  });
  r.expect("the unknown operator 9999", BP_ERR_UNSUPPORTED, [](B &b, int32_t &) {
    b.instrs[0].op = 9999;
    return &b.program;
  });
  r.expect("an output value past the last value", BP_ERR_INVALID_ARGUMENT, [](B &b, int32_t &) {
    b.output_values[0] = 4;
    return &b.program;
  });
  const int32_t mistyped = fc.value_dtype(0) != c.out_dtype ? 0 : 2;
  r.expect("an output whose value has another dtype", BP_ERR_DTYPE, [mistyped](B &b, int32_t &) {
    b.output_values[0] = mistyped;
    return &b.program;
  });
  r.expect("two outputs on the same elements", BP_ERR_INVALID_ARGUMENT, [](B &b, int32_t &) {
    b.outputs[1] = b.outputs[0];
    return &b.program;
  });
  r.expect("an output overlapping an input without being its view", BP_ERR_INVALID_ARGUMENT, [](B &b, int32_t &) {
    b.outputs[0].buffer = b.inputs[0].buffer;
    b.outputs[0].offset = b.inputs[0].offset + uint64_t(bp_vocab_dtype_size(b.inputs[0].dtype));
    return &b.program;
  });
  r.expect("a transposed (not dense) output", BP_ERR_INVALID_ARGUMENT, [](B &b, int32_t &) {
    b.outputs[0].shape[0] = 4;
    b.outputs[0].shape[1] = 3;
    b.outputs[0].strides[0] = 1;
    b.outputs[0].strides[1] = 4;
    return &b.program;
  });
  r.expect("an input of another shape", BP_ERR_SHAPE, [](B &b, int32_t &) {
    b.inputs[0].shape[0] = 2;
    return &b.program;
  });
}

}  // namespace bpcheck
