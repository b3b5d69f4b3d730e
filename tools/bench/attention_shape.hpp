// attention_shape.hpp — the problem the attention figure times, shared by
// bp bench and bp-bench-torch so both sides attend the same tensors' shape:
// batch 8 (2 with --quick) of 12 heads, sequence 512, head size 64, causal,
// float32 (issue 29's figure).
#pragma once

#include <cstdint>

namespace bptool::bench {

inline constexpr int64_t kAttentionBatch = 8, kAttentionQuickBatch = 2, kAttentionHeads = 12, kAttentionSequence = 512,
                         kAttentionHeadSize = 64;

}  // namespace bptool::bench
