// A pooling window as the core's callers give it: the plugin's
// bp_window_params (kernel, stride, dilation, padding before and after each
// spatial axis, the count-include-pad flag) and whether the output extents
// round up (ceil mode), which the plugin sees only in the extents.
#pragma once

#include <cstdint>

#include "backplane/plugin.h"

namespace bp::core {

struct PoolWindow {
  bp_window_params params{};  // spatial_rank and the arrays; groups and struct_size are the core's
  bool ceil_mode = false;
};

// The pooled shape of an input of rank/shape ([N, C, S...]) under `window`
// for `op` (a POOL operator), into out_shape: PyTorch's checks first, each an
// Error naming the operator (BP_ERR_INVALID_ARGUMENT for a kernel, stride or
// dilation below 1 or a negative padding; BP_ERR_SHAPE for an input that is
// not [N, C, S...], a padding over half the kernel, a window larger than the
// padded input or, for MAX_POOL, a window that covers only padding).
void pool_shape(int32_t op, int32_t rank, const int64_t *shape, const PoolWindow &window, int64_t *out_shape);

}  // namespace bp::core
