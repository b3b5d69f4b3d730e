// NumPy functions made of the routed operators: stack, eye, linspace, clip,
// var and std (the VAR operator) and allclose. Each runs operator by
// operator on its inputs' device, so every backend has them and the results
// follow the operators' semantics (plugin.h); the kit checks those. They call only the
// recording layer (the raw operators are not visible here: see
// dispatch/operators.hpp), so the differentiable ones record.
#include "composites/composites.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "composites/recording.hpp"
#include "composites/normalization.hpp"
#include "devices/registry.hpp"
#include "dispatch/creation.hpp"
#include "dispatch/dtype_rules.hpp"
#include "dispatch/function_errors.hpp"
#include "dispatch/op_support.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "tensors/view_ops.hpp"

namespace bp::core {

namespace {

// How many elements one result of a reduction over axis covers.
int64_t reduced_count(const char *fn, const View &a, int32_t axis) {
  if (axis == BP_AXIS_ALL) return a.numel();
  return a.shape[function_axis(fn, axis, a.rank)];
}

}  // namespace

View stack(const std::vector<const View *> &tensors, int32_t axis) {
  const char *fn = "stack";
  if (tensors.empty()) function_fail(fn, BP_ERR_INVALID_ARGUMENT, "needs at least one tensor");
  const View &first = *tensors[0];
  const int32_t a = function_axis(fn, axis, first.rank + 1);
  std::vector<View> expanded;
  std::vector<const View *> parts;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const View &t = *tensors[i];
    if (t.rank != first.rank || !std::equal(t.shape, t.shape + t.rank, first.shape))
      function_fail(fn, BP_ERR_SHAPE,
                     "input " + std::to_string(i) + " has shape " + shape_string(t.rank, t.shape) +
                         ", input 0 has " + shape_string(first.rank, first.shape) +
                         ": all must be the same");
    expanded.push_back(ag::expand_dims(t, a));
  }
  for (const View &v : expanded) parts.push_back(&v);
  return ag::concatenate(parts, a);
}

View eye(Device &device, int32_t dtype, int64_t n, int64_t m, int64_t k) {
  if (n < 0 || m < 0)
    function_fail("eye", BP_ERR_SHAPE,
                   "n and m must be >= 0, not " + std::to_string(n) + " and " + std::to_string(m));
  View rows = arange(device, BP_INT64, 0.0, double(n), 1.0);
  View cols = arange(device, BP_INT64, 0.0, double(m), 1.0);
  const int64_t column_shape[2] = {n, 1}, row_shape[2] = {1, m};
  View r, c;
  reshape_view(rows, 2, column_shape, r);
  reshape_view(cols, 2, row_shape, c);
  View diagonal = ag::binary_scalar(BP_OP_EQ, ag::binary(BP_OP_SUB, c, r), double(k), false);
  return ag::cast(diagonal, dtype);
}

View linspace(Device &device, int32_t dtype, double start, double stop, int64_t num, bool endpoint) {
  if (num < 0) function_fail("linspace", BP_ERR_SHAPE, "num must be >= 0, not " + std::to_string(num));
  if (!std::isfinite(start) || !std::isfinite(stop))
    function_fail("linspace", BP_ERR_INVALID_ARGUMENT, "start and stop must be finite");
  const int64_t divisions = endpoint ? num - 1 : num;
  const double step = divisions > 0 ? (stop - start) / double(divisions) : 0.0;
  View i = arange(device, BP_FLOAT64, 0.0, double(num), 1.0);
  View y = ag::binary_scalar(BP_OP_ADD, ag::binary_scalar(BP_OP_MUL, i, step, false), start, false);
  // start + i * step can round past stop; NumPy's last value is stop itself.
  if (endpoint && num > 1) ag::assign(slice_view(y, 0, num - 1, num, 1), fill(device, BP_FLOAT64, 0, nullptr, stop));
  return dtype == BP_FLOAT64 ? y : ag::cast(y, dtype);
}

View clip(const View &a, double low, double high) {
  if (std::isnan(low) || std::isnan(high))
    function_fail("clip", BP_ERR_INVALID_ARGUMENT, "a bound is NaN (no bound is -inf or +inf)");
  // An infinite bound changes nothing (NaN stays NaN either way): skipping it
  // keeps an integer tensor's dtype.
  const bool no_low = std::isinf(low) && low < 0, no_high = std::isinf(high) && high > 0;
  if (no_low && no_high) return ag::contiguous(a);
  if (no_low) return ag::binary_scalar(BP_OP_MINIMUM, a, high, false);
  View t = ag::binary_scalar(BP_OP_MAXIMUM, a, low, false);
  if (no_high) return t;  // (returning a named local moves it: its autograd link stays)
  return ag::binary_scalar(BP_OP_MINIMUM, t, high, false);
}

