// TOPK: sort and top-k along an axis (bp_topk, bp_sort, bp_argsort). As for
// scans, the caller's axis is moved to the last axis of every view, so a
// plugin has one kernel shape; no dtype is converted (the operator is
// defined for every dtype), the values keep the input's and the positions
// are int64.
#include <string>

#include "dispatch/function_errors.hpp"
#include "dispatch/op_support.hpp"
#include "dispatch/operators.hpp"
#include "errors/error.hpp"
#include "tensors/overlap.hpp"
#include "tensors/view_ops.hpp"

namespace bp::core::dispatch {

TopkViews topk(const char *fn, const View &a, int64_t k, int32_t axis, bool largest, const View *values_out,
               const View *indices_out) {
  const int32_t op = BP_OP_TOPK;
  check_devices(op, {&a}, values_out);
  if (indices_out) check_devices(op, {&a}, indices_out);
  // A rank-0 tensor is one row of one element, as in PyTorch (axis 0 or -1);
  // its results have rank 0 too, unless k = 0 leaves them empty.
  const int64_t one = 1;
  View row;
  const bool scalar = a.rank == 0;
  if (scalar) reshape_view(a, 1, &one, row);
  const View &A = scalar ? row : a;
  const int32_t ax = function_axis(fn, scalar && axis == -1 ? 0 : axis, A.rank);
  const int64_t n = A.shape[ax];
  if (k < 0 || k > n)
    function_fail(fn, BP_ERR_SHAPE,
                  "k = " + std::to_string(k) + " is outside 0.." + std::to_string(n) + ": axis " +
                      std::to_string(axis) + " of shape " + shape_string(a.rank, a.shape) + " has " +
                      std::to_string(n) + " element" + (n == 1 ? "" : "s"));
  int64_t shape[BP_MAX_RANK];
  for (int32_t d = 0; d < A.rank; ++d) shape[d] = A.shape[d];
  shape[ax] = k;
  const bool scalar_result = scalar && k == 1;
  const int32_t rank = scalar_result ? 0 : A.rank;
  TopkViews r;
  r.values = prepare_output(op, A.device(), A.dtype, rank, shape, values_out);
  r.indices = prepare_output(op, A.device(), BP_INT64, rank, shape, indices_out);
  // The plugin's views: the outputs seen with the input's rank, axis last.
  View values = values_out ? *values_out : r.values, indices = indices_out ? *indices_out : r.indices;
  if (scalar_result) {
    reshape_view(View(values), 1, &one, values);
    reshape_view(View(indices), 1, &one, indices);
  }
  bp_plugin_tensor in, outs[2];
  axis_last_view(A, ax, in);
  axis_last_view(values, ax, outs[0]);
  axis_last_view(indices, ax, outs[1]);
  if (values_out) check_overlap(op, values, outs[0], {{&A, &in}}, false);
  if (indices_out) check_overlap(op, indices, outs[1], {{&A, &in}}, false);
  if (values_out && indices_out && values.storage.get() == indices.storage.get() &&
      views_overlap(values, indices))
    function_fail(fn, BP_ERR_INVALID_ARGUMENT, "the values and indices outputs overlap");
  bp_op_attrs attrs = make_attrs();
  attrs.option = largest ? BP_OPTION_LARGEST : 0;
  run(A.device(), op, A.dtype, A.dtype, attrs, &in, 1, outs, 2);
  return r;
}

}  // namespace bp::core::dispatch
