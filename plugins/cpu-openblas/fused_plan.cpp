#include "fused_plan.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "backplane/kernels/op_table.h"
#include "dtype.hpp"
#include "fused_pairs.hpp"
#include "memory_pool.hpp"
#include "parallel.hpp"

namespace cpu_backend {

namespace {

template <class T>
void load_runs(const Layout<1> &layout, const char *base, void *dst, int64_t begin, int64_t end) {
  const T *src = reinterpret_cast<const T *>(base);
  T *tile = static_cast<T *>(dst);
  const int64_t stride = layout.inner_stride(0);
  walk(layout, begin, end, [&](const int64_t *off, int64_t n, int64_t pos) {
    T *__restrict o = tile + (pos - begin);
    const T *__restrict x = src + off[0];
    if (stride == 1) {
      std::memcpy(o, x, static_cast<size_t>(n) * sizeof(T));
    } else if (stride == 0) {
      const T v = *x;
      for (int64_t i = 0; i < n; ++i) o[i] = v;
    } else {
      for (int64_t i = 0; i < n; ++i) o[i] = x[i * stride];
    }
  });
}

FusedGather::Loader loader_for(int32_t dtype) {
  FusedGather::Loader load = nullptr;
  dispatch_set<BP_DTYPE_SET_ALL>(dtype, [&](auto tag) { load = load_runs<typename decltype(tag)::type>; });
  return load;
}

// What one element of `op` costs, in parallel_for's units: op_table.h's
// cost column.
int64_t cost_of(int32_t op) {
  switch (op) {
#define BP_CPU_COST_(id, functor, cost, ...) \
  case BP_OP_##id: return k##cost;
    BP_KERNEL_UNARY_OPS(BP_CPU_COST_)
    BP_KERNEL_BINARY_OPS(BP_CPU_COST_)
#undef BP_CPU_COST_
    default: return kCheap;
  }
}

char *data_of(const bp_plugin_tensor &t) { return t.buffer ? t.buffer->data() + t.offset : nullptr; }

// Conservative: check_fused lets an output share a buffer with an input only
// as the very same view or without overlap; either way such an output is
// written at the end of the tile, after every instruction has read it.
bool shares_input_buffer(const bp_fused_program &p, int32_t output) {
  for (int32_t i = 0; i < p.n_inputs; ++i)
    if (p.inputs[i].buffer == p.outputs[output].buffer) return true;
  return false;
}

// Tile buffers handed out in instruction order and taken back after the
// last instruction that reads their value (never before the instruction
// that writes a new value has read its operands, so no loop reads and
// writes one buffer).
class Slots {
 public:
  explicit Slots(const int32_t *last_use) : last_use_(last_use) {}

  int32_t take(int32_t value) {
    int32_t s = 0;
    while (s < count_ && owner_[s] >= 0) ++s;
    if (s == count_) ++count_;
    owner_[s] = value;
    return s;
  }
  void release_read_before(int32_t instr) {
    for (int32_t s = 0; s < count_; ++s)
      if (owner_[s] >= 0 && last_use_[owner_[s]] < instr) owner_[s] = -1;
  }
  int32_t count() const { return count_; }

