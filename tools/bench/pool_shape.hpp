// pool_shape.hpp — the pooling layers the pool figure times, shared by
// bp bench and bp-bench-torch so both sides run the same work: ResNet-18's
// stem max pooling (3x3, stride 2, padding 1 over [32, 64, 112, 112]), a 3x3
// stride-1 average pooling as in Inception's branches ([32, 64, 56, 56],
// padding 1, the padding counted as torch's default), and the global average
// pooling before ResNet's classifier ([32, 512, 7, 7]); --quick takes a
// batch of 4.
#pragma once

#include <cstdint>
#include <string>

namespace bptool::bench {

struct PoolLayer {
  const char *name;  // "max_pool2d" (bp-bench-torch's --measure, with "_train" for forward and backward)
  bool max;
  int64_t channels, size, kernel, stride, padding;  // square windows over [batch, channels, size, size]
};

inline constexpr PoolLayer kPoolLayers[] = {
    {"max_pool2d", true, 64, 112, 3, 2, 1},
    {"avg_pool2d", false, 64, 56, 3, 1, 1},
    {"global_avg_pool2d", false, 512, 7, 7, 7, 0},
};

inline constexpr int64_t kPoolBatch = 32, kPoolQuickBatch = 4;

}  // namespace bptool::bench