View var(const View &a, int32_t axis, bool keepdims, double ddof) {
  const int64_t n = reduced_count("var", a, axis);
  const int32_t one = axis == BP_AXIS_ALL ? -1 : function_axis("var", axis, a.rank);
  bool reduced[BP_MAX_RANK] = {};
  for (int32_t d = 0; d < a.rank; ++d) reduced[d] = one < 0 || d == one;
  // An integral ddof is the VAR operator's correction; NumPy's fractional
  // one scales the population variance by n / (n - ddof) (<= 0: division
  // by 0, as VAR's).
  if (ddof >= 0 && std::floor(ddof) == ddof && ddof <= 9007199254740992.0) return variance(a, reduced, keepdims, ddof);
  if (!std::isfinite(ddof)) function_fail("var", BP_ERR_INVALID_ARGUMENT, "ddof must be finite");
  const double divisor = double(n) - ddof;
  return ag::binary_scalar(BP_OP_MUL, variance(a, reduced, keepdims, 0.0), double(n) / (divisor > 0 ? divisor : 0.0),
                           false);
}

View random_integers(Device &device, int32_t dtype, int32_t rank, const int64_t *shape, int64_t low,
                     int64_t high, uint64_t seed) {
  const char *fn = "random_integers";
  if (bp_vocab_dtype_kind(dtype) != BP_DTYPE_KIND_SIGNED_INT &&
      bp_vocab_dtype_kind(dtype) != BP_DTYPE_KIND_UNSIGNED_INT)
    function_fail(fn, BP_ERR_DTYPE, std::string("the dtype must be an integer one, not ") + dtype_name(dtype));
  if (high <= low)
    function_fail(fn, BP_ERR_INVALID_ARGUMENT,
                   "low (" + std::to_string(low) + ") must be below high (" + std::to_string(high) + ")");
  // Every value drawn must fit the dtype (NumPy refuses such a range too).
  const int32_t bits = 8 * bp_vocab_dtype_size(dtype);
  const bool is_signed = bp_vocab_dtype_kind(dtype) == BP_DTYPE_KIND_SIGNED_INT;
  const int64_t lowest = bits >= 64 ? INT64_MIN : is_signed ? -(int64_t(1) << (bits - 1)) : 0;
  const int64_t highest = bits >= 64 ? INT64_MAX : is_signed ? (int64_t(1) << (bits - 1)) - 1
                                                             : (int64_t(1) << bits) - 1;
  if (low < lowest || high - 1 > highest)
    function_fail(fn, BP_ERR_INVALID_ARGUMENT,
                   "[" + std::to_string(low) + ", " + std::to_string(high) + ") does not fit " +
                       dtype_name(dtype));
  // The span in integers (no rounding of large bounds); the float64 stream is
  // exact for spans up to 2^53.
  const uint64_t span = uint64_t(high) - uint64_t(low);
  if (span > (uint64_t(1) << 53))
    function_fail(fn, BP_ERR_INVALID_ARGUMENT, "the range [low, high) holds more than 2^53 integers");
  View u = random(device, BP_OP_RANDOM_UNIFORM, BP_FLOAT64, rank, shape, 0.0, double(span), seed);
  // Truncation is floor for these non-negative draws; the minimum keeps a
  // draw that rounded up to the span inside the range.
  View k = ag::binary_scalar(BP_OP_MINIMUM, ag::cast(u, BP_INT64), double(span - 1), false);
  if (low != 0) {  // low added exactly, as an int64 tensor rather than a double
    View offset = from_host(device, BP_INT64, 0, nullptr, &low);
    k = ag::binary(BP_OP_ADD, k, offset);
  }
  return dtype == BP_INT64 ? k : ag::cast(k, dtype);
}

bool allclose(const View &a, const View &b, double rtol, double atol, bool equal_nan) {
  check_devices(BP_OP_SUB, {&a, &b}, nullptr);
  // A yes or no has no gradient: nothing here records.
  const View x = ag::detach(a), y = ag::detach(b);
  // Integers compare as float64, as NumPy does: a - b must not wrap.
  int32_t dtype = promote(x.dtype, y.dtype);
  if (!is_float(dtype)) dtype = BP_FLOAT64;
  View ca, cb;
  const View &A = x.dtype == dtype ? x : (ca = ag::cast(x, dtype), ca);
  const View &B = y.dtype == dtype ? y : (cb = ag::cast(y, dtype), cb);
  View distance = ag::unary(BP_OP_ABS, ag::binary(BP_OP_SUB, A, B));
  View tolerance =
      ag::binary_scalar(BP_OP_ADD, ag::binary_scalar(BP_OP_MUL, ag::unary(BP_OP_ABS, B), rtol, false), atol, false);
  View close = ag::binary(BP_OP_LE, distance, tolerance);
  if (equal_nan) {
    View both_nan = ag::binary(BP_OP_BITWISE_AND, ag::binary(BP_OP_NE, A, A), ag::binary(BP_OP_NE, B, B));
    close = ag::binary(BP_OP_BITWISE_OR, close, both_nan);
  }
  if (close.numel() == 0) return true;
  int32_t smallest = 0;
  to_host(ag::reduce(BP_OP_MIN, close, BP_AXIS_ALL, false), &smallest, sizeof smallest);
  return smallest != 0;
}

}  // namespace bp::core
