// The forms of the operators the bindings used to make themselves:
// reductions over a set of axes, where() with a scalar operand, and fills
// with a scalar of a kind (bp_reduce_axes, bp_where_scalar, bp_full_kind in
// backplane.h).
#pragma once

#include <cstdint>

#include "tensors/view.hpp"

namespace bp::core {

struct Device;

View reduce_axes(int32_t op, const View &a, const int32_t *axes, int32_t count, bool keepdims);
View where_scalar(const View &cond, const View &a, double scalar, int32_t scalar_kind, bool scalar_is_a);
View full_kind(Device &device, int32_t dtype, int32_t rank, const int64_t *shape, double value, int32_t value_kind);

}  // namespace bp::core
