// What the rounding error of each element of an output grows with, for
// judge.cpp's tolerances: by C-order position of the element, the sum of the
// magnitudes of the terms behind it (or HUGE_VAL where plugin.h leaves the
// result unspecified: a partial sum past the accumulator's range), a floor
// for results not relative to themselves, and the terms' number.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "case.hpp"

namespace bpcheck {

struct Scales {
  std::vector<double> sum;
  std::vector<double> floor;
  std::vector<int64_t> terms;
};

// Output `which` of a LAYER_NORM or RMS_NORM case (normalize_scales.cpp): y
// on |w| rstd (mean|x| + |x - mean|) + |b| (the mean's and rstd's errors
// carried through), mean on mean|x|, rstd relative to itself.
Scales normalize_scales(const Case &c, size_t which);

}  // namespace bpcheck
