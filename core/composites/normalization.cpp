// Normalisations made of operators (backplane.h): the variance over a set of
// axes, group norm (LAYER_NORM over [N, G, rest] without affine, then a
// per-channel affine) and batch norm (MEAN and VAR over every axis but the
// channels in training, updating the running statistics as PyTorch does;
// the running statistics in evaluation). Made of the recording layer, so
// each records its gradient.
#include "composites/normalization.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "composites/recording.hpp"
#include "autograd/meta.hpp"
#include "devices/registry.hpp"
#include "loader/backend.hpp"
#include "dispatch/dtype_rules.hpp"
#include "dispatch/function_errors.hpp"
#include "dispatch/op_support.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"

namespace bp::core {

namespace {

// A per-channel tensor [C] seen as [1, C, 1, ...] against x of `rank`.
View channels(const char *fn, const View &p, const char *what, int64_t c, int32_t rank) {
  if (p.rank != 1 || p.shape[0] != c)
    function_fail(fn, BP_ERR_SHAPE,
                  std::string(what) + " has shape " + shape_string(p.rank, p.shape) + ", not [" + std::to_string(c) +
                      "] (one value per channel)");
  int64_t shape[BP_MAX_RANK];
  for (int32_t d = 0; d < rank; ++d) shape[d] = d == 1 ? c : 1;
  return ag::reshape(p, rank, shape);
}

void require_finite(const char *fn, const char *what, double v, bool non_negative) {
  if (!std::isfinite(v) || (non_negative && v < 0))
    function_fail(fn, BP_ERR_INVALID_ARGUMENT,
                  std::string(what) + (non_negative ? " must be finite and >= 0" : " must be finite"));
}

// x (rank >= 2, float) on one device with every per-channel tensor given.
void check_channels_first(const char *fn, const View &x) {
  if (x.rank < 2)
    function_fail(fn, BP_ERR_SHAPE,
                  "x has shape " + shape_string(x.rank, x.shape) + "; it needs [N, C, ...] (rank 2 or more)");
}

// Whether a's device runs VAR for a's compute dtype: a plugin built before
// 1.6 never is asked about it (the vocabulary's version groups).
bool runs_var(const View &a) {
  const int32_t dtype = reduce_types(BP_OP_VAR, a.dtype).compute;
  const Device &d = a.device();
  return d.backend->supports(d.index, BP_OP_VAR, dtype, dtype);
}

}  // namespace

View variance(const View &a, const bool *reduced, bool keepdims, double correction) {
  if (runs_var(a)) return ag::var_over(a, reduced, keepdims, correction);
  // An older plugin's device: the same two passes as operators of ABI 1.0,
  // so bp_var and bp_std work there as they do elsewhere (MEAN, the squared
  // deviations from it, their sum over the axes).
  View mean = a.dtype == reduce_types(BP_OP_MEAN, a.dtype).compute ? a : ag::cast(a, reduce_types(BP_OP_MEAN, a.dtype).compute);
  int64_t n = 1;
  for (int32_t d = a.rank - 1; d >= 0; --d)
    if (reduced[d]) {
      mean = ag::reduce(BP_OP_MEAN, mean, d, true);
      n *= a.shape[d];
    }
  const View deviation = ag::binary(BP_OP_SUB, a, mean);
  View m2 = ag::binary(BP_OP_MUL, deviation, deviation);  // MUL is 1.0's, SQUARE 1.1's
  for (int32_t d = a.rank - 1; d >= 0; --d)
    if (reduced[d]) m2 = ag::reduce(BP_OP_SUM, m2, d, keepdims);
  const double divisor = double(n) - correction;
  return ag::binary_scalar(BP_OP_DIV, m2, divisor > 0 ? divisor : 0.0, false);
}

View var_axes(const View &a, const int32_t *axes, int32_t count, bool keepdims, double correction) {
  const char *fn = "var";
  if (count < 0) function_fail(fn, BP_ERR_INVALID_ARGUMENT, "count is negative (" + std::to_string(count) + ")");
  if (count > 0 && !axes) function_fail(fn, BP_ERR_INVALID_ARGUMENT, "axes is NULL");
  bool reduced[BP_MAX_RANK] = {};
  for (int32_t i = 0; i < count; ++i) {
    const int32_t d = function_axis(fn, axes[i], a.rank);
    if (reduced[d]) function_fail(fn, BP_ERR_INVALID_ARGUMENT, "axis " + std::to_string(axes[i]) + " is given twice");
    reduced[d] = true;
  }
  if (!(correction >= 0 && correction <= 9007199254740992.0 && std::floor(correction) == correction))
    function_fail(fn, BP_ERR_INVALID_ARGUMENT, "the correction must be a non-negative integer, not " + std::to_string(correction));
  return variance(a, reduced, keepdims, correction);
}

View group_norm(const View &x, int64_t groups, const View *weight, const View *bias, double eps) {
  const char *fn = "group_norm";
  check_channels_first(fn, x);
  require_finite(fn, "eps", eps, true);
  const int64_t c = x.shape[1];
  if (groups < 1 || c % groups != 0)
    function_fail(fn, BP_ERR_SHAPE,
                  std::to_string(groups) + " groups do not divide the " + std::to_string(c) + " channels of x " +
                      shape_string(x.rank, x.shape));
  check_devices(BP_OP_LAYER_NORM, {&x, weight ? weight : &x, bias ? bias : &x}, nullptr);
  // [N, G, C / G * spatial...]: each group of channels is one row.
  const int64_t grouped[3] = {x.shape[0], groups, x.shape[0] == 0 || groups == 0 ? 0 : x.numel() / x.shape[0] / groups};
  const View rows = ag::reshape(x, 3, grouped);
  View y = ag::reshape(ag::normalize(BP_OP_LAYER_NORM, rows, nullptr, nullptr, 1, eps, false, false).y, x.rank, x.shape);
  if (weight) y = ag::binary(BP_OP_MUL, y, channels(fn, *weight, "the weight", c, x.rank));
  if (bias) y = ag::binary(BP_OP_ADD, y, channels(fn, *bias, "the bias", c, x.rank));
  return y;
}

View batch_norm(const View &x, const View *running_mean, const View *running_var, const View *weight,
                const View *bias, bool training, double momentum, double eps) {
  const char *fn = "batch_norm";
  check_channels_first(fn, x);
  require_finite(fn, "eps", eps, true);
  require_finite(fn, "momentum", momentum, false);
  if ((running_mean == nullptr) != (running_var == nullptr))
    function_fail(fn, BP_ERR_INVALID_ARGUMENT, "running_mean and running_var are given together or not at all");
  if (!training && !running_mean)
    function_fail(fn, BP_ERR_INVALID_ARGUMENT, "evaluation (training 0) needs running_mean and running_var");
  check_devices(BP_OP_MEAN, {&x, weight ? weight : &x, bias ? bias : &x, running_mean ? running_mean : &x,
                             running_var ? running_var : &x},
                nullptr);
  const int64_t c = x.shape[1];
  View mean, var;
  if (training) {
    // Every axis but the channels.
    std::vector<int32_t> axes;
    int64_t n = 1;
    for (int32_t d = 0; d < x.rank; ++d)
      if (d != 1) {
        axes.push_back(d);
        n *= x.shape[d];
      }
    if (n <= 1)
      function_fail(fn, BP_ERR_SHAPE,
                    "training needs more than one value per channel, and x " + shape_string(x.rank, x.shape) + " has " +
                        std::to_string(n));
    mean = ag::reduce(BP_OP_MEAN, x, 0, true);
    for (size_t i = 1; i < axes.size(); ++i) mean = ag::reduce(BP_OP_MEAN, mean, axes[i], true);
    var = var_axes(x, axes.data(), int32_t(axes.size()), true, 0.0);
    if (running_mean) {
      const View rm = channels(fn, *running_mean, "running_mean", c, x.rank);
      const View rv = channels(fn, *running_var, "running_var", c, x.rank);
      // running = (1 - momentum) running + momentum batch, with the unbiased
      // batch variance (PyTorch's): a write that records nothing.
      ag::NoGradScope no_grad;
      const View batch_mean = ag::detach(mean);
      const View batch_var = ag::binary_scalar(BP_OP_MUL, ag::detach(var), double(n) / double(n - 1), false);
      auto blend = [&](const View &target, const View &running, const View &batch) {
        const View kept = ag::binary_scalar(BP_OP_MUL, running, 1.0 - momentum, false);
        const View mixed = ag::binary(BP_OP_ADD, kept, ag::binary_scalar(BP_OP_MUL, batch, momentum, false));
        ag::assign(target, ag::reshape(mixed, 1, &c));
      };
      blend(*running_mean, rm, batch_mean);
      blend(*running_var, rv, batch_var);
    }
  } else {
    mean = channels(fn, *running_mean, "running_mean", c, x.rank);
    var = channels(fn, *running_var, "running_var", c, x.rank);
  }
  // y = x * scale + shift with scale = weight / sqrt(var + eps) and shift =
  // bias - mean * scale per channel, as PyTorch's CPU kernel computes it:
  // two passes over x forward (four for (x - mean) * rstd * weight + bias)
  // and fewer in the recorded backward, where batch norm is most of a
  // ResNet's elementwise work.
  View scale = ag::unary(BP_OP_RSQRT, ag::binary_scalar(BP_OP_ADD, var, eps, false));
  if (weight) scale = ag::binary(BP_OP_MUL, scale, channels(fn, *weight, "the weight", c, x.rank));
  const View centre = ag::binary(BP_OP_MUL, mean, scale);
  const View shift = bias ? ag::binary(BP_OP_SUB, channels(fn, *bias, "the bias", c, x.rank), centre)
                          : ag::binary_scalar(BP_OP_MUL, centre, -1.0, false);
  View y = ag::binary(BP_OP_ADD, ag::binary(BP_OP_MUL, x, scale), shift);
  // y in x's dtype (running statistics of another float dtype promote it).
  // Returned by name, which moves it: a copy would drop its autograd link.
  if (y.dtype != x.dtype && is_float(x.dtype)) y = ag::cast(y, x.dtype);
  return y;
}

}  // namespace bp::core
