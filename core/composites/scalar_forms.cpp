// Reductions over a set of axes, where() with a scalar operand and fills
// with a scalar of a kind: made of autograd's operators, so the first two
// record, and holding the scalar-kind rule of backplane.h ("Dtypes
// (promotion)") where a scalar becomes a tensor.
#include "composites/scalar_forms.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "composites/recording.hpp"
#include "dispatch/creation.hpp"
#include "dispatch/dtype_rules.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"

namespace bp::core {

namespace {

[[noreturn]] void refuse(const char *fn, bp_status status, const std::string &what) {
  Error e(status, std::string(fn) + ": " + what);
  e.op = fn;
  throw e;
}

std::string number_text(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

// The dtype a scalar of this kind meets a tensor of dtype in (the kind
// table of backplane.h), after checking that the value is of its kind and,
// an INT, that the dtype holds it (int8 and 300 is an error, not 127).
int32_t scalar_dtype(const char *fn, int32_t dtype, double value, int32_t kind) {
  int32_t meet = dtype;
  switch (kind) {
    case BP_SCALAR_KIND_BOOL:
      if (value != 0.0 && value != 1.0)
        refuse(fn, BP_ERR_INVALID_ARGUMENT, "the scalar " + number_text(value) + " is of kind BOOL but is not 0 or 1");
      break;
    case BP_SCALAR_KIND_INT:
      // An infinity is an integer too large for a double (the bindings'
      // reading of a huge int): it fits no dtype.
      if (std::isnan(value) || (std::isfinite(value) && std::floor(value) != value))
        refuse(fn, BP_ERR_INVALID_ARGUMENT, "the scalar " + number_text(value) + " is of kind INT but is not an integer");
      if (dtype == BP_BOOL) meet = BP_INT64;
      if (!is_float(meet) && (!std::isfinite(value) || !integer_holds(meet, value)))
        refuse(fn, BP_ERR_INVALID_ARGUMENT,
               "the integer " + number_text(value) + " does not fit " + dtype_name(meet));
      break;
    case BP_SCALAR_KIND_FLOAT:
      if (!is_float(dtype)) meet = BP_FLOAT64;
      break;
    default:
      refuse(fn, BP_ERR_INVALID_ARGUMENT,
             "scalar kind " + std::to_string(kind) + " is not a bp_scalar_kind (BOOL 1, INT 2, FLOAT 3)");
  }
  return meet;
}

}  // namespace

View reduce_axes(int32_t op, const View &a, const int32_t *axes, int32_t count, bool keepdims) {
  const char *fn = "reduce_axes";
  if (!is_family(op, BP_OP_FAMILY_REDUCE))
    refuse(fn, BP_ERR_INVALID_ARGUMENT, std::string(op_name(op)) + " is not a reduction");
  if (count < 0) refuse(fn, BP_ERR_INVALID_ARGUMENT, "count is negative (" + std::to_string(count) + ")");
  if (count > 0 && !axes) refuse(fn, BP_ERR_INVALID_ARGUMENT, "axes is NULL");
  if (count > 1 && (op == BP_OP_ARGMAX || op == BP_OP_ARGMIN))
    refuse(fn, BP_ERR_INVALID_ARGUMENT, std::string(op_name(op)) + " gives positions along one axis, not " +
                                            std::to_string(count));
  // A rank-0 tensor's axes go to the one-axis reduction as given, which
  // decides what it takes.
  std::vector<int32_t> sorted(axes, axes + count);
  if (a.rank > 0) {
    for (int32_t &axis : sorted) {
      if (axis < -a.rank || axis >= a.rank)
        refuse(fn, BP_ERR_SHAPE, "axis " + std::to_string(axis) + " is out of range for " + std::to_string(a.rank) +
                                     " dimensions");
      if (axis < 0) axis += a.rank;
    }
  }
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    refuse(fn, BP_ERR_INVALID_ARGUMENT, "axis " + std::to_string(*std::adjacent_find(sorted.begin(), sorted.end())) +
                                            " is given twice");
  if (sorted.empty()) return autograd::cast(a, a.dtype);
  // A variance of variances is no variance: VAR reduces the set in one call.
  if (op == BP_OP_VAR && a.rank > 0) {
    bool reduced[BP_MAX_RANK] = {};
    for (int32_t axis : sorted) reduced[axis] = true;
    return autograd::var_over(a, reduced, keepdims, 0.0);
  }
  // The last axes first, so that the others keep their numbers; a mean of
  // means, a max of maxes, a norm of norms and a logsumexp of logsumexps
  // are the reduction over the union.
  View r = autograd::reduce(op, a, sorted[0], keepdims);
  for (size_t i = 1; i < sorted.size(); ++i) r = autograd::reduce(op, r, sorted[i], keepdims);
  return r;
}

View where_scalar(const View &cond, const View &a, double scalar, int32_t scalar_kind, bool scalar_is_a) {
  const View s = fill(a.device(), scalar_dtype("where", a.dtype, scalar, scalar_kind), 0, nullptr, scalar);
  return scalar_is_a ? autograd::where(cond, s, a) : autograd::where(cond, a, s);
}

View full_kind(Device &device, int32_t dtype, int32_t rank, const int64_t *shape, double value, int32_t value_kind) {
  // The kind decides only whether the value must fit: the dtype is given.
  scalar_dtype("full", dtype, value, value_kind);
  return fill(device, dtype, rank, shape, value);
}

}  // namespace bp::core
