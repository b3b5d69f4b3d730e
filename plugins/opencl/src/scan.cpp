// scan.cpp — CUMSUM along the last axis of the views (the core has moved the
// caller's axis there). One work-item per row: rows are independent, and a
// row's running sum is sequential anyway.
#include "ops.hpp"

namespace bp_ocl {

void run_scan(Device &device, const Device::Lock &lock, int32_t op, const View &in,
              const View &out) {
  if (out.numel == 0) return;
  const int last = out.rank - 1;  // rank >= 1 (execute checked)
  ClScanLayout L{};
  for (int d = 0; d < last; ++d) {
    if (out.shape[d] == 1) continue;  // its strides never matter
    L.row_shape[L.row_rank] = out.shape[d];
    L.row_in[L.row_rank] = in.strides[d];
    L.row_out[L.row_rank] = out.strides[d];
    ++L.row_rank;
  }
  L.in_offset = in.offset;
  L.out_offset = out.offset;
  L.len = out.shape[last];
  L.n_rows = out.numel / L.len;
  L.in_step = in.strides[last];
  L.out_step = out.strides[last];
  const Kernel &k = device.kernel(lock, Family::Scan, in.dtype, kernel_stem(op));
  device.launch_elements(lock, k, L.n_rows, {out.mem, in.mem, L});
}

}  // namespace bp_ocl
