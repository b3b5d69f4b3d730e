// plugin.h's bp_fused_program over arrays a test holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "backplane/plugin.h"

namespace bp_test {

// The ABI form of an instruction of a test's own program type: its op,
// dtype, out_dtype, scalar_mode, scalar and up to three value numbers in
// args (-1 for the arguments it does not have).
template <class Instr>
bp_fused_instr fused_instr_of(const Instr &in) {
  bp_fused_instr out{};
  out.op = in.op;
  out.dtype = in.dtype;
  out.out_dtype = in.out_dtype;
  out.scalar_mode = in.scalar_mode;
  for (int a = 0; a < 3; ++a) out.args[a] = a < static_cast<int>(in.args.size()) ? in.args[static_cast<size_t>(a)] : -1;
  out.scalar = in.scalar;
  return out;
}

// The program over these arrays, which must outlive it (it points into them).
inline bp_fused_program fused_program_of(const std::vector<bp_plugin_tensor> &inputs,
                                         const std::vector<bp_fused_instr> &instrs,
                                         const std::vector<bp_plugin_tensor> &outputs,
                                         const std::vector<int32_t> &output_values) {
  bp_fused_program program{};
  program.struct_size = sizeof program;
  program.n_inputs = static_cast<int32_t>(inputs.size());
  program.n_instrs = static_cast<int32_t>(instrs.size());
  program.n_outputs = static_cast<int32_t>(outputs.size());
  program.inputs = inputs.empty() ? nullptr : inputs.data();
  program.instrs = instrs.data();
  program.outputs = outputs.data();
  program.output_values = output_values.data();
  return program;
}

}  // namespace bp_test