 private:
  const int32_t *last_use_;
  int32_t owner_[kFusedMaxValues];
  int32_t count_ = 0;
};

}  // namespace

void plan_fused(const bp_fused_program &p, FusedPlan &plan) {
  const int32_t n_in = p.n_inputs;
  // A value matters when an output takes it or an instruction that matters
  // reads it (bp_sdk_fused_live); last_use is the last such instruction, or
  // n_instrs for a value an output copies at the end of the tile.
  static_assert(kFusedMaxValues <= BP_SDK_FUSED_MAX_VALUES, "values bp_sdk_fused_live marks");
  uint8_t live[kFusedMaxValues];
  bp_sdk_fused_live(&p, live);
  int32_t last_use[kFusedMaxValues];
  std::fill(last_use, last_use + kFusedMaxValues, -1);
  for (int32_t k = 0; k < p.n_instrs; ++k) {
    if (!live[n_in + k]) continue;
    for (int32_t a : p.instrs[k].args)
      if (a >= 0) last_use[a] = k;
  }

  // An instruction computes straight into the first output that takes its
  // value; every other output is a copy.
  int32_t computed_into[kFusedMaxValues];
  std::fill(computed_into, computed_into + kFusedMaxValues, -1);
  bool in_place = false;
  for (int32_t j = 0; j < p.n_outputs; ++j) {
    const int32_t v = p.output_values[j];
    const int64_t size = dtype_size(p.outputs[j].dtype);
    const bool shares = shares_input_buffer(p, j);
    in_place = in_place || shares;
    if (v >= n_in && computed_into[v] < 0 && !shares) {
      computed_into[v] = j;
      plan.homes[plan.n_homes++] = {v, -1, data_of(p.outputs[j]), size};
    } else {
      plan.copies[plan.n_copies++] = {data_of(p.outputs[j]), size, v};
      last_use[v] = p.n_instrs;
    }
  }

  // An input that an output copies is read from its tile buffer when some
  // output is in place: the copies of a tile run one after another, and an
  // earlier one may already have overwritten the input's own elements.
  Slots slots(last_use);
  for (int32_t i = 0; i < n_in; ++i) {
    if (!live[i]) continue;
    const bp_plugin_tensor &t = p.inputs[i];
    const Layout<1> layout = make_layout<1>(t.rank, t.shape, {t.strides});
    if (layout.rank == 1 && layout.inner_stride(0) == 1 && !(in_place && last_use[i] == p.n_instrs)) {
      plan.homes[plan.n_homes++] = {i, -1, data_of(t), dtype_size(t.dtype)};
    } else {
      plan.homes[plan.n_homes++] = {i, slots.take(i), nullptr, 0};
      plan.gathers[plan.n_gathers++] = {loader_for(t.dtype), i, data_of(t), layout};
    }
  }

  for (int32_t k = 0; k < p.n_instrs; ++k) {
    if (!live[n_in + k]) continue;
    const bp_fused_instr &in = p.instrs[k];
    FusedStep &step = plan.steps[plan.n_steps++];
    std::memset(step.scalars, 0, sizeof step.scalars);
    if (in.scalar_mode != BP_SCALAR_NONE) fused_scalar(in, step.scalars[0]);
    plan.cost += cost_of(in.op);
    slots.release_read_before(k);
    // The next instruction that matters, when it is the only reader of this
    // one's value and the two make a pair, is computed with it.
    int32_t next = k + 1;
    while (next < p.n_instrs && !live[n_in + next]) ++next;
    FusedKernel pair = nullptr;
    if (next < p.n_instrs && last_use[n_in + k] == next && computed_into[n_in + k] < 0 &&
        p.instrs[next].args[0] == n_in + k)
      pair = fused_pair_kernel(in, p.instrs[next]);
    if (pair) {
      const bp_fused_instr &second = p.instrs[next];
      step.kernel = pair;
      step.args[0] = in.args[0];
      step.args[1] = -1;
      step.args[2] = -2;
      if (second.scalar_mode != BP_SCALAR_NONE) fused_scalar(second, step.scalars[1]);
      plan.cost += cost_of(second.op);
      k = next;
    } else {
      step.kernel = fused_kernel(in);
      std::copy(in.args, in.args + 3, step.args);
      // The one operand of a scalar LHS instruction is the kernel's second.
      if (in.scalar_mode == BP_SCALAR_LHS) std::swap(step.args[0], step.args[1]);
    }
    step.dst = n_in + k;
    if (computed_into[step.dst] < 0) plan.homes[plan.n_homes++] = {step.dst, slots.take(step.dst), nullptr, 0};
  }

  plan.n_slots = slots.count();
  const int64_t fit = kFusedScratchBytes / (std::max<int32_t>(1, plan.n_slots) * kFusedSlotElementBytes);
  plan.tile = std::min(kFusedMaxTile, fit / 64 * 64);
  plan.cost = std::max<int64_t>(plan.cost, kCheap);
}

}  // namespace cpu_backend
