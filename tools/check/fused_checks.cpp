// L3 fused programs: the optional execute_fused entry (since 1.3) on random
// programs of the operators the plugin declares, and on malformed ones.
//
// plugin.h defines a program's result as what running its instructions one
// by one with execute() would leave in the outputs, bit for bit. So every
// output is compared with the plugin's own execute run that way
// (bit-exactly; a NaN equals any NaN, as a compiler may commute an
// operation and so pick the other operand's payload), and with the
// reference's execute_fused: bit-exactly where every instruction behind the
// output is exact (integers and bool, the operators numerics judges without
// a tolerance), within the operator's numerics tolerance where only the
// last one is not. Deeper chains of inexact operators carry their
// differences along, so every instruction of the plugin's op-by-op run is
// also compared with the reference's on the very same operands.
// BP_ERR_UNSUPPORTED is the plugin declining a program (the core then runs
// it op by op): a note, and it must come before anything is written. A
// plugin without the entry skips the group.
#include <cmath>
#include <cstring>

#include "against_reference.hpp"
#include "fused_program.hpp"
#include "groups.hpp"
#include "judge.hpp"
#include "text.hpp"
#include "values.hpp"
#include "views.hpp"
#include "vocab.hpp"

namespace bpcheck {

// Malformed programs (fused_malformed_checks.cpp).
void check_malformed_programs(Recorder &rec, Plugin &p, int32_t device, const std::vector<Combo> &combos);

namespace {

// Random programs per main dtype; the seed of program i is kSeed + i.
constexpr int kProgramsPerDtype = 24;
constexpr uint64_t kSeed = 20260301;

// How far an output's value is from exact: 0 when every instruction behind
// it is exact, 1 when only its own instruction is not, 2 beyond.
std::vector<int> inexactness(const FusedCase &fc) {
  std::vector<int> level(size_t(fc.n_values()), 0);
  for (size_t k = 0; k < fc.instrs.size(); ++k) {
    const bp_fused_instr &in = fc.instrs[k];
    int operands = 0;
    for (int a = 0; a < 3 && in.args[a] >= 0; ++a) operands = std::max(operands, level[size_t(in.args[a])]);
    level[fc.inputs.size() + k] = operands > 0 ? 2 : exact_result(in.op, in.out_dtype) ? 0 : 1;
  }
  return level;
}

bool same_element(int32_t dtype, const uint8_t *a, const uint8_t *b) {
  if (is_float(dtype) && std::isnan(load_double(dtype, a)) && std::isnan(load_double(dtype, b))) return true;
  return std::memcmp(a, b, size_t(bp_vocab_dtype_size(dtype))) == 0;
}

// "" when output j of `got` holds `expected`'s elements, else where not.
std::string compare_exact(const FusedCase &fc, size_t j, const Bytes &got, const Bytes &expected, const char *whose) {
  const ViewDesc &o = fc.outputs[j];
  int64_t bad = 0;
  std::string first;
  for_each_index(o, [&](const int64_t *idx, int64_t) {
    const uint64_t at = byte_at(o, idx);
    if (same_element(o.dtype, got.data() + at, expected.data() + at)) return;
    if (bad++ == 0)
      first = "at " + shape_text(o.rank, idx) + " it gives " + value_text(o.dtype, got.data() + at) + " where " +
              whose + " gives " + value_text(o.dtype, expected.data() + at);
  });
  if (bad == 0) return {};
  return format("output %zu (v%d) ", j, int(fc.output_values[j])) + first +
         format(" (%lld of %lld elements differ)", (long long)bad, (long long)numel(o));
}

// "" when nothing outside output j's elements changed.
std::string check_output_guards(const FusedCase &fc, size_t j, const Bytes &after) {
  Case probe;
  probe.storages = fc.data.storages;
  probe.output = fc.outputs[j];
  const std::string s = check_sentinels(probe, after);
  return s.empty() ? s : format("output %zu: ", j) + s;
}

bool is_output_storage(const FusedCase &fc, int storage) {
  for (const ViewDesc &o : fc.outputs)
    if (o.storage == storage) return true;
  return false;
}

class ProgramJudge {
 public:
  ProgramJudge(Recorder &rec, Plugin &p, Plugin *ref, int32_t device)
      : rec_(rec), p_(p), ref_(ref), device_(device) {}

