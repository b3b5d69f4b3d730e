// Adaptive and global pooling. Where every axis divides evenly (global
// pooling always does), adaptive pooling is one pooling operator with
// kernel = stride = S / O. Otherwise its windows differ in length and it
// runs axis by axis, last axis first: each output position's slice reduced
// (MEAN; MAX and ARGMAX) and the pieces concatenated. A box's mean is the
// mean of its rows' means (each row holds as many elements); its first
// maximum in C order is the first maximum of the first row holding one,
// which reducing the last axis first finds. Adaptive max then gathers its
// values from x at the indices it found, so the gradient goes to those
// elements alone, as PyTorch's does.
#include <algorithm>
#include <string>
#include <vector>

#include "composites/recording.hpp"
#include "composites/spatial.hpp"
#include "dispatch/creation.hpp"
#include "dispatch/function_errors.hpp"
#include "errors/names.hpp"

namespace bp::core {

namespace {

// The checks every adaptive and global form shares.
void check_spatial(const char *fn, const View &x, int32_t spatial_rank) {
  if (spatial_rank < 1 || spatial_rank > BP_WINDOW_MAX_RANK)
    function_fail(fn, BP_ERR_INVALID_ARGUMENT,
                  "spatial_rank " + std::to_string(spatial_rank) + " is not 1, 2 or 3");
  if (x.rank != spatial_rank + 2)
    function_fail(fn, BP_ERR_SHAPE,
                  "the input " + shape_string(x.rank, x.shape) + " is not [N, C, " + std::to_string(spatial_rank) +
                      " spatial axes]");
  for (int32_t d = 0; d < spatial_rank; ++d)
    if (x.shape[2 + d] < 1)
      function_fail(fn, BP_ERR_SHAPE, "spatial axis " + std::to_string(d) + " of the input " +
                                          shape_string(x.rank, x.shape) + " is empty");
}

void check_sizes(const char *fn, int32_t spatial_rank, const int64_t *output_size) {
  if (!output_size) function_fail(fn, BP_ERR_INVALID_ARGUMENT, "output_size is NULL");
  for (int32_t d = 0; d < spatial_rank; ++d)
    if (output_size[d] < 1)
      function_fail(fn, BP_ERR_SHAPE,
                    "output size " + std::to_string(output_size[d]) + " of spatial axis " + std::to_string(d) +
                        " is below 1");
}

// kernel = stride = extent, no padding: a window per axis that tiles it.
PoolWindow tiling(int32_t spatial_rank, const int64_t *kernel) {
  PoolWindow w;
  w.params.spatial_rank = spatial_rank;
  for (int32_t d = 0; d < spatial_rank; ++d) {
    w.params.kernel[d] = w.params.stride[d] = kernel[d];
    w.params.dilation[d] = 1;
  }
  return w;
}

bool divides(const View &x, int32_t spatial_rank, const int64_t *output_size, int64_t *kernel) {
  bool all = true;
  for (int32_t d = 0; d < spatial_rank; ++d) {
    all = all && x.shape[2 + d] % output_size[d] == 0;
    kernel[d] = all ? x.shape[2 + d] / output_size[d] : 1;
  }
  return all;
}

// PyTorch's window of output position o along an axis of extent s.
int64_t window_start(int64_t o, int64_t s, int64_t n) { return o * s / n; }
int64_t window_stop(int64_t o, int64_t s, int64_t n) { return ((o + 1) * s + n - 1) / n; }

View concatenated(const std::vector<View> &parts, int32_t axis) {
  std::vector<const View *> ptrs;
  for (const View &p : parts) ptrs.push_back(&p);
  return ag::concatenate(ptrs, axis);
}

// 0, 1, ..., n - 1 as int64 of `rank` axes, all of extent 1 but `axis`.
View positions_along(Device &device, int64_t n, int32_t rank, int32_t axis) {
  int64_t shape[BP_MAX_RANK];
  std::fill(shape, shape + rank, int64_t(1));
  shape[axis] = n;
  return ag::reshape(arange(device, BP_INT64, 0, double(n), 1), rank, shape);
}

}  // namespace

View adaptive_avg_pool(const View &x, int32_t spatial_rank, const int64_t *output_size) {
  const char *fn = "adaptive_avg_pool";
  check_spatial(fn, x, spatial_rank);
  check_sizes(fn, spatial_rank, output_size);
  int64_t kernel[BP_WINDOW_MAX_RANK];
  if (divides(x, spatial_rank, output_size, kernel)) return ag::avg_pool(x, tiling(spatial_rank, kernel));
  // The result so far: a copied View would lose x's autograd identity. Not
  // every axis divides, so at least one is pooled here.
  View result;
  const View *cur = &x;
  for (int32_t d = spatial_rank - 1; d >= 0; --d) {
    const int32_t axis = 2 + d;
    const int64_t s = x.shape[axis], n = output_size[d];
    if (s == n) continue;
    std::vector<View> parts;
    for (int64_t o = 0; o < n; ++o)
      parts.push_back(ag::reduce(BP_OP_MEAN, ag::slice(*cur, axis, window_start(o, s, n), window_stop(o, s, n), 1),
                                 axis, true));
    result = concatenated(parts, axis);
    cur = &result;
  }
  return result;
}

View adaptive_max_pool(const View &x, int32_t spatial_rank, const int64_t *output_size, View *indices) {
  const char *fn = "adaptive_max_pool";
  check_spatial(fn, x, spatial_rank);
  check_sizes(fn, spatial_rank, output_size);
  if (x.dtype == BP_BOOL) function_fail(fn, BP_ERR_DTYPE, "defined for numeric tensors, not bool");
  int64_t kernel[BP_WINDOW_MAX_RANK];
  if (divides(x, spatial_rank, output_size, kernel)) return ag::max_pool(x, tiling(spatial_rank, kernel), indices);
  Device &device = x.device();
  const int32_t rank = x.rank;
  int64_t plane = 1;
  for (int32_t d = 0; d < spatial_rank; ++d) plane *= x.shape[2 + d];
  // Where the maxima are: found on x's values, recording nothing.
  View cur = ag::detach(x);
  int64_t plane_shape[BP_MAX_RANK] = {1, 1};
  std::copy(x.shape + 2, x.shape + rank, plane_shape + 2);
  View position = ag::reshape(arange(device, BP_INT64, 0, double(plane), 1), rank, plane_shape);
  for (int32_t d = spatial_rank - 1; d >= 0; --d) {
    const int32_t axis = 2 + d;
    const int64_t s = x.shape[axis], n = output_size[d];
    if (s == n) continue;
    std::vector<View> values, found;
    for (int64_t o = 0; o < n; ++o) {
      const int64_t start = window_start(o, s, n), stop = window_stop(o, s, n);
      const View piece = ag::slice(cur, axis, start, stop, 1);
      const View at = ag::reduce(BP_OP_ARGMAX, piece, axis, true);
      const View hit = ag::binary(BP_OP_EQ, positions_along(device, stop - start, rank, axis), at);
      const View chosen = ag::binary(BP_OP_MUL, ag::cast(hit, BP_INT64), ag::slice(position, axis, start, stop, 1));
      values.push_back(ag::reduce(BP_OP_MAX, piece, axis, true));
      found.push_back(ag::reduce(BP_OP_SUM, chosen, axis, true));
    }
    cur = concatenated(values, axis);
    position = concatenated(found, axis);
  }
  // The values, gathered from x at (n * C + c) * plane + position.
  int64_t rows_shape[BP_MAX_RANK] = {x.shape[0], x.shape[1]};
  std::fill(rows_shape + 2, rows_shape + rank, int64_t(1));
  const View rows = ag::reshape(arange(device, BP_INT64, 0, double(x.shape[0] * x.shape[1]) * double(plane),
                                       double(plane)),
                                rank, rows_shape);
  const View flat_index = ag::binary(BP_OP_ADD, position, rows);
  const int64_t total = x.numel(), picked = flat_index.numel(), column[2] = {picked, 1};
  const View values = ag::gather_nd(ag::reshape(x, 1, &total), ag::reshape(flat_index, 2, column));
  if (indices) *indices = ag::contiguous(position);
  return ag::reshape(values, rank, position.shape);
}

View global_avg_pool(const View &x, int32_t spatial_rank) {
  check_spatial("global_avg_pool", x, spatial_rank);
  return ag::avg_pool(x, tiling(spatial_rank, x.shape + 2));
}

View global_max_pool(const View &x, int32_t spatial_rank) {
  check_spatial("global_max_pool", x, spatial_rank);
  return ag::max_pool(x, tiling(spatial_rank, x.shape + 2), nullptr);
}

}  // namespace bp::core
