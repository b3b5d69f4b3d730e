// Scans (cumsum). A plugin always scans along the last axis of its views:
// the core permutes the caller's axis there in both the input and the
// output view, so every backend needs one kernel shape only.
#include "dispatch/dtype_rules.hpp"
#include "dispatch/op_support.hpp"
#include "dispatch/operators.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "tensors/view_ops.hpp"

namespace bp::core::dispatch {

View scan(int32_t op, const View &a, int32_t axis, const View *out) {
  if (!is_family(op, BP_OP_FAMILY_SCAN))
    fail(BP_ERR_INVALID_ARGUMENT,
         "operator " + std::to_string(op) + " (" + op_name(op) + ") is not a scan");
  check_devices(op, {&a}, out);
  // BP_AXIS_ALL scans the C-order flattening (NumPy's axis=None): a 1-D result.
  View flat;
  const View *source = &a;
  int32_t ax = axis;
  if (axis == BP_AXIS_ALL) {
    const int64_t n = a.numel();
    View dense = a.contiguous() ? a : contiguous_copy(a);
    reshape_view(dense, 1, &n, flat);
    source = &flat;
    ax = 0;
  } else {
    if (ax < 0) ax += a.rank;
    if (ax < 0 || ax >= a.rank) {
      Error e(BP_ERR_SHAPE, std::string(op_name(op)) + ": axis " + std::to_string(axis) +
                                " is out of range for a tensor of rank " + std::to_string(a.rank));
      e.op = op_name(op);
      throw e;
    }
  }
  const BinaryTypes types = reduce_types(op, source->dtype);
  return run_along_last_axis(op, types.compute, types.result, *source, ax, out, false);
}

}  // namespace bp::core::dispatch
