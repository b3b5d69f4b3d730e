// Reductions (over one axis, all of them, or a set: VAR's variance of a set
// is no variance of variances). The plugin always sees the output with the input's rank and
// extent 1 on reduced axes (stride 0 there), whatever keepdims says: keepdims
// only changes the user's shape, never the problem a backend solves.
#include <cmath>
#include <cstdio>

#include "dispatch/dtype_rules.hpp"
#include "dispatch/op_support.hpp"
#include "dispatch/operators.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"

namespace bp::core::dispatch {

View reduce(int32_t op, const View &a, int32_t axis, bool keepdims, const View *out) {
  if (!is_family(op, BP_OP_FAMILY_REDUCE))
    fail(BP_ERR_INVALID_ARGUMENT, "operator " + std::to_string(op) + " (" + op_name(op) +
                                      ") is not a reduction");
  bool reduced[BP_MAX_RANK] = {};
  if (axis == BP_AXIS_ALL) {
    for (int32_t d = 0; d < a.rank; ++d) reduced[d] = true;
  } else {
    int32_t ax = axis < 0 ? axis + a.rank : axis;
    if (ax < 0 || ax >= a.rank) {
      Error e(BP_ERR_SHAPE, std::string(op_name(op)) + ": axis " + std::to_string(axis) +
                                " is out of range for a tensor of rank " + std::to_string(a.rank));
      e.op = op_name(op);
      throw e;
    }
    reduced[ax] = true;
  }
  return reduce_over(op, a, reduced, keepdims, 0.0, out);
}

View reduce_over(int32_t op, const View &a, const bool *reduced, bool keepdims, double correction,
                 const View *out) {
  if (!is_family(op, BP_OP_FAMILY_REDUCE))
    fail(BP_ERR_INVALID_ARGUMENT, "operator " + std::to_string(op) + " (" + op_name(op) +
                                      ") is not a reduction");
  check_devices(op, {&a}, out);
  if (op == BP_OP_VAR && !(correction >= 0 && correction <= 9007199254740992.0 && std::floor(correction) == correction)) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", correction);
    Error e(BP_ERR_INVALID_ARGUMENT,
            std::string(op_name(op)) + ": the correction must be a non-negative integer, not " + text);
    e.op = op_name(op);
    throw e;
  }
  int64_t count = 1;
  for (int32_t d = 0; d < a.rank; ++d)
    if (reduced[d]) count *= a.shape[d];

  int32_t out_rank = 0;
  int64_t out_shape[BP_MAX_RANK];
  int64_t kept_numel = 1;
  for (int32_t d = 0; d < a.rank; ++d) {
    if (!reduced[d]) {
      out_shape[out_rank++] = a.shape[d];
      kept_numel *= a.shape[d];
    } else if (keepdims) {
      out_shape[out_rank++] = 1;
    }
  }
  if (count == 0 && kept_numel > 0 &&
      (op == BP_OP_MAX || op == BP_OP_MIN || op == BP_OP_ARGMAX || op == BP_OP_ARGMIN)) {
    Error e(BP_ERR_SHAPE, std::string(op_name(op)) + ": reducing an empty tensor of shape " +
                              shape_string(a.rank, a.shape) + " has no identity");
    e.op = op_name(op);
    throw e;
  }

  BinaryTypes types = reduce_types(op, a.dtype);
  View ta;
  const View &A = a.dtype == types.compute ? a : (ta = cast_view(a, types.compute), ta);
  View result = prepare_output(op, A.device(), types.result, out_rank, out_shape, out);
  const View &target = out ? *out : result;

  bp_plugin_tensor in, o;
  A.to_plugin(in);
  target.to_plugin(o);
  // Re-express the output in the input's rank.
  o.rank = A.rank;
  int32_t k = 0;
  for (int32_t d = 0; d < A.rank; ++d) {
    if (reduced[d]) {
      o.shape[d] = 1;
      o.strides[d] = 0;
      if (keepdims) ++k;
    } else {
      o.shape[d] = target.shape[k];
      o.strides[d] = target.strides[k];
      ++k;
    }
  }
  for (int32_t d = A.rank; d < BP_MAX_RANK; ++d) o.shape[d] = o.strides[d] = 0;
  if (out) check_overlap(op, target, o, {{&A, &in}}, false);
  bp_op_attrs attrs = make_attrs();
  if (op == BP_OP_VAR) attrs.scalar = correction;
  run(A.device(), op, types.compute, types.result, attrs, &in, 1, o);
  return result;
}

}  // namespace bp::core::dispatch
