// training_shape.hpp — the network the training figure times, shared by
// bp bench and bp-bench-torch so both sides run the same step: an MLP of
// 784-256-10 (MNIST-sized) on batches of 256, cross-entropy loss, SGD.
#pragma once

#include <cstdint>

namespace bptool::bench {

inline constexpr int64_t kTrainInputs = 784, kTrainHidden = 256, kTrainClasses = 10, kTrainBatch = 256;

}  // namespace bptool::bench
