// One device's recorded elementwise operators, all of one shape, and how
// they run: as one bp_fused_program, or op by op when the backend declines
// it. Used under the device's fusion lock only (fusion.cpp).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "backplane/plugin.h"
#include "tensors/view.hpp"

namespace bp::core {

struct Device;
class Error;

namespace fusion {

class Group {
 public:
  Group(Device &device, int32_t rank, const int64_t *shape);
  // Clears the pending mark of every storage still carrying this group.
  ~Group();
  Group(const Group &) = delete;
  Group &operator=(const Group &) = delete;

  // Whether an operator of this shape reading `inputs` fits in the group:
  // room for one more instruction, its new inputs and one more result held
  // outside, and each input that is a result of the group read whole.
  bool can_take(int32_t rank, const int64_t *shape, std::initializer_list<const View *> inputs) const;

  // Appends the operator (can_take said yes) and returns its deferred result.
  View append(int32_t op, int32_t dtype, int32_t out_dtype, const bp_op_attrs &attrs,
              std::initializer_list<const View *> inputs);

  // Computes every result someone other than the group still holds. On
  // failure those results keep the error (failed_marker) and it is thrown.
  void run(Group *failed_marker);

  Device &device() const { return *device_; }
  int32_t size() const { return int32_t(instrs_.size()); }

 private:
  // An operand: >= 0 the result of that instruction, < 0 input -1 - ref.
  struct Instr {
    int32_t op, dtype, out_dtype, scalar_mode;
    double scalar;
    int32_t arity;
    int32_t refs[3];
    StorageRef result;
  };
  enum : int32_t { kUnusable = INT32_MIN, kNewInput = INT32_MIN + 1 };
  // The whole group as a bp_fused_program numbers its values (input i is
  // value i, instruction k is value n_inputs + k), its outputs the results
  // someone holds, and which values are computed: the SDK's liveness
  // (backplane/sdk/fused.h), the one every backend applies to the programs
  // it is given.
  struct Program {
    int32_t n_inputs = 0;
    std::vector<bp_fused_instr> code;
    std::vector<int32_t> output_values;
    std::vector<uint8_t> live;  // per value
    bool instr_live(size_t k) const { return live[size_t(n_inputs) + k] != 0; }
  };

  int32_t operand(const View &v) const;
  bool whole(const View &v) const;
  int32_t held_results() const;
  std::string op_list() const;
  // The group's program, `needed` saying which results are its outputs.
  Program program(const std::vector<bool> &needed) const;
  // Runs the live instructions; true when the backend ran them as one program.
  bool execute(const std::vector<bool> &needed, const Program &program, std::string &why_not);
  void run_op_by_op(const std::vector<bool> &needed, const Program &program);
  void plugin_view(const View &v, bp_plugin_tensor &t) const;
  void result_view(const Instr &in, bp_plugin_tensor &t) const;
  void trace(const std::vector<bool> &needed, const Program &program, bool fused, const std::string &why_not) const;

  Device *device_;
  int32_t rank_;
  int64_t shape_[BP_MAX_RANK] = {};
  int64_t strides_[BP_MAX_RANK] = {};
  std::vector<View> inputs_;
  std::vector<Instr> instrs_;
};

}  // namespace fusion
}  // namespace bp::core
