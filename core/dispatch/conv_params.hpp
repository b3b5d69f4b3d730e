// The window of a convolution as the core's operators take it (the C API's
// bp_conv_options after validation): per spatial axis stride, dilation and
// padding before and after, and the channel groups. Axes past the
// operands' spatial rank are unused.
#pragma once

#include <cstdint>

#include "backplane/plugin.h"

namespace bp::core {

struct ConvParams {
  int32_t groups = 1;
  int64_t stride[BP_WINDOW_MAX_RANK] = {1, 1, 1};
  int64_t dilation[BP_WINDOW_MAX_RANK] = {1, 1, 1};
  int64_t pad_begin[BP_WINDOW_MAX_RANK] = {};
  int64_t pad_end[BP_WINDOW_MAX_RANK] = {};
};

}  // namespace bp::core
