// backplane_spatial.hpp — pooling, dropout, padding and resizing for C++
// over backplane.hpp (since 1.6): the C API's bp_max_pool, bp_avg_pool,
// adaptive and global pooling, bp_dropout, bp_pad and bp_interpolate on
// channels-first tensors [N, C, spatial...] (or [C, spatial...]), with
// PyTorch's defaults. Every result records its gradient.
//
//   bp::Tensor indices;
//   bp::Tensor y = bp::max_pool(x, bp::pool_options({2, 2}), &indices);
//   bp::Tensor z = bp::avg_pool(x, bp::pool_options({3, 3}, {2, 2}, {1, 1}).include_pad());
#pragma once

#include <cstring>
#include <stdexcept>
#include <vector>

#include "backplane.hpp"

namespace bp {

// bp_pool_options with PyTorch's defaults: kernel per spatial axis (its
// length is the spatial rank), stride the kernel's when empty, padding on
// both sides of each axis, dilation 1, floor mode, padding not counted.
struct PoolOptions {
  bp_pool_options c;
  PoolOptions &ceil_mode(bool on = true) {
    c.ceil_mode = on;
    return *this;
  }
  PoolOptions &include_pad(bool on = true) {
    c.count_include_pad = on;
    return *this;
  }
  // Padding before and after an axis apart (the C API's per-side form).
  PoolOptions &pad(size_t axis, int64_t before, int64_t after) {
    c.pad_begin[axis] = before;
    c.pad_end[axis] = after;
    return *this;
  }
};

inline PoolOptions pool_options(const std::vector<int64_t> &kernel, const std::vector<int64_t> &stride = {},
                                const std::vector<int64_t> &padding = {}, const std::vector<int64_t> &dilation = {}) {
  PoolOptions o;
  std::memset(&o.c, 0, sizeof o.c);
  o.c.struct_size = sizeof o.c;
  if (kernel.empty() || kernel.size() > 3) throw std::invalid_argument("pool_options: 1 to 3 kernel extents");
  o.c.spatial_rank = int32_t(kernel.size());
  auto each = [&](const std::vector<int64_t> &v, const char *what) {
    if (!v.empty() && v.size() != kernel.size())
      throw std::invalid_argument(std::string("pool_options: ") + what + " needs one value per kernel axis");
  };
  each(stride, "stride");
  each(padding, "padding");
  each(dilation, "dilation");
  for (size_t d = 0; d < kernel.size(); ++d) {
    o.c.kernel[d] = kernel[d];
    o.c.stride[d] = stride.empty() ? 0 : stride[d];
    o.c.pad_begin[d] = o.c.pad_end[d] = padding.empty() ? 0 : padding[d];
    o.c.dilation[d] = dilation.empty() ? 1 : dilation[d];
  }
  return o;
}

// Max pooling; *indices (when given) receives the maxima's flat positions
// in their planes (PyTorch's return_indices).
inline Tensor max_pool(const Tensor &x, const PoolOptions &o, Tensor *indices = nullptr) {
  bp_tensor out = BP_NO_TENSOR, index = BP_NO_TENSOR;
  check(bp_max_pool(x.handle(), &o.c, &out, indices ? &index : nullptr));
  if (indices) *indices = Tensor::adopt(index);
  return Tensor::adopt(out);
}

inline Tensor avg_pool(const Tensor &x, const PoolOptions &o) {
  bp_tensor out = BP_NO_TENSOR;
  check(bp_avg_pool(x.handle(), &o.c, &out));
  return Tensor::adopt(out);
}

// Adaptive pooling to output_size (one extent per spatial axis).
inline Tensor adaptive_avg_pool(const Tensor &x, const std::vector<int64_t> &output_size) {
  bp_tensor out = BP_NO_TENSOR;
  check(bp_adaptive_avg_pool(x.handle(), int32_t(output_size.size()), output_size.data(), &out));
  return Tensor::adopt(out);
}

inline Tensor adaptive_max_pool(const Tensor &x, const std::vector<int64_t> &output_size, Tensor *indices = nullptr) {
  bp_tensor out = BP_NO_TENSOR, index = BP_NO_TENSOR;
  check(bp_adaptive_max_pool(x.handle(), int32_t(output_size.size()), output_size.data(), &out,
                             indices ? &index : nullptr));
  if (indices) *indices = Tensor::adopt(index);
  return Tensor::adopt(out);
}

// Pooling over every spatial axis: [N, C, 1...].
inline Tensor global_avg_pool(const Tensor &x, int32_t spatial_rank) {
  bp_tensor out = BP_NO_TENSOR;
  check(bp_global_avg_pool(x.handle(), spatial_rank, &out));
  return Tensor::adopt(out);
}

inline Tensor global_max_pool(const Tensor &x, int32_t spatial_rank) {
  bp_tensor out = BP_NO_TENSOR;
  check(bp_global_max_pool(x.handle(), spatial_rank, &out));
  return Tensor::adopt(out);
}

// x * keep / (1 - p), keep drawn from the RANDOM_UNIFORM stream of `seed`.
inline Tensor dropout(const Tensor &x, double p, uint64_t seed) {
  bp_tensor out = BP_NO_TENSOR;
  check(bp_dropout(x.handle(), p, seed, &out));
  return Tensor::adopt(out);
}

// before[d] and after[d] elements added around axis d (negative: removed).
inline Tensor pad(const Tensor &x, const std::vector<int64_t> &before, const std::vector<int64_t> &after,
                  bp_pad_mode mode = BP_PAD_CONSTANT, double value = 0) {
  bp_tensor out = BP_NO_TENSOR;
  check(bp_pad(x.handle(), before.data(), after.data(), mode, value, &out));
  return Tensor::adopt(out);
}

// Resizing to `size` (one extent per spatial axis) or by `scale`.
inline Tensor interpolate(const Tensor &x, const std::vector<int64_t> &size, bp_interp_mode mode = BP_INTERP_NEAREST,
                          bool align_corners = false) {
  bp_tensor out = BP_NO_TENSOR;
  check(bp_interpolate(x.handle(), int32_t(size.size()), size.data(), nullptr, mode, align_corners, &out));
  return Tensor::adopt(out);
}

inline Tensor interpolate(const Tensor &x, const std::vector<double> &scale, bp_interp_mode mode = BP_INTERP_NEAREST,
                          bool align_corners = false) {
  bp_tensor out = BP_NO_TENSOR;
  check(bp_interpolate(x.handle(), int32_t(scale.size()), nullptr, scale.data(), mode, align_corners, &out));
  return Tensor::adopt(out);
}

}  // namespace bp
