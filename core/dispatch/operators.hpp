// Operators on views. Each takes an optional output view: when it is null the
// result is allocated on the inputs' device and returned, else the result is
// written into *out and an empty view is returned.
#pragma once

#include <vector>

#include "tensors/view.hpp"

namespace bp::core {

View binary(int32_t op, const View &a, const View &b, const View *out);
// binary() into an existing output: the C API's _out path, kept free of a
// returned view.
void binary_out(int32_t op, const View &a, const View &b, const View &out);
// scalar_kind: a bp_scalar_kind, whose table in backplane.h decides the
// dtype, or kScalarByValue for bp_binary_scalar's value-based rule of 1.0.
inline constexpr int32_t kScalarByValue = 0;
View binary_scalar(int32_t op, const View &a, double scalar, bool scalar_is_lhs, const View *out,
                   int32_t scalar_kind = kScalarByValue);
View unary(int32_t op, const View &a, const View *out);
View where(const View &cond, const View &a, const View &b, const View *out);
View reduce(int32_t op, const View &a, int32_t axis, bool keepdims, const View *out);
View matmul(const View &a, const View &b, bool transpose_a, bool transpose_b, const View *out);
View scan(int32_t op, const View &a, int32_t axis, const View *out);
// index: integers of shape [..., k]; see bp_gather_nd and bp_scatter_nd.
View gather_nd(const View &a, const View &index);
void scatter_nd(const View &dst, const View &index, const View &values);
// scatter_nd that adds: repeated index rows accumulate (gather_nd's gradient).
void scatter_add_nd(const View &dst, const View &index, const View &values);
// int64 [count, rank]: the multi-indices of a's nonzero elements, in C order.
View nonzero(const View &a);

// Composites of the operators above (composite_ops.cpp); see backplane.h.
View concatenate(const std::vector<const View *> &tensors, int32_t axis);
View stack(const std::vector<const View *> &tensors, int32_t axis);
View eye(Device &device, int32_t dtype, int64_t n, int64_t m, int64_t k);
View linspace(Device &device, int32_t dtype, double start, double stop, int64_t num, bool endpoint);
View clip(const View &a, double low, double high);
View var(const View &a, int32_t axis, bool keepdims, double ddof);
View softmax(const View &a, int32_t axis);
View random_integers(Device &device, int32_t dtype, int32_t rank, const int64_t *shape, int64_t low,
                     int64_t high, uint64_t seed);
bool allclose(const View &a, const View &b, double rtol, double atol, bool equal_nan);
// Writes src (broadcast, converted) into dst.
void assign(const View &dst, const View &src);
View cast(const View &a, int32_t dtype);
View contiguous_copy(const View &a);

// Creation on a device.
View fill(Device &device, int32_t dtype, int32_t rank, const int64_t *shape, double value);
View arange(Device &device, int32_t dtype, double start, double stop, double step);
View random(Device &device, int32_t op, int32_t dtype, int32_t rank, const int64_t *shape,
            double p0, double p1, uint64_t seed);

// Data movement.
View from_host(Device &device, int32_t dtype, int32_t rank, const int64_t *shape,
               const void *data);
// A view over host memory the caller owns (bp_wrap_host); strides in
// elements, nullptr for C order.
View wrap_host(Device &device, int32_t dtype, int32_t rank, const int64_t *shape, const int64_t *strides,
               void *data, void (*release)(void *), void *context);
void to_host(const View &v, void *data, uint64_t bytes);
void from_host_into(const View &v, const void *data, uint64_t bytes);
View copy_to(const View &v, Device &device);
void wait(const View &v);

}  // namespace bp::core
