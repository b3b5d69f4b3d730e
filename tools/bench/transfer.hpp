// transfer.hpp — the "transfer" figure's bandwidth rows of one device
// (transfer_rows.cpp): bp_from_host_into, bp_from_host and bp_to_host next
// to the baselines a caller makes for that device. bp makes memcpy ones for
// host-memory devices (fig_transfer.cpp); bp-bench-direct the OpenCL calls
// made directly for OpenCL devices (transfer_opencl.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "bench.hpp"

namespace bptool::bench {

struct TransferBaselines {
  // Into an existing buffer (next to bp_from_host_into), into a new one
  // (next to bp_from_host) and back to the host (next to bp_to_host); up
  // unset: there is no baseline, and `why` says so.
  Work up, up_new, down;
  std::string name_up, name_up_new, name_down;
  std::string why;
};

// The baselines for copies of `bytes` from `src`, which outlives them.
using TransferBaselineMaker = std::function<TransferBaselines(size_t bytes, const float *src)>;

void bandwidth_rows(Context &ctx, Report &rep, const bp::Device &d, const TransferBaselineMaker &make);

}  // namespace bptool::bench
