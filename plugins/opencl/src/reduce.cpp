// reduce.cpp — SUM, MEAN, NORM, PROD, LOGSUMEXP, MAX, MIN, ARGMAX, ARGMIN, VAR.
// One work-group per output element (a grid-stride loop when there are more
// outputs than groups); its work-items share the reduced elements and
// combine them in local memory, so a full reduction still runs in parallel.
#include <algorithm>
#include <string>

#include "backplane/sdk/coalesce.h"
#include "ops.hpp"

namespace bp_ocl {

namespace {

ClReduceLayout reduce_layout(const View &in, const View &out) {
  ClReduceLayout L{};
  L.in_offset = in.offset;
  L.out_offset = out.offset;
  L.n_out = 1;
  L.n_red = 1;
  // Coalesced (bp_sdk_push_axis), which keeps the C order of the walk, so
  // ARGMAX/ARGMIN positions do not change.
  int32_t keep_rank = 0, red_rank = 0;
  cl_long *const keep_strides[2] = {L.keep_in, L.keep_out};
  cl_long *const red_strides[1] = {L.red_in};
  for (int d = 0; d < in.rank; ++d) {
    const int64_t extent = in.shape[d];
    if (out.shape[d] == extent) {
      const int64_t strides[2] = {in.strides[d], out.strides[d]};
      bp_sdk_push_axis(&keep_rank, L.keep_shape, keep_strides, 2, extent, strides);
      L.n_out *= extent;
    } else {  // out.shape[d] == 1: reduced (execute checked)
      bp_sdk_push_axis(&red_rank, L.red_shape, red_strides, 1, extent, &in.strides[d]);
      L.n_red *= extent;
    }
  }
  L.keep_rank = keep_rank;
  L.red_rank = red_rank;
  return L;
}

}  // namespace

void run_reduce(Device &device, const Device::Lock &lock, int32_t op, const bp_plugin::Attrs &attrs,
                const View &in, const View &out) {
  const ClReduceLayout L = reduce_layout(in, out);
  if (L.n_out == 0) return;
  const Kernel &k = device.kernel(lock, Family::Reduce, in.dtype, kernel_stem(op));
  // Work-items per output: enough to share long reductions, few for short
  // ones; a power of two for the tree; only three sizes, since PoCL compiles
  // a work-group function per local size.
  size_t local = L.n_red >= 4096 ? kReduceGroupMax : L.n_red >= 64 ? 16 : 1;
  while (local > k.max_work_group) local /= 2;
  const size_t max_items = size_t{4096} * device.info().compute_units;
  const size_t groups =
      std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(L.n_out), max_items / local));
  if (op == BP_OP_VAR) {
    const cl_long correction = static_cast<cl_long>(attrs.scalar);
    return device.launch(lock, k, groups * local, local, {out.mem, in.mem, L, correction});
  }
  device.launch(lock, k, groups * local, local, {out.mem, in.mem, L});
}

}  // namespace bp_ocl