  // Runs one program; false when it failed (recorded).
  bool check(const FusedCase &fc) {
    rec_.begin("execute_fused of " + fc.text());
    const FusedRun got = run_fused(p_, device_, fc);
    if (got.status == BP_ERR_UNSUPPORTED && got.storages.size() == fc.data.storages.size()) {
      for (size_t s = 0; s < got.storages.size(); ++s)
        if (got.storages[s] != fc.data.storages[s])
          return fail(fc, format("answered BP_ERR_UNSUPPORTED after writing into its %s (storage %zu); it may decline "
                                 "only before writing anything",
                                 is_output_storage(fc, int(s)) ? "outputs" : "inputs", s));
      ++declined_;
      return true;
    }
    if (got.status != BP_OK) return fail(fc, "refused a valid program: " + got.failure);
    for (size_t s = 0; s < got.storages.size(); ++s)
      if (!is_output_storage(fc, int(s)) && got.storages[s] != fc.data.storages[s])
        return fail(fc, format("modified an input (storage %zu)", s));
    for (size_t j = 0; j < fc.outputs.size(); ++j) {
      const std::string e = check_output_guards(fc, j, got.storages[size_t(fc.outputs[j].storage)]);
      if (!e.empty()) return fail(fc, e);
    }

    OpByOp op_by_op;
    std::string e = run_op_by_op(p_, device_, fc, &op_by_op);
    if (!e.empty()) return fail(fc, "could not be run op by op for comparison: " + e);
    for (size_t j = 0; j < fc.outputs.size(); ++j) {
      e = compare_exact(fc, j, got.storages[size_t(fc.outputs[j].storage)], op_by_op.output_storages[j],
                        "running the instructions one by one with its own execute");
      if (!e.empty()) return fail(fc, "is not bit-identical to its execute op by op: " + e);
    }
    ++agreed_;
    return ref_ ? compare_with_reference(fc, got) && compare_steps(fc, op_by_op.values) : true;
  }

  int agreed() const { return agreed_; }
  int declined() const { return declined_; }
  int compared() const { return compared_; }
  int not_compared() const { return not_compared_; }
  int steps() const { return steps_; }

 private:
  bool fail(const FusedCase &fc, const std::string &why) {
    rec_.fail("execute_fused on " + p_.device_name(device_) + " " + why + " (" + fc.text() + ")");
    return false;
  }

  bool compare_with_reference(const FusedCase &fc, const FusedRun &got) {
    const FusedRun expected = run_fused(*ref_, 0, fc);
    if (expected.status != BP_OK) {
      rec_.note(fc.label + ": the reference refused it (" + expected.failure + "): not compared");
      return true;
    }
    const std::vector<int> level = inexactness(fc);
    for (size_t j = 0; j < fc.outputs.size(); ++j) {
      const int32_t v = fc.output_values[j];
      const int storage = fc.outputs[j].storage;
      const Bytes &g = got.storages[size_t(storage)], &r = expected.storages[size_t(storage)];
      std::string e;
      if (level[size_t(v)] == 0) {
        e = compare_exact(fc, j, g, r, "the reference");
      } else if (level[size_t(v)] == 1) {
        Case probe;
        probe.op = fc.instrs[size_t(v) - fc.inputs.size()].op;
        probe.output = fc.outputs[j];
        e = compare_outputs(probe, g, r);
        if (!e.empty()) e = format("output %zu (v%d) ", j, int(v)) + e;
      } else {
        ++not_compared_;
        continue;
      }
      ++compared_;
      if (!e.empty()) return fail(fc, "differs from the reference's: " + e);
    }
    return true;
  }

