// training_shape.hpp — the networks the training figures time, shared by
// bp bench and bp-bench-torch so both sides run the same step.
//
// training: an MLP of 784-256-10 (MNIST-sized) on batches of 256,
// cross-entropy loss, SGD.
//
// gpt: a small GPT-style language model: token and position embeddings
// (kGptVocab and kGptSeq rows of kGptModel), kGptLayers transformer encoder
// layers (kGptHeads heads, a GELU MLP of kGptFeedForward, dropout 0,
// post-norm: torch's default norm_first = false) under a causal mask, a
// linear head back to the vocabulary, cross-entropy over every position of
// kGptBatch sequences of kGptSeq tokens, and an AdamW step (torch's
// defaults: lr 1e-3, betas (0.9, 0.999), eps 1e-8, weight decay 1e-2).
//
// resnet: examples/resnet_digits.py's network on kResNetBatch images of
// 1 x kResNetSize x kResNetSize: a 3x3 stem to kResNetWidth channels with
// batch norm and ReLU, the book's residual blocks (two 3x3 convolutions,
// each with batch norm, a ReLU between, the input added back) at
// kResNetWidth twice, then at 2 kResNetWidth, the first of them halving the
// size through a strided 1x1 shortcut, global average pooling, a linear
// layer to kResNetClasses; batch norm with batch statistics (training
// mode), cross-entropy, the same AdamW step as gpt's.
#pragma once

#include <cstdint>

namespace bptool::bench {

inline constexpr int64_t kTrainInputs = 784, kTrainHidden = 256, kTrainClasses = 10, kTrainBatch = 256;

inline constexpr int64_t kGptVocab = 64, kGptModel = 64, kGptLayers = 2, kGptHeads = 4, kGptFeedForward = 256,
                         kGptSeq = 64, kGptBatch = 8;

inline constexpr int64_t kResNetBatch = 64, kResNetSize = 8, kResNetWidth = 32, kResNetClasses = 10;

}  // namespace bptool::bench
