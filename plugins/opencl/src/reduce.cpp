// reduce.cpp — SUM, MEAN, NORM, PROD, LOGSUMEXP, MAX, MIN, ARGMAX, ARGMIN.
// One work-group per output element (a grid-stride loop when there are more
// outputs than groups); its work-items share the reduced elements and
// combine them in local memory, so a full reduction still runs in parallel.
#include <algorithm>
#include <string>

#include "ops.hpp"

namespace bp_ocl {

namespace {

// Appends one axis with its input stride (and output stride, for kept axes;
// `out` is NULL for reduced ones), merged into the previous axis when the
// strides allow. Merging keeps the C order of the walk, so ARGMAX/ARGMIN positions
// do not change.
void push_axis(cl_long *shape, cl_long *in, cl_long *out, cl_long &rank, int64_t extent,
               int64_t in_stride, int64_t out_stride) {
  const bool merge = rank > 0 && in[rank - 1] == in_stride * extent &&
                     (!out || out[rank - 1] == out_stride * extent);
  const cl_long at = merge ? rank - 1 : rank++;
  shape[at] = merge ? shape[at] * extent : extent;
  in[at] = in_stride;
  if (out) out[at] = out_stride;
}

ClReduceLayout reduce_layout(const View &in, const View &out) {
  ClReduceLayout L{};
  L.in_offset = in.offset;
  L.out_offset = out.offset;
  L.n_out = 1;
  L.n_red = 1;
  for (int d = 0; d < in.rank; ++d) {
    const int64_t extent = in.shape[d];
    if (out.shape[d] == extent) {
      if (extent == 1) continue;  // kept and reduced at once: irrelevant
      push_axis(L.keep_shape, L.keep_in, L.keep_out, L.keep_rank, extent, in.strides[d],
                out.strides[d]);
      L.n_out *= extent;
    } else {  // out.shape[d] == 1: reduced (execute checked)
      push_axis(L.red_shape, L.red_in, nullptr, L.red_rank, extent, in.strides[d], 0);
      L.n_red *= extent;
    }
  }
  return L;
}

}  // namespace

void run_reduce(Device &device, const Device::Lock &lock, int32_t op, const View &in,
                const View &out) {
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
  device.launch(lock, k, groups * local, local, {out.mem, in.mem, L});
}

}  // namespace bp_ocl
