#include "fusion/group.hpp"

#include <algorithm>
#include <new>

#include "backplane/sdk/fused.h"
#include "devices/registry.hpp"
#include "dispatch/op_support.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "loader/backend.hpp"
#include "trace/trace.hpp"

namespace bp::core::fusion {

namespace {

bool same_view(const View &a, const View &b) {
  if (a.storage.get() != b.storage.get() || a.offset != b.offset || a.dtype != b.dtype || a.rank != b.rank)
    return false;
  for (int32_t d = 0; d < a.rank; ++d)
    if (a.shape[d] != b.shape[d] || a.strides[d] != b.strides[d]) return false;
  return true;
}

}  // namespace

Group::Group(Device &device, int32_t rank, const int64_t *shape) : device_(&device), rank_(rank) {
  std::copy(shape, shape + rank, shape_);
  dense_strides(rank, shape_, strides_);
}

Group::~Group() {
  for (const View &v : inputs_)
    if (v.storage->pending() == this) v.storage->set_pending(nullptr);
  for (const Instr &in : instrs_)
    if (in.result->pending() == this) in.result->set_pending(nullptr);
}

bool Group::whole(const View &v) const {
  if (v.offset != 0 || v.rank != rank_) return false;
  for (int32_t d = 0; d < rank_; ++d)
    if (v.shape[d] != shape_[d] || (shape_[d] > 1 && v.strides[d] != strides_[d])) return false;
  return true;
}

int32_t Group::operand(const View &v) const {
  if (v.storage->pending() == this)
    for (size_t k = 0; k < instrs_.size(); ++k)
      if (instrs_[k].result.get() == v.storage.get()) return whole(v) ? int32_t(k) : kUnusable;
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (same_view(inputs_[i], v)) return -1 - int32_t(i);
  return kNewInput;
}

int32_t Group::held_results() const {
  int32_t held = 0;
  for (const Instr &in : instrs_) held += in.result->use_count() > 1;
  return held;
}

bool Group::can_take(int32_t rank, const int64_t *shape, std::initializer_list<const View *> inputs) const {
  if (rank != rank_ || !std::equal(shape, shape + rank, shape_)) return false;
  // The new result is held by its caller: it needs an output slot too.
  if (instrs_.size() >= BP_FUSED_MAX_INSTRS || held_results() >= BP_FUSED_MAX_OUTPUTS) return false;
  size_t new_inputs = 0;
  for (const View *v : inputs) {
    const int32_t r = operand(*v);
    if (r == kUnusable) return false;
    new_inputs += r == kNewInput;
  }
  return inputs_.size() + new_inputs <= BP_FUSED_MAX_INPUTS;
}

View Group::append(int32_t op, int32_t dtype, int32_t out_dtype, const bp_op_attrs &attrs,
                   std::initializer_list<const View *> inputs) {
  Instr in{};
  in.op = op;
  in.dtype = dtype;
  in.out_dtype = out_dtype;
  in.scalar_mode = attrs.scalar_mode;
  in.scalar = attrs.scalar_mode != BP_SCALAR_NONE ? attrs.scalar : 0.0;
  in.arity = int32_t(inputs.size());
  int32_t j = 0;
  for (const View *v : inputs) {
    int32_t r = operand(*v);
    if (r == kNewInput) {
      inputs_.push_back(*v);
      if (!v->storage->pending()) v->storage->set_pending(this);
      r = -int32_t(inputs_.size());
    }
    in.refs[j++] = r;
  }
  int64_t numel = 1;
  for (int32_t d = 0; d < rank_; ++d) numel *= shape_[d];
  in.result = StorageRef(Storage::deferred(*device_, uint64_t(numel) * uint64_t(dtype_size(out_dtype)), this));
  View out(in.result, out_dtype, rank_, shape_);
  instrs_.push_back(std::move(in));
  return out;
}

Group::Program Group::program(const std::vector<bool> &needed) const {
  Program p;
  p.n_inputs = int32_t(inputs_.size());
  for (size_t k = 0; k < instrs_.size(); ++k) {
    const Instr &in = instrs_[k];
    bp_fused_instr c{};
    c.op = in.op;
    c.dtype = in.dtype;
    c.out_dtype = in.out_dtype;
    c.scalar_mode = in.scalar_mode;
    c.scalar = in.scalar;
    for (int32_t j = 0; j < 3; ++j)
      c.args[j] = j >= in.arity ? -1 : in.refs[j] >= 0 ? p.n_inputs + in.refs[j] : -1 - in.refs[j];
    p.code.push_back(c);
    if (needed[k]) p.output_values.push_back(p.n_inputs + int32_t(k));
  }
  bp_fused_program whole{};
  whole.struct_size = sizeof whole;
  whole.n_inputs = p.n_inputs;
  whole.n_instrs = int32_t(p.code.size());
  whole.n_outputs = int32_t(p.output_values.size());
  whole.instrs = p.code.data();
  whole.output_values = p.output_values.data();
  p.live.resize(size_t(whole.n_inputs + whole.n_instrs));
  bp_sdk_fused_live(&whole, p.live.data());
  return p;
}

void Group::plugin_view(const View &v, bp_plugin_tensor &t) const {
  // Inputs were materialised before they joined (their pending mark is this
  // group's, not a deferred result's), so their buffer is final.
  t.buffer = v.storage->raw_buffer();
  broadcast_geometry(v, rank_, shape_, t);
}

void Group::result_view(const Instr &in, bp_plugin_tensor &t) const {
  t = bp_plugin_tensor{};
  t.buffer = in.result->raw_buffer();
  t.dtype = in.out_dtype;
  t.rank = rank_;
  std::copy(shape_, shape_ + rank_, t.shape);
  std::copy(strides_, strides_ + rank_, t.strides);
}

std::string Group::op_list() const {
  std::string list;
  for (const Instr &in : instrs_) list += (list.empty() ? "" : ", ") + std::string(op_name(in.op));
  return list;
}

bool Group::execute(const std::vector<bool> &needed, const Program &program, std::string &why_not) {
  Backend &b = *device_->backend;
  const auto execute_fused = b.optional(&bp_plugin_api::execute_fused);
  if (!execute_fused) {
    why_not = "backend " + b.name() + " has no execute_fused";
    run_op_by_op(needed, program);
    return false;
  }
  size_t computed = 0;
  for (size_t k = 0; k < instrs_.size(); ++k) computed += program.instr_live(k);
  if (computed == 1) {
    // Nothing to fuse: the backend's own kernel for the operator is at
    // least as fast as a program of one instruction.
    why_not = "one operator, nothing to fuse";
    run_op_by_op(needed, program);
    return false;
  }
  // The program the backend gets holds the live values alone, renumbered:
  // the inputs in the order the live instructions first read them, then
  // the live instructions.
  std::vector<int32_t> value(program.live.size(), -1);
  std::vector<bp_plugin_tensor> inputs, outputs;
  for (size_t k = 0; k < instrs_.size(); ++k)
    for (int32_t j = 0; program.instr_live(k) && j < 3; ++j)
      if (const int32_t a = program.code[k].args[j]; a >= 0 && a < program.n_inputs && value[size_t(a)] < 0) {
        value[size_t(a)] = int32_t(inputs.size());
        inputs.emplace_back();
        plugin_view(inputs_[size_t(a)], inputs.back());
      }
  std::vector<bp_fused_instr> code;
  std::vector<int32_t> output_values;
  for (size_t k = 0; k < instrs_.size(); ++k) {
    if (!program.instr_live(k)) continue;
    bp_fused_instr c = program.code[k];
    for (int32_t &a : c.args)
      if (a >= 0) a = value[size_t(a)];
    value[size_t(program.n_inputs) + k] = int32_t(inputs.size() + code.size());
    code.push_back(c);
    if (needed[k]) {
      outputs.emplace_back();
      result_view(instrs_[k], outputs.back());
      output_values.push_back(value[size_t(program.n_inputs) + k]);
    }
  }
  bp_fused_program p{};
  p.struct_size = sizeof p;
  p.n_inputs = int32_t(inputs.size());
  p.n_instrs = int32_t(code.size());
  p.n_outputs = int32_t(outputs.size());
  p.inputs = inputs.data();
  p.instrs = code.data();
  p.outputs = outputs.data();
  p.output_values = output_values.data();
  bp_status s;
  Backend::Failure f{};
  {
    auto lock = b.call_lock();
    s = execute_fused(device_->index, &p);
    if (s != BP_OK) f = b.failure(s);
  }
  if (s == BP_ERR_UNSUPPORTED) {
    why_not = "backend " + b.name() + " declined the program: " + f.message;
    run_op_by_op(needed, program);
    return false;
  }
  if (s != BP_OK) fail(f.status, "backend " + b.name() + ": execute_fused failed (" + f.code + "): " + f.message);
  b.counters.ops.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void Group::run_op_by_op(const std::vector<bool> &needed, const Program &program) {
  for (size_t k = 0; k < instrs_.size(); ++k)
    if (program.instr_live(k) && !needed[k]) instrs_[k].result->allocate_memory();
  for (size_t k = 0; k < instrs_.size(); ++k) {
    if (!program.instr_live(k)) continue;
    const Instr &in = instrs_[k];
    bp_plugin_tensor operands[3], out;
    for (int32_t j = 0; j < in.arity; ++j) {
      if (in.refs[j] >= 0) result_view(instrs_[size_t(in.refs[j])], operands[j]);
      else plugin_view(inputs_[size_t(-1 - in.refs[j])], operands[j]);
    }
    result_view(in, out);
    bp_op_attrs attrs = make_attrs();
    attrs.scalar_mode = in.scalar_mode;
    attrs.scalar = in.scalar;
    core::run(*device_, in.op, in.dtype, in.out_dtype, attrs, operands, in.arity, out);
  }
}

void Group::trace(const std::vector<bool> &needed, const Program &program, bool fused,
                  const std::string &why_not) const {
  const auto written = std::count(needed.begin(), needed.end(), true);
  long computed = 0;
  for (size_t k = 0; k < instrs_.size(); ++k) computed += program.instr_live(k);
  // Op by op, every computed result was allocated (the ones nobody holds only
  // for the run).
  const auto materialised = fused ? written : computed;
  std::string line = "fused group " + std::string(dtype_name(instrs_.front().out_dtype)) + " " +
                     shape_string(rank_, shape_) + " on " + device_->name + ": " + op_list() + "; " +
                     std::to_string(inputs_.size()) + " input(s), " + std::to_string(written) + " of " +
                     std::to_string(instrs_.size()) + " result(s) written, " +
                     std::to_string(long(instrs_.size()) - materialised) + " never materialised";
  if (computed < long(instrs_.size()))
    line += " (" + std::to_string(long(instrs_.size()) - computed) + " not computed: nobody needs them)";
  if (written == 0) line += ", nothing ran";
  else if (fused) line += ", ran on backend " + device_->backend->name() + " as one program (execute_fused)";
  else line += ", ran operator by operator: " + why_not;
  trace::record(std::move(line));
}

void Group::run(Group *failed_marker) {
  std::vector<bool> needed(instrs_.size());
  for (size_t k = 0; k < instrs_.size(); ++k) needed[k] = instrs_[k].result->use_count() > 1;
  const Program whole = program(needed);
  bool fused = false;
  std::string why_not;
  try {
    if (std::find(needed.begin(), needed.end(), true) != needed.end()) {
      for (size_t k = 0; k < instrs_.size(); ++k)
        if (needed[k]) instrs_[k].result->allocate_memory();
      fused = execute(needed, whole, why_not);
    }
  } catch (...) {
    std::shared_ptr<Error> error;
    try {
      throw;
    } catch (const Error &e) {
      error = std::make_shared<Error>(e.status(), "fused group (" + op_list() + ") on " + device_->name + ": " + e.what());
    } catch (const std::bad_alloc &) {
      error = std::make_shared<Error>(BP_ERR_OUT_OF_MEMORY,
                                      "fused group (" + op_list() + ") on " + device_->name + ": out of host memory");
    } catch (const std::exception &e) {
      error = std::make_shared<Error>(BP_ERR_INTERNAL,
                                      "fused group (" + op_list() + ") on " + device_->name + ": " + e.what());
    } catch (...) {
      error = std::make_shared<Error>(BP_ERR_INTERNAL,
                                      "fused group (" + op_list() + ") on " + device_->name + ": an unknown exception");
    }
    error->op = op_name(instrs_.front().op);
    error->devices = {device_->id};
    for (size_t k = 0; k < instrs_.size(); ++k)
      if (needed[k]) instrs_[k].result->fail_with(error, failed_marker);
    throw Error(*error);
  }
  for (size_t k = 0; k < instrs_.size(); ++k)
    if (needed[k]) instrs_[k].result->set_pending(nullptr);
  if (trace::on()) trace(needed, whole, fused, why_not);
}

}  // namespace bp::core::fusion
