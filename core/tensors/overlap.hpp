// Whether two views of one storage share a byte: exact, so that disjoint
// strided views (x[0::2] and x[1::2], one column and another) may be read
// and written by one operator.
#pragma once

#include "tensors/view.hpp"

namespace bp::core {

// a and b view the same storage. Byte ranges that do not meet answer at
// once, as does a contiguous view whose range holds the other's first or
// last byte; interleaved views whose elements fall in different residues modulo
// the strides' common divisor too; anything else is decided by walking both
// views' dense runs. Only beyond kMaxRuns runs a view is the answer
// conservative (true).
bool views_overlap(const View &a, const View &b);

constexpr size_t kMaxRuns = size_t(1) << 22;

}  // namespace bp::core
