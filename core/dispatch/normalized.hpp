// What a normalisation returns (LAYER_NORM, RMS_NORM): y, and the mean and
// rstd when they were asked for (else empty views). Its own header because
// the composites see it through the recording layer, which must not show
// them the raw operators.
#pragma once

#include "tensors/view.hpp"

namespace bp::core {

struct Normalized {
  View y, mean, rstd;
};

}  // namespace bp::core
