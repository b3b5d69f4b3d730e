// Tensors made from nothing but arguments (creation on a device, data from
// the host) and reads of a tensor's elements: nothing a gradient could flow
// through, so every layer, the composites included, calls these directly.
#pragma once

#include <cstdint>

#include "tensors/view.hpp"

namespace bp::core {

struct Device;

View fill(Device &device, int32_t dtype, int32_t rank, const int64_t *shape, double value);
View arange(Device &device, int32_t dtype, double start, double stop, double step);
View random(Device &device, int32_t op, int32_t dtype, int32_t rank, const int64_t *shape,
            double p0, double p1, uint64_t seed);

View from_host(Device &device, int32_t dtype, int32_t rank, const int64_t *shape,
               const void *data);
// A view over host memory the caller owns (bp_wrap_host); strides in
// elements, nullptr for C order.
View wrap_host(Device &device, int32_t dtype, int32_t rank, const int64_t *shape, const int64_t *strides,
               void *data, void (*release)(void *), void *context);
void to_host(const View &v, void *data, uint64_t bytes);
void wait(const View &v);

}  // namespace bp::core
