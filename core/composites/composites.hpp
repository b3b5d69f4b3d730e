// NumPy functions made of operators (composites.cpp); see backplane.h. They
// sit above autograd and are made only of its recording operators
// (autograd/functions.hpp) and of creation (dispatch/creation.hpp), so each
// differentiable one records its gradient operator by operator.
#pragma once

#include <cstdint>
#include <vector>

#include "tensors/view.hpp"

namespace bp::core {

struct Device;

View stack(const std::vector<const View *> &tensors, int32_t axis);
View eye(Device &device, int32_t dtype, int64_t n, int64_t m, int64_t k);
View linspace(Device &device, int32_t dtype, double start, double stop, int64_t num, bool endpoint);
View clip(const View &a, double low, double high);
View var(const View &a, int32_t axis, bool keepdims, double ddof);
View random_integers(Device &device, int32_t dtype, int32_t rank, const int64_t *shape, int64_t low,
                     int64_t high, uint64_t seed);
bool allclose(const View &a, const View &b, double rtol, double atol, bool equal_nan);

}  // namespace bp::core
