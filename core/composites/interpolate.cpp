// Resizing as torch.nn.functional.interpolate does it (torch 1.13's index
// rules, computed here on the host in its arithmetic: float, or double for
// float64 inputs), one spatial axis at a time, last axis first.
// Nearest: output position j reads floor(j * scale), at most S - 1, with
// scale = S / O (1 / the scale factor when one is given), except that
// O = S copies and O = 2S reads j / 2. Linear: j reads x0 = floor(src) and
// x1 = min(x0 + 1, S - 1) weighted 1 - l and l, l = src - x0, with src =
// j * (S - 1) / (O - 1) (align_corners; 0 for O = 1) or max(0, (j + 0.5) *
// scale - 0.5); O = S copies. Bilinear and trilinear are linear along each
// axis in turn, grouped as torch groups them (the last axis innermost).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "composites/recording.hpp"
#include "composites/spatial.hpp"
#include "composites/take_along.hpp"
#include "dispatch/creation.hpp"
#include "dispatch/dtype_rules.hpp"
#include "dispatch/function_errors.hpp"
#include "errors/names.hpp"

namespace bp::core {

namespace {

// Per-position weights along `axis`, as a tensor of x's dtype that
// broadcasts against it.
View weights_along(const View &x, int32_t axis, const std::vector<double> &w) {
  int64_t shape[BP_MAX_RANK];
  std::fill(shape, shape + x.rank, int64_t(1));
  shape[axis] = int64_t(w.size());
  const View wide = from_host(x.device(), BP_FLOAT64, x.rank, shape, w.data());
  return x.dtype == BP_FLOAT64 ? wide : ag::cast(wide, x.dtype);
}

// torch's compute_scales_value and area_pixel_compute_scale, in R.
template <class R>
R coordinate_scale(int64_t in, int64_t out, const double *scale, bool align_corners) {
  if (align_corners) return out > 1 ? R(in - 1) / R(out - 1) : R(0);
  return scale && *scale > 0 ? R(1.0 / *scale) : R(in) / R(out);
}

std::vector<int64_t> nearest_index(int64_t in, int64_t out, const double *scale) {
  std::vector<int64_t> index(static_cast<size_t>(out));
  const float s = coordinate_scale<float>(in, out, scale, false);
  for (int64_t j = 0; j < out; ++j)
    index[size_t(j)] = out == in ? j : out == 2 * in ? j >> 1 : std::min<int64_t>(int64_t(std::floor(float(j) * s)), in - 1);
  return index;
}

template <class R>
void linear_taps(int64_t in, int64_t out, const double *scale, bool align_corners, std::vector<int64_t> &i0,
                 std::vector<int64_t> &i1, std::vector<double> &w0, std::vector<double> &w1) {
  const R s = coordinate_scale<R>(in, out, scale, align_corners);
  for (int64_t j = 0; j < out; ++j) {
    if (out == in) {
      i0.push_back(j);
      i1.push_back(j);
      w0.push_back(1);
      w1.push_back(0);
      continue;
    }
    R src = align_corners ? s * R(j) : s * (R(j) + R(0.5)) - R(0.5);
    if (!align_corners && src < R(0)) src = R(0);
    const int64_t x0 = int64_t(src);
    const R l = std::min(std::max(src - R(x0), R(0)), R(1));
    i0.push_back(x0);
    i1.push_back(x0 + (x0 < in - 1 ? 1 : 0));
    w0.push_back(double(R(1) - l));
    w1.push_back(double(l));
  }
}

}  // namespace

View interpolate(const View &x, int32_t spatial_rank, const int64_t *size, const double *scale, int32_t mode,
                 bool align_corners) {
  const char *fn = "interpolate";
  if (spatial_rank < 1 || spatial_rank > BP_WINDOW_MAX_RANK)
    function_fail(fn, BP_ERR_INVALID_ARGUMENT, "spatial_rank " + std::to_string(spatial_rank) + " is not 1, 2 or 3");
  if (x.rank != spatial_rank + 2)
    function_fail(fn, BP_ERR_SHAPE,
                  "the input " + shape_string(x.rank, x.shape) + " is not [N, C, " + std::to_string(spatial_rank) +
                      " spatial axes]");
  if (mode != BP_INTERP_NEAREST && mode != BP_INTERP_LINEAR)
    function_fail(fn, BP_ERR_INVALID_ARGUMENT, "mode " + std::to_string(mode) + " is not BP_INTERP_NEAREST or BP_INTERP_LINEAR");
  if (!size == !scale) function_fail(fn, BP_ERR_INVALID_ARGUMENT, "give either size or scale, not both or neither");
  if (mode == BP_INTERP_LINEAR && !is_float(x.dtype))
    function_fail(fn, BP_ERR_DTYPE, std::string("linear resizing is defined for float tensors, not ") + dtype_name(x.dtype));
  if (mode == BP_INTERP_NEAREST && align_corners)
    function_fail(fn, BP_ERR_INVALID_ARGUMENT, "align_corners applies to linear resizing only");
  int64_t out[BP_WINDOW_MAX_RANK];
  for (int32_t d = 0; d < spatial_rank; ++d) {
    const int64_t in = x.shape[2 + d];
    if (scale && !(scale[d] > 0 && std::isfinite(scale[d])))
      function_fail(fn, BP_ERR_INVALID_ARGUMENT, "scale " + std::to_string(scale[d]) + " of spatial axis " +
                                                     std::to_string(d) + " is not a positive number");
    out[d] = size ? size[d] : int64_t(std::floor(double(in) * scale[d]));
    if (out[d] < 1 || in < 1)
      function_fail(fn, BP_ERR_SHAPE,
                    "spatial axis " + std::to_string(d) + ": input extent " + std::to_string(in) + " and output extent " +
                        std::to_string(out[d]) + " must both be at least 1");
  }
  // The result so far: a copied View would lose x's autograd identity.
  View result;
  const View *cur = &x;
  for (int32_t d = spatial_rank - 1; d >= 0; --d) {
    const int32_t axis = 2 + d;
    const int64_t in = x.shape[axis];
    const double *sd = scale ? scale + d : nullptr;
    if (mode == BP_INTERP_NEAREST) {
      result = take_along(*cur, axis, nearest_index(in, out[d], sd));
      cur = &result;
      continue;
    }
    std::vector<int64_t> i0, i1;
    std::vector<double> w0, w1;
    if (x.dtype == BP_FLOAT64)
      linear_taps<double>(in, out[d], sd, align_corners, i0, i1, w0, w1);
    else
      linear_taps<float>(in, out[d], sd, align_corners, i0, i1, w0, w1);
    const View low = ag::binary(BP_OP_MUL, weights_along(*cur, axis, w0), take_along(*cur, axis, i0));
    const View high = ag::binary(BP_OP_MUL, weights_along(*cur, axis, w1), take_along(*cur, axis, i1));
    result = ag::binary(BP_OP_ADD, low, high);
    cur = &result;
  }
  return result;
}

}  // namespace bp::core
