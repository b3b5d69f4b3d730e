// Pooling (MAX_POOL, AVG_POOL) and its gradients (MAX_POOL_GRAD,
// AVG_POOL_GRAD): the window's rule checked as PyTorch checks it, the
// output extents of floor or ceil mode (backplane/sdk/window.h, the formula
// the SDK accepts), then one call into the owning backend with the window
// as attrs.params.
#include <cstring>

#include "backplane/sdk/window.h"
#include "dispatch/op_support.hpp"
#include "dispatch/operators.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"

namespace bp::core {

namespace {

[[noreturn]] void refuse(int32_t op, bp_status status, const std::string &message) {
  Error e(status, std::string(op_name(op)) + ": " + message);
  e.op = op_name(op);
  throw e;
}

std::string axis_text(int32_t d) { return "spatial axis " + std::to_string(d); }

}  // namespace

void pool_shape(int32_t op, int32_t rank, const int64_t *shape, const PoolWindow &window, int64_t *out_shape) {
  const bp_window_params &w = window.params;
  const int32_t r = w.spatial_rank;
  if (r < 1 || r > BP_WINDOW_MAX_RANK)
    refuse(op, BP_ERR_INVALID_ARGUMENT, "the window has " + std::to_string(r) + " spatial axes (1 to 3)");
  if (rank != r + 2)
    refuse(op, BP_ERR_SHAPE,
           "a " + std::to_string(r) + "-d window pools an input of shape [N, C, " + std::to_string(r) +
               " spatial axes], not " + shape_string(rank, shape));
  out_shape[0] = shape[0];
  out_shape[1] = shape[1];
  for (int32_t d = 0; d < r; ++d) {
    const int64_t k = w.kernel[d], s = w.stride[d], dil = w.dilation[d], pb = w.pad_begin[d], pe = w.pad_end[d];
    if (k < 1 || s < 1 || dil < 1)
      refuse(op, BP_ERR_INVALID_ARGUMENT,
             axis_text(d) + ": kernel " + std::to_string(k) + ", stride " + std::to_string(s) + " and dilation " +
                 std::to_string(dil) + " must be at least 1");
    if (pb < 0 || pe < 0)
      refuse(op, BP_ERR_INVALID_ARGUMENT,
             axis_text(d) + ": padding " + std::to_string(pb) + ", " + std::to_string(pe) + " must not be negative");
    // PyTorch's rule: padding at most half the kernel, on either side.
    if (pb > k / 2 || pe > k / 2)
      refuse(op, BP_ERR_SHAPE,
             axis_text(d) + ": padding " + std::to_string(pb > k / 2 ? pb : pe) +
                 " is more than half the kernel size " + std::to_string(k));
    const int64_t extent = bp_sdk_window_extent(shape[2 + d], k, s, dil, pb, pe, window.ceil_mode ? 1 : 0);
    if (extent < 1)
      refuse(op, BP_ERR_SHAPE,
             axis_text(d) + ": the window (kernel " + std::to_string(k) + ", dilation " + std::to_string(dil) +
                 ", spanning " + std::to_string(dil * (k - 1) + 1) + ") is larger than the padded input (" +
                 std::to_string(shape[2 + d]) + " + " + std::to_string(pb) + " + " + std::to_string(pe) + ")");
    if (op == BP_OP_MAX_POOL) {
      const int64_t unreached = bp_sdk_window_unreached(shape[2 + d], extent, k, s, dil, pb);
      if (unreached >= 0)
        refuse(op, BP_ERR_SHAPE,
               axis_text(d) + ": the window of output position " + std::to_string(unreached) +
                   " covers only padding (dilation " + std::to_string(dil) + " steps over the " +
                   std::to_string(shape[2 + d]) + " input positions): it has no maximum");
    }
    out_shape[2 + d] = extent;
  }
}

namespace dispatch {

namespace {

bp_op_attrs window_attrs(const PoolWindow &window, bp_window_params &params) {
  params = window.params;
  params.struct_size = sizeof params;
  params.groups = 1;
  bp_op_attrs attrs = make_attrs();
  attrs.params = &params;
  return attrs;
}

bp_plugin_tensor absent() {
  bp_plugin_tensor t;
  std::memset(&t, 0, sizeof t);
  return t;
}

}  // namespace

Pooled pool(int32_t op, const View &x, const PoolWindow &window, bool with_indices) {
  if (!is_family(op, BP_OP_FAMILY_POOL))
    fail(BP_ERR_INVALID_ARGUMENT, "operator " + std::to_string(op) + " (" + op_name(op) + ") is not a pooling");
  check_devices(op, {&x}, nullptr);
  int64_t out_shape[BP_MAX_RANK] = {};
  pool_shape(op, x.rank, x.shape, window, out_shape);
  const BinaryTypes types = unary_types(op, x.dtype);
  require_defined(op, types, x.dtype);
  std::optional<View> temp;
  const View &X = as_dtype(x, types.compute, temp);
  Pooled result;
  result.values = prepare_output(op, X.device(), types.result, X.rank, out_shape, nullptr);
  bp_plugin_tensor in, outs[2];
  X.to_plugin(in);
  result.values.to_plugin(outs[0]);
  outs[1] = absent();
  if (with_indices && op == BP_OP_MAX_POOL) {
    result.indices = prepare_output(op, X.device(), BP_INT64, X.rank, out_shape, nullptr);
    result.indices.to_plugin(outs[1]);
  }
  bp_window_params params;
  const bp_op_attrs attrs = window_attrs(window, params);
  run(X.device(), op, types.compute, types.result, attrs, &in, 1, outs, 2);
  return result;
}

View pool_grad(int32_t op, const View &dy, const View *indices, const PoolWindow &window, int32_t rank,
               const int64_t *shape) {
  if (!is_family(op, BP_OP_FAMILY_POOL_GRAD))
    fail(BP_ERR_INVALID_ARGUMENT,
         "operator " + std::to_string(op) + " (" + op_name(op) + ") is not a pooling gradient");
  if (op == BP_OP_MAX_POOL_GRAD && !indices) fail(BP_ERR_INTERNAL, "max_pool_grad: no indices");
  if (indices)
    check_devices(op, {&dy, indices}, nullptr);
  else
    check_devices(op, {&dy}, nullptr);
  const BinaryTypes types = unary_types(op, dy.dtype);
  require_defined(op, types, dy.dtype);
  std::optional<View> temp;
  const View &G = as_dtype(dy, types.compute, temp);
  View dx = prepare_output(op, G.device(), types.result, rank, shape, nullptr);
  bp_plugin_tensor ins[2];
  G.to_plugin(ins[0]);
  ins[1] = absent();
  if (indices) indices->to_plugin(ins[1]);
  bp_plugin_tensor out;
  dx.to_plugin(out);
  bp_window_params params;
  const bp_op_attrs attrs = window_attrs(window, params);
  run(G.device(), op, types.compute, types.result, attrs, ins, 2, &out, 1);
  return dx;
}

}  // namespace dispatch

}  // namespace bp::core
