// scan.cpp — CUMSUM along the last axis of the views (the core has moved the
// caller's axis there). One work-item per row: rows are independent, and a
// row's running sum is sequential anyway.
#include "ops.hpp"

namespace bp_ocl {

void run_scan(Device &device, const Device::Lock &lock, int32_t op, const View &in,
              const View &out) {
  if (out.numel == 0) return;
  const ClRowsLayout L = rows_layout(in, out);  // rank >= 1 (execute checked)
  const Kernel &k = device.kernel(lock, Family::Scan, in.dtype, kernel_stem(op));
  device.launch_elements(lock, k, L.n_rows, {out.mem, in.mem, L});
}

}  // namespace bp_ocl
