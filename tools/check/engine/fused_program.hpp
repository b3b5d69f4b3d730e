// A fused elementwise program (plugin.h, bp_fused_program) as host data,
// the random programs of the fused group, and running one on a plugin:
// through execute_fused, or instruction by instruction through execute into
// temporaries (what plugin.h defines a program's result to be).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "case.hpp"
#include "case_runner.hpp"
#include "plugin.hpp"

namespace bpcheck {

using Bytes = std::vector<uint8_t>;

struct FusedCase {
  std::string label;  // "program 17 (seed 1234)"
  Case data;          // only its storages: the initial contents of every buffer
  std::vector<ViewDesc> inputs;
  std::vector<bp_fused_instr> instrs;
  std::vector<ViewDesc> outputs;  // dense, each its own storage or the very view of an input
  std::vector<int32_t> output_values;

  int32_t n_values() const { return int32_t(inputs.size() + instrs.size()); }
  int32_t value_dtype(int32_t v) const;
  // The listing failure messages show: inputs with their layouts, one line
  // per instruction, the outputs.
  std::string text() const;
};

// The (op, dtype, out_dtype) triples of the elementwise families that
// execute_fused may run, those the plugin declares on `device` and the
// reference implements.
std::vector<Combo> fusable_combos(Plugin &p, int32_t device);

// An instruction of op on dtype into out_dtype over the values `args` (at
// most three; the rest -1), with a scalar operand as scalar_mode says.
bp_fused_instr fused_instr(int32_t op, int32_t dtype, int32_t out_dtype, const std::vector<int32_t> &args = {},
                           int32_t scalar_mode = BP_SCALAR_NONE, double scalar = 0);
// An instruction of `c` with no operand yet (args -1, no scalar).
bp_fused_instr blank_instr(const Combo &c);
// The ABI program over these parts, which must outlive it.
bp_fused_program fused_program(const std::vector<bp_plugin_tensor> &inputs, const std::vector<bp_fused_instr> &instrs,
                               const std::vector<bp_plugin_tensor> &outputs, const std::vector<int32_t> &output_values);

// A random valid program over `combos`, reproducible from `seed`: up to a
// dozen instructions of every family among them, scalar operands (NaN, inf,
// -0 and large ones among them), rank 0 to 4 (now and then an empty or a
// larger shape), broadcast and strided inputs, several outputs (the last
// value and some intermediate ones), now and then one in place. `dtype` is
// the dtype most of its values have.
FusedCase random_program(const std::vector<Combo> &combos, int32_t dtype, uint64_t seed, const std::string &label);

// A program bound to buffers of one plugin device: the ABI structs point
// into the vectors below, which a check may change before run().
class BoundProgram {
 public:
  BoundProgram(Plugin &p, int32_t device, const FusedCase &fc);
  bool ok() const { return bound_.ok(); }
  const std::string &failure() const { return bound_.failure(); }
  bp_status run(int32_t device, const bp_fused_program *program);
  bp_status run() { return run(device_, &program); }
  // Every storage read back; "" or what failed.
  std::string read_all(std::vector<Bytes> *out) { return bound_.read_all(out); }

  std::vector<bp_plugin_tensor> inputs, outputs;
  std::vector<bp_fused_instr> instrs;
  std::vector<int32_t> output_values;
  bp_fused_program program;

 private:
  Plugin &plugin_;
  int32_t device_;
  BoundCase bound_;
};

// execute_fused on fresh buffers holding the case's storages.
struct FusedRun {
  bp_status status = BP_OK;
  std::string failure;         // set when status is not BP_OK, or alloc, write or read failed
  std::vector<Bytes> storages; // every storage read back (also after a refusal)
};
FusedRun run_fused(Plugin &p, int32_t device, const FusedCase &fc);

// The program run one instruction at a time with execute() into dense
// temporaries of each instruction's out_dtype: every value's elements in C
// order (inputs included), and what every output storage must then hold
// (its initial bytes with the output's elements set to their values). ""
// or what failed, naming the instruction.
struct OpByOp {
  std::vector<Bytes> values;
  std::vector<Bytes> output_storages;
};
std::string run_op_by_op(Plugin &p, int32_t device, const FusedCase &fc, OpByOp *out);

// Instruction k of fc alone, on dense inputs holding `values`' elements of
// its operands: what the reference runs to judge one step of a plugin.
FusedCase single_step(const FusedCase &fc, size_t k, const std::vector<Bytes> &values);

}  // namespace bpcheck
