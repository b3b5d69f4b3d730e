#include "fused.hpp"

#include <algorithm>
#include <cstring>

#include "backend.hpp"
#include "dtype.hpp"
#include "errors.hpp"
#include "execute.hpp"
#include "fused_plan.hpp"
#include "ops.hpp"
#include "parallel.hpp"
#include "view.hpp"

namespace cpu_backend {

namespace {

// The tiles of [begin, end), one after another: the inputs that need it
// copied into their tile buffers, then every instruction over the whole
// tile, then the outputs that are copies. Every value of a tile stays in
// cache between the instruction that writes it and those that read it.
__attribute__((noinline)) void run_tiles(const FusedPlan &plan, int64_t begin, int64_t end) {
  alignas(64) unsigned char scratch[kFusedScratchBytes];
  const int64_t slot_bytes = plan.tile * kFusedSlotElementBytes;
  void *at[kFusedMaxValues];
  for (int64_t tb = begin; tb < end; tb += plan.tile) {
    const int64_t n = std::min(plan.tile, end - tb);
    for (int32_t h = 0; h < plan.n_homes; ++h) {
      const FusedHome &home = plan.homes[h];
      at[home.value] = home.slot >= 0 ? static_cast<void *>(scratch + home.slot * slot_bytes)
                                      : static_cast<void *>(home.base + tb * home.element_bytes);
    }
    for (int32_t g = 0; g < plan.n_gathers; ++g) {
      const FusedGather &gather = plan.gathers[g];
      gather.load(gather.layout, gather.base, at[gather.value], tb, tb + n);
    }
    for (int32_t s = 0; s < plan.n_steps; ++s) {
      const FusedStep &step = plan.steps[s];
      const void *args[3];
      for (int i = 0; i < 3; ++i) args[i] = step.args[i] >= 0 ? at[step.args[i]] : step.scalars[-1 - step.args[i]];
      step.kernel(n, at[step.dst], args[0], args[1], args[2]);
    }
    for (int32_t c = 0; c < plan.n_copies; ++c) {
      const FusedCopy &copy = plan.copies[c];
      char *dst = copy.base + tb * copy.element_bytes;
      // An output in place on the input it takes unchanged needs nothing.
      if (dst != at[copy.value]) std::memcpy(dst, at[copy.value], static_cast<size_t>(n * copy.element_bytes));
    }
  }
}

}  // namespace

void execute_fused_program(int32_t device, const bp_fused_program *program) {
  require_started();
  check_device(device);
  const bp_plugin::FusedInfo info = bp_plugin::check_fused(program, live_buffer_bytes, nullptr);
  bp_plugin::require_fused_supported(*program, "cpu-openblas", op_supports);
  FusedPlan plan;
  plan_fused(*program, plan);
  if (info.numel == 0) return;
  parallel_for(*g_backend.pool, info.numel, plan.cost,
               [&](int64_t begin, int64_t end) { run_tiles(plan, begin, end); });
}

}  // namespace cpu_backend
