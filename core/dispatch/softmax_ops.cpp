// SOFTMAX and LOG_SOFTMAX. A plugin normalises rows along the last axis of
// its views: the core moves the caller's axis there in both the input and
// the output view (as for scans), so every backend needs one kernel shape.
#include "devices/registry.hpp"
#include "dispatch/dtype_rules.hpp"
#include "dispatch/op_support.hpp"
#include "dispatch/operators.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "loader/backend.hpp"

namespace bp::core::dispatch {

int32_t softmax_axis(int32_t op, int32_t axis, int32_t rank) {
  const int32_t extent = rank > 0 ? rank : 1;
  const int32_t ax = axis < 0 ? axis + extent : axis;
  if (ax < 0 || ax >= extent) {
    Error e(BP_ERR_SHAPE, std::string(op_name(op)) + ": axis " + std::to_string(axis) +
                              " is out of range for a tensor of rank " + std::to_string(rank) +
                              (rank > 0 ? " (axes " + std::to_string(-rank) + ".." + std::to_string(rank - 1) + ")"
                                        : " (axes -1 and 0)"));
    e.op = op_name(op);
    throw e;
  }
  return ax;
}

bool softmax_implemented(int32_t op, const View &a) {
  const BinaryTypes types = unary_types(op, a.dtype);
  Device &device = a.device();
  return device.backend->supports(device.index, op, types.compute, types.result);
}

View softmax(int32_t op, const View &a, int32_t axis, const View *out) {
  if (!is_family(op, BP_OP_FAMILY_SOFTMAX))
    fail(BP_ERR_INVALID_ARGUMENT,
         "operator " + std::to_string(op) + " (" + op_name(op) + ") is not softmax or log_softmax");
  check_devices(op, {&a}, out);
  const int32_t ax = softmax_axis(op, axis, a.rank);
  // Integers and bool compute in float64, as for EXP (vocabulary.h's dtype set).
  const BinaryTypes types = unary_types(op, a.dtype);
  return run_along_last_axis(op, types.compute, types.result, a, ax, out, true);
}

}  // namespace bp::core::dispatch
