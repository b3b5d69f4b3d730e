// Dropout's rule, in one place for every caller (bp_attention's weights
// and the core's dropout): see dropout() below and backplane.h.
#pragma once

#include <cstdint>

#include "tensors/view.hpp"

namespace bp::core {

// x with each element i (C order of x's shape) kept when u(i) >= p and then
// scaled by 1 / (1 - p), else 0 (multiplied by 0, so a dropped NaN or inf
// stays NaN, as in PyTorch): u is the float32 stream of RANDOM_UNIFORM
// (plugin.h) over [0, 1) for `seed`, compared with p rounded to float32, so
// every backend keeps the same elements for one seed. 0 <= p <= 1 (the
// caller checks); p = 0 keeps everything, p = 1 nothing. Records for
// autograd: the gradient is g times the same scaled mask.
View dropout(const View &x, double p, uint64_t seed);

}  // namespace bp::core
