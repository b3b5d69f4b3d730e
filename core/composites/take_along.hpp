// What the resizing and padding composites share: one axis of a tensor
// read at positions the host computed.
#pragma once

#include <cstdint>
#include <vector>

#include "tensors/view.hpp"

namespace bp::core {

// x with axis `axis` replaced by x's elements at `index` along it (values in
// [0, extent)): the axis moved first, gathered by rows (GATHER_ND, whose
// gradient adds up where an element is read several times), moved back.
View take_along(const View &x, int32_t axis, const std::vector<int64_t> &index);

}  // namespace bp::core
