// The convolution family (plugin.h's CONV, CONV_TRANSPOSE, CONV_WEIGHT_GRAD):
// the checks a user's shapes and window get, with messages naming the
// operator and the shapes, then one call of the owning backend with the
// window as attrs.params.
#include <algorithm>
#include <cstring>
#include <optional>

#include "dispatch/dtype_rules.hpp"
#include "dispatch/op_support.hpp"
#include "dispatch/operators.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"

namespace bp::core::dispatch {

namespace {

[[noreturn]] void conv_fail(int32_t op, bp_status status, const std::string &message) {
  Error e(status, std::string(op_name(op)) + ": " + message);
  e.op = op_name(op);
  throw e;
}

std::string shape_of(const View &v) { return shape_string(v.rank, v.shape); }

// The spatial rank the operands' ranks give (checked: 1..3, all alike).
int32_t spatial_rank(int32_t op, const View &a, const char *a_name, const View &w, const char *w_name) {
  if (a.rank < 3 || a.rank > 2 + BP_WINDOW_MAX_RANK || w.rank != a.rank)
    conv_fail(op, BP_ERR_SHAPE,
              std::string(a_name) + " " + shape_of(a) + " and " + w_name + " " + shape_of(w) +
                  " must both have rank 3, 4 or 5 ([N, C, spatial...] with 1 to 3 spatial axes, and the weight "
                  "[C_out, C_in / groups, kernel...])");
  return a.rank - 2;
}

void check_params(int32_t op, const ConvParams &p, int32_t rank) {
  if (p.groups < 1) conv_fail(op, BP_ERR_INVALID_ARGUMENT, "groups is " + std::to_string(p.groups) + " (>= 1 allowed)");
  for (int32_t i = 0; i < rank; ++i)
    if (p.stride[i] < 1 || p.dilation[i] < 1 || p.pad_begin[i] < 0 || p.pad_end[i] < 0)
      conv_fail(op, BP_ERR_INVALID_ARGUMENT,
                "spatial axis " + std::to_string(i) + " has stride " + std::to_string(p.stride[i]) + ", dilation " +
                    std::to_string(p.dilation[i]) + " and padding " + std::to_string(p.pad_begin[i]) + " + " +
                    std::to_string(p.pad_end[i]) + " (stride and dilation >= 1, padding >= 0 allowed)");
}

// Channels: the activation `a` has in_channels = weight[1] * groups, and
// groups divides the weight's output channels.
void check_channels(int32_t op, const View &a, const char *a_name, int64_t a_channels, const View &w,
                    int32_t groups, bool a_is_input) {
  if (w.shape[0] % groups != 0)
    conv_fail(op, BP_ERR_SHAPE,
              "groups " + std::to_string(groups) + " does not divide the weight " + shape_of(w) + "'s " +
                  std::to_string(w.shape[0]) + " output channels (its axis 0)");
  const int64_t expected = a_is_input ? w.shape[1] * groups : w.shape[0];
  if (a_channels != expected) {
    if (a_is_input)
      conv_fail(op, BP_ERR_SHAPE,
                std::string(a_name) + " " + shape_of(a) + " has " + std::to_string(a_channels) +
                    " channels but the weight " + shape_of(w) + " with groups " + std::to_string(groups) +
                    " takes " + std::to_string(expected) + " (" + std::to_string(w.shape[1]) + " per group)");
    conv_fail(op, BP_ERR_SHAPE,
              std::string(a_name) + " " + shape_of(a) + " has " + std::to_string(a_channels) +
                  " channels but the weight " + shape_of(w) + " has " + std::to_string(expected) +
                  " output channels (its axis 0)");
  }
}

// Along every spatial axis, x's extent S and y's O must relate as plugin.h
// says: S + pb + pe - d (K - 1) - 1 - (O - 1) s in [0, max(s, d)).
void check_extents(int32_t op, int32_t rank, const int64_t *s_ext, const int64_t *o_ext, const int64_t *kernel,
                   const ConvParams &p, const std::string &what) {
  for (int32_t i = 0; i < rank; ++i) {
    const int64_t reach =
        s_ext[i] + p.pad_begin[i] + p.pad_end[i] - p.dilation[i] * (kernel[i] - 1) - 1 - (o_ext[i] - 1) * p.stride[i];
    if (s_ext[i] >= 1 && o_ext[i] >= 1 && reach >= 0 && reach < std::max(p.stride[i], p.dilation[i])) continue;
    conv_fail(op, BP_ERR_SHAPE,
              what + ": along spatial axis " + std::to_string(i) + " the input extent " + std::to_string(s_ext[i]) +
                  " and the output extent " + std::to_string(o_ext[i]) + " do not fit kernel " +
                  std::to_string(kernel[i]) + ", stride " + std::to_string(p.stride[i]) + ", dilation " +
                  std::to_string(p.dilation[i]) + " and padding " + std::to_string(p.pad_begin[i]) + " + " +
                  std::to_string(p.pad_end[i]));
  }
}

// One call of the backend: dtypes promoted (integers to float64, the
// family being float-only), outputs prepared, the window as attrs.params.
View launch(int32_t op, const View *a, const View *b, const View *bias, int32_t rank, const int64_t *out_shape,
            const ConvParams &p, const int64_t *kernel, const View *out) {
  check_devices(op, bias ? std::initializer_list<const View *>{a, b, bias} : std::initializer_list<const View *>{a, b},
                out);
  int32_t dtype = promote(a->dtype, b->dtype);
  if (bias) dtype = promote(dtype, bias->dtype);
  if (!is_float(dtype)) dtype = BP_FLOAT64;
  std::optional<View> ta, tb, tbias;
  const View &ca = as_dtype(*a, dtype, ta), &cb = as_dtype(*b, dtype, tb);
  const View *cbias = bias ? &as_dtype(*bias, dtype, tbias) : nullptr;
  View result = prepare_output(op, a->device(), dtype, rank + 2, out_shape, out);
  const View &target = out ? *out : result;
  bp_plugin_tensor in[3], o;
  ca.to_plugin(in[0]);
  cb.to_plugin(in[1]);
  std::memset(&in[2], 0, sizeof in[2]);  // absent: dtype BP_DTYPE_INVALID, rank 0, no buffer
  if (cbias) cbias->to_plugin(in[2]);
  target.to_plugin(o);
  if (out) {
    check_overlap(op, target, o, {{&ca, &in[0]}, {&cb, &in[1]}}, false);
    if (cbias) check_overlap(op, target, o, {{cbias, &in[2]}}, false);
  }
  bp_window_params window;
  std::memset(&window, 0, sizeof window);
  window.struct_size = sizeof window;
  window.spatial_rank = rank;
  window.groups = p.groups;
  for (int32_t i = 0; i < rank; ++i) {
    window.kernel[i] = kernel[i];
    window.stride[i] = p.stride[i];
    window.dilation[i] = p.dilation[i];
    window.pad_begin[i] = p.pad_begin[i];
    window.pad_end[i] = p.pad_end[i];
  }
  bp_op_attrs attrs = make_attrs();
  attrs.params = &window;
  run(a->device(), op, dtype, dtype, attrs, in, 3, o);
  return result;
}

void check_bias(int32_t op, const View *bias, int64_t channels, const char *which) {
  if (bias && (bias->rank != 1 || bias->shape[0] != channels))
    conv_fail(op, BP_ERR_SHAPE,
              "the bias " + shape_of(*bias) + " must be [" + std::to_string(channels) + "], one value per " + which +
                  " channel");
}

}  // namespace

View conv(const View &x, const View &w, const View *bias, const ConvParams &p, const View *out,
          const int64_t *out_extents) {
  const int32_t op = BP_OP_CONV;
  const int32_t rank = spatial_rank(op, x, "input", w, "weight");
  check_params(op, p, rank);
  check_channels(op, x, "input", x.shape[1], w, p.groups, true);
  check_bias(op, bias, w.shape[0], "output");
  int64_t shape[BP_MAX_RANK] = {x.shape[0], w.shape[0]};
  for (int32_t i = 0; i < rank; ++i) {
    const int64_t span = x.shape[2 + i] + p.pad_begin[i] + p.pad_end[i] - p.dilation[i] * (w.shape[2 + i] - 1) - 1;
    if (!out_extents && span < 0)
      conv_fail(op, BP_ERR_SHAPE,
                "the input " + shape_of(x) + " padded by " + std::to_string(p.pad_begin[i]) + " + " +
                    std::to_string(p.pad_end[i]) + " is smaller than the weight " + shape_of(w) + "'s kernel " +
                    std::to_string(w.shape[2 + i]) + " dilated by " + std::to_string(p.dilation[i]) +
                    " along spatial axis " + std::to_string(i) + ": the output size would be negative");
    shape[2 + i] = out_extents ? out_extents[i] : span / p.stride[i] + 1;
  }
  if (out_extents) check_extents(op, rank, x.shape + 2, shape + 2, w.shape + 2, p, "conv of " + shape_of(x));
  return launch(op, &x, &w, bias, rank, shape, p, w.shape + 2, out);
}

View conv_transpose(const View &dy, const View &w, const View *bias, const ConvParams &p, const int64_t *extents,
                    const View *out) {
  const int32_t op = BP_OP_CONV_TRANSPOSE;
  const int32_t rank = spatial_rank(op, dy, "input", w, "weight");
  check_params(op, p, rank);
  check_channels(op, dy, "input", dy.shape[1], w, p.groups, false);
  const int64_t channels = w.shape[1] * p.groups;
  check_bias(op, bias, channels, "output");
  int64_t shape[BP_MAX_RANK] = {dy.shape[0], channels};
  for (int32_t i = 0; i < rank; ++i) {
    shape[2 + i] = extents[i];
    if (extents[i] < 1)
      conv_fail(op, BP_ERR_SHAPE,
                "the input " + shape_of(dy) + " with the weight " + shape_of(w) + ", stride " +
                    std::to_string(p.stride[i]) + " and padding " + std::to_string(p.pad_begin[i]) + " + " +
                    std::to_string(p.pad_end[i]) + " gives output extent " + std::to_string(extents[i]) +
                    " along spatial axis " + std::to_string(i) + ": the output size would be negative or zero");
  }
  check_extents(op, rank, shape + 2, dy.shape + 2, w.shape + 2, p, "output " + shape_string(rank + 2, shape) +
                                                                        " from input " + shape_of(dy));
  return launch(op, &dy, &w, bias, rank, shape, p, w.shape + 2, out);
}

View conv_weight_grad(const View &x, const View &dy, const ConvParams &p, const int64_t *kernel) {
  const int32_t op = BP_OP_CONV_WEIGHT_GRAD;
  const int32_t rank = spatial_rank(op, x, "input", dy, "output gradient");
  check_params(op, p, rank);
  if (x.shape[0] != dy.shape[0] || x.shape[1] % p.groups != 0 || dy.shape[1] % p.groups != 0)
    conv_fail(op, BP_ERR_SHAPE,
              "the input " + shape_of(x) + " and the output gradient " + shape_of(dy) +
                  " must have one batch extent and channel counts that groups " + std::to_string(p.groups) +
                  " divides");
  int64_t shape[BP_MAX_RANK] = {dy.shape[1], x.shape[1] / p.groups};
  for (int32_t i = 0; i < rank; ++i) {
    if (kernel[i] < 1) conv_fail(op, BP_ERR_SHAPE, "kernel extents must be >= 1");
    shape[2 + i] = kernel[i];
  }
  check_extents(op, rank, x.shape + 2, dy.shape + 2, kernel, p, "input " + shape_of(x) + " and output gradient " +
                                                                    shape_of(dy));
  return launch(op, &x, &dy, nullptr, rank, shape, p, kernel, nullptr);
}

}  // namespace bp::core::dispatch
