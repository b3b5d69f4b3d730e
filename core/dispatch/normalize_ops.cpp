// Normalisation (LAYER_NORM, RMS_NORM). A plugin normalises along the last
// axis of its views: the caller's trailing `axes` axes (PyTorch's
// normalized_shape) are flattened into one, by a view where the strides
// allow it and by a dense copy only where they do not. mean and rstd are
// written only when asked for (an absent view otherwise), and come back with
// x's rank, the normalised axes of extent 1.
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "dispatch/dtype_rules.hpp"
#include "dispatch/op_support.hpp"
#include "dispatch/operators.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "tensors/view_ops.hpp"

namespace bp::core::dispatch {

namespace {

[[noreturn]] void refuse(int32_t op, bp_status status, const std::string &what, int32_t input = -1) {
  Error e(status, std::string(op_name(op)) + ": " + what);
  e.op = op_name(op);
  if (input >= 0) e.input = input;
  throw e;
}

// v with its last `axes` axes as one (v's rank - axes + 1 axes): a view when
// the strides allow it, else a dense copy of v.
View flatten_trailing(const View &v, int32_t axes) {
  const int32_t lead = v.rank - axes;
  int64_t shape[BP_MAX_RANK];
  int64_t n = 1;
  for (int32_t d = 0; d < lead; ++d) shape[d] = v.shape[d];
  for (int32_t d = lead; d < v.rank; ++d) n *= v.shape[d];
  shape[lead] = n;
  View flat;
  if (reshape_view(v, lead + 1, shape, flat)) return flat;
  View dense = contiguous_copy(v);
  reshape_view(dense, lead + 1, shape, flat);
  return flat;
}

// weight or bias: the normalised shape, in the compute dtype, as one axis.
View affine_input(int32_t op, const View &x, const View &p, int32_t axes, int32_t index, int32_t dtype) {
  const char *what = index == 1 ? "the weight" : "the bias";
  bool fits = p.rank == axes;
  for (int32_t d = 0; fits && d < axes; ++d) fits = p.shape[d] == x.shape[x.rank - axes + d];
  if (!fits) {
    int64_t trailing[BP_MAX_RANK];
    for (int32_t d = 0; d < axes; ++d) trailing[d] = x.shape[x.rank - axes + d];
    refuse(op, BP_ERR_SHAPE,
           std::string(what) + " has shape " + shape_string(p.rank, p.shape) + ", not the normalised shape " +
               shape_string(axes, trailing) + " of x " + shape_string(x.rank, x.shape),
           index);
  }
  const View converted = p.dtype == dtype ? p : cast_view(p, dtype);
  return flatten_trailing(converted, axes);
}

}  // namespace

Normalized normalize(int32_t op, const View &x, const View *weight, const View *bias, int32_t axes, double eps,
                     bool want_mean, bool want_rstd) {
  if (!is_family(op, BP_OP_FAMILY_NORMALIZE))
    fail(BP_ERR_INVALID_ARGUMENT, "operator " + std::to_string(op) + " (" + op_name(op) +
                                      ") is not a normalisation");
  check_devices(op, {&x, weight ? weight : &x, bias ? bias : &x}, nullptr);
  if (axes < 1 || axes > x.rank)
    refuse(op, BP_ERR_SHAPE,
           "normalises the last " + std::to_string(axes) + " axes of x " + shape_string(x.rank, x.shape) +
               " (1.." + std::to_string(x.rank) + " allowed)");
  if (!std::isfinite(eps) || eps < 0) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", eps);
    refuse(op, BP_ERR_INVALID_ARGUMENT, std::string("eps is ") + text + "; it must be finite and >= 0");
  }
  const BinaryTypes types = reduce_types(op, x.dtype);
  require_defined(op, types, x.dtype);
  const int32_t stats = types.compute == BP_FLOAT64 ? BP_FLOAT64 : BP_FLOAT32;  // plugin.h

  std::optional<View> cast;
  const View flat_x = flatten_trailing(as_dtype(x, types.compute, cast), axes);
  View flat_w, flat_b;
  if (weight) flat_w = affine_input(op, x, *weight, axes, 1, types.compute);
  if (bias) flat_b = affine_input(op, x, *bias, axes, 2, types.compute);

  Normalized result;
  result.y = allocate_view(x.device(), types.result, x.rank, x.shape);
  View flat_y;
  reshape_view(result.y, flat_x.rank, flat_x.shape, flat_y);
  // mean and rstd: x's rank with the normalised axes of extent 1; the
  // plugin sees them with the flattened rank.
  int64_t stat_shape[BP_MAX_RANK], flat_stat_shape[BP_MAX_RANK];
  for (int32_t d = 0; d < x.rank; ++d) stat_shape[d] = d < x.rank - axes ? x.shape[d] : 1;
  for (int32_t d = 0; d < flat_x.rank; ++d) flat_stat_shape[d] = d < flat_x.rank - 1 ? flat_x.shape[d] : 1;
  const bool mean_wanted = want_mean && op == BP_OP_LAYER_NORM;

  bp_plugin_tensor in[3] = {}, out[3] = {};
  flat_x.to_plugin(in[0]);
  if (weight) flat_w.to_plugin(in[1]);
  if (bias) flat_b.to_plugin(in[2]);
  flat_y.to_plugin(out[0]);
  View flat_mean, flat_rstd;
  if (mean_wanted) {
    result.mean = allocate_view(x.device(), stats, x.rank, stat_shape);
    reshape_view(result.mean, flat_x.rank, flat_stat_shape, flat_mean);
    flat_mean.to_plugin(out[1]);
  }
  if (want_rstd) {
    result.rstd = allocate_view(x.device(), stats, x.rank, stat_shape);
    reshape_view(result.rstd, flat_x.rank, flat_stat_shape, flat_rstd);
    flat_rstd.to_plugin(out[2]);
  }
  bp_op_attrs attrs = make_attrs();
  attrs.scalar = eps;
  run(x.device(), op, types.compute, types.result, attrs, in, 3, out, 3);
  return result;
}

}  // namespace bp::core::dispatch
