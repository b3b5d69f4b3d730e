// Scaled dot-product attention (bp_attention in backplane.h): the
// composite of recording operators, or the backend's fused ATTENTION
// operator when nothing records a gradient and no dropout is asked for.
#pragma once

#include <cstdint>

#include "tensors/view.hpp"

namespace bp::core {

struct AttentionOptions {
  const View *mask = nullptr;  // bool (true = take part) or float (added), or null
  bool causal = false;         // key j hidden from query i when j > i
  double scale = 0;            // 0: 1 / sqrt(D) (1 when D is 0)
  double dropout = 0;          // probability of zeroing a weight, 0 <= p <= 1
  uint64_t seed = 0;           // of the dropout mask (composites/dropout_mask.hpp)
};

// softmax(q k^T * scale + mask) v over q [B..., Lq, D], k [B..., Lk, D],
// v [B..., Lk, Dv] (batch axes broadcast) -> [B..., Lq, Dv].
View attention(const View &q, const View &k, const View &v, const AttentionOptions &options);

}  // namespace bp::core
