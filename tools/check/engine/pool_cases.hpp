// The cases of the POOL and POOL_GRAD families (pool_cases.cpp), which the
// kit's `pool` group runs against the reference: random shapes, windows,
// strides, paddings (asymmetric too), dilations and ceil mode, both count
// modes, ties, NaN and infinities, strided views, every dtype; and what
// judging their sums needs.
#pragma once

#include <cstdint>
#include <vector>

#include "case.hpp"
#include "family_builders.hpp"
#include "rules.hpp"

namespace bpcheck {

// Every case of one (op, dtype, out_dtype) of the two families.
std::vector<Case> pool_cases(int32_t op, int32_t dtype, int32_t out_dtype, uint64_t seed);

// One plain case over `spatial` (1 or 2 axes; N = 1, C = 2), for the groups
// that run a few small cases of every declared operator.
void add_pool(Builder &b, Case &c, const Shape &spatial);

// Whether op is of the POOL or POOL_GRAD family.
bool is_pool_op(int32_t op);

// MAX_POOL's output 0 where plugin.h leaves it open (rules.cpp's
// output_leeway): either zero where a window's maximum is a zero and it
// holds both +0 and -0; empty when there is no such window.
std::vector<Leeway> pool_zero_leeway(const Case &c);

// For judging the sums of AVG_POOL and the gradients (judge.cpp), by
// C-order position of output 0: the sum of the magnitudes of the terms
// behind each element, and their number.
void pool_scale(const Case &c, std::vector<double> &sum, std::vector<int64_t> &terms);

}  // namespace bpcheck
