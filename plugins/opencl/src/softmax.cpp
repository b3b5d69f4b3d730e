// softmax.cpp — SOFTMAX and LOG_SOFTMAX along the last axis of the views
// (the core has moved the caller's axis there). One work-group per row:
// its work-items share the row's maximum and sum in local memory
// (softmax.cl), so long rows run in parallel and many rows fill the device.
#include "softmax_source.hpp"

#include <algorithm>

#include "embedded_texts.hpp"
#include "ops.hpp"

namespace bp_ocl {

std::string softmax_source() {
  return "#define BP_SOFTMAX_GROUP_MAX " + std::to_string(kSoftmaxGroupMax) + "\n" + kSoftmaxCl;
}

void run_softmax(Device &device, const Device::Lock &lock, int32_t op, const View &in, const View &out) {
  if (out.numel == 0) return;
  const ClRowsLayout L = rows_layout(in, out);  // rank >= 1 (execute checked)
  const Kernel &k = device.kernel(lock, Family::Softmax, in.dtype, kernel_stem(op));
  // Work-items per row: enough to share long rows, one for short ones; a
  // power of two for the tree, and only three sizes, since PoCL compiles a
  // work-group function per local size.
  size_t local = L.len >= 1024 ? kSoftmaxGroupMax : L.len >= 32 ? 16 : 1;
  while (local > k.max_work_group) local /= 2;
  const size_t max_items = size_t{4096} * device.info().compute_units;
  const size_t groups = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(L.n_rows), max_items / local));
  device.launch(lock, k, groups * local, local, {out.mem, in.mem, L});
}

}  // namespace bp_ocl
