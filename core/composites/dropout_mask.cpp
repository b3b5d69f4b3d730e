// Dropout's keep mask from the shared random stream (dropout_mask.hpp).
#include "composites/dropout_mask.hpp"

#include "composites/recording.hpp"
#include "dispatch/creation.hpp"

namespace bp::core {

View dropout(const View &x, double p, uint64_t seed) {
  if (p == 0) return ag::contiguous(x);
  View u = random(x.device(), BP_OP_RANDOM_UNIFORM, BP_FLOAT32, x.rank, x.shape, 0.0, 1.0, seed);
  View keep = ag::cast(ag::binary_scalar(BP_OP_GE, u, p, false), x.dtype);
  // p = 1 keeps nothing: the mask is all zeros, and 1 / (1 - p) never used.
  View mask = p < 1 ? ag::binary_scalar(BP_OP_MUL, keep, 1.0 / (1.0 - p), false) : std::move(keep);
  return ag::binary(BP_OP_MUL, x, mask);
}

}  // namespace bp::core