  // Each instruction of the plugin's op-by-op run against the reference's
  // on the very same operands: the chains compare_with_reference leaves
  // out, one step at a time.
  bool compare_steps(const FusedCase &fc, const std::vector<Bytes> &values) {
    for (size_t k = 0; k < fc.instrs.size(); ++k) {
      const FusedCase step = single_step(fc, k, values);
      const FusedRun expected = run_fused(*ref_, 0, step);
      if (expected.status != BP_OK) {
        rec_.note(step.label + ": the reference refused it (" + expected.failure + "): not compared");
        continue;
      }
      // The plugin's value where the reference's output is.
      const ViewDesc &o = step.outputs[0];
      Bytes got = expected.storages[size_t(o.storage)];
      const Bytes &value = values[fc.inputs.size() + k];
      const size_t esize = size_t(bp_vocab_dtype_size(o.dtype));
      for_each_index(o, [&](const int64_t *idx, int64_t pos) {
        std::memcpy(got.data() + byte_at(o, idx), value.data() + size_t(pos) * esize, esize);
      });
      const bp_fused_instr &in = fc.instrs[k];
      std::string e;
      if (exact_result(in.op, in.out_dtype)) {
        e = compare_exact(step, 0, got, expected.storages[size_t(o.storage)], "the reference");
      } else {
        Case probe;
        probe.op = in.op;
        probe.output = o;
        e = compare_outputs(probe, got, expected.storages[size_t(o.storage)]);
      }
      ++steps_;
      if (!e.empty())
        return fail(fc, format("instruction %zu (%s), run by its execute, differs from the reference's on the same "
                               "operands: ",
                               k, combo_name(in.op, in.dtype, in.out_dtype).c_str()) +
                            e);
    }
    return true;
  }

  Recorder &rec_;
  Plugin &p_;
  Plugin *ref_;
  int32_t device_;
  int agreed_ = 0, declined_ = 0, compared_ = 0, not_compared_ = 0, steps_ = 0;
};

// The dtypes programs are built around: every operand dtype of the combos.
std::vector<int32_t> main_dtypes(const std::vector<Combo> &combos) {
  std::vector<int32_t> out;
  for (int32_t d : vocab_dtypes())
    for (const Combo &c : combos)
      if (c.dtype == d) {
        out.push_back(d);
        break;
      }
  return out;
}

void check_random_programs(Recorder &rec, Plugin &p, Plugin *ref, int32_t device, const std::vector<Combo> &combos) {
  ProgramJudge judge(rec, p, ref, device);
  int run = 0, failed = 0;
  for (int32_t dtype : main_dtypes(combos)) {
    for (int i = 0; i < kProgramsPerDtype && failed < 3; ++i) {
      const uint64_t seed = kSeed + uint64_t(dtype) * 1000u + uint64_t(i);
      const FusedCase fc = random_program(combos, dtype, seed, format("program %s #%d (seed %llu)", dtype_name(dtype),
                                                                       i, (unsigned long long)seed));
      if (fc.instrs.empty()) continue;
      ++run;
      if (!judge.check(fc)) ++failed;
    }
  }
  if (failed > 0) return;
  if (run > 0 && judge.declined() == run) {
    rec.skip(format("execute_fused declined every one of %d programs (BP_ERR_UNSUPPORTED: the core runs them op by op)",
                    run));
    return;
  }
  if (judge.declined() > 0)
    rec.note(format("declined %d of %d programs (BP_ERR_UNSUPPORTED, nothing written: the core runs them op by op)",
                    judge.declined(), run));
  rec.pass(format("%d random programs on %s are bit-identical to execute op by op", judge.agreed(),
                  p.device_name(device).c_str()));
  if (ref) {
    rec.pass(format("%d of their outputs agree with the reference's execute_fused (the other %d follow more than one "
                    "inexact operator: judged step by step)",
                    judge.compared(), judge.not_compared()));
    rec.pass(format("each of their %d instructions, run by execute, agrees with the reference's on the same operands",
                    judge.steps()));
  }
}

}  // namespace

void group_fused(Context &ctx, Plugin &p) {
  Recorder &rec = ctx.rec;
  if (!has_optional_entry(rec, p, &bp_plugin_api::execute_fused,
                          "no execute_fused entry (optional, not declared): the core runs every operator on its own"))
    return;
  auto ref = ctx.open_reference();
  if (!ref) return;
  rec.info("reference", ref->path());
  // The reference checked against itself: its own execute is the oracle.
  const bool self = is_reference_itself(rec, p, *ref, "programs are compared with its execute op by op only");
  for (int32_t d : ctx.devices(p, false)) {
    const std::vector<Combo> combos = fusable_combos(p, d);
    if (combos.empty()) {
      rec.skip("declares no elementwise operator a program could use");
      continue;
    }
    check_random_programs(rec, p, self ? nullptr : ref.get(), d, combos);
    check_malformed_programs(rec, p, d, combos);
  }
}

}  // namespace bpcheck
