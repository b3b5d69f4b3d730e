// The int64 index [N, k] of a GATHER or SCATTER case: rows of coordinates
// inside the first k axes of the indexed tensor. Valid index data, never
// random bits: an index outside its axis is an argument check of its own
// (index_argument_checks.cpp), not a numerics case.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "case.hpp"
#include "views.hpp"

namespace bpcheck {

// A new input view of c: n rows naming positions of indexed[0..k), drawn with
// repeats (a gather may name a row many times) or `distinct` (a scatter's
// result is defined only then; n must not exceed the positions there are).
ViewDesc add_index(Case &c, std::mt19937_64 &rng, const Shape &indexed, int k, int64_t n, bool distinct,
                   LayoutSpec layout);

// The shape of n rows of `indexed` past its first k axes: [n, indexed[k], ...].
Shape rows_shape(const Shape &indexed, int k, int64_t n);

// "what [5, 7], index [6, 1]": a case label.
std::string index_label(const char *what, const Shape &indexed, int k, int64_t n);

}  // namespace bpcheck
