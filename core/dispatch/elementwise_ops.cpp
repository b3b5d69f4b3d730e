// Elementwise operators: binary, binary with a scalar, unary, where, and the
// element copy that serves cast, assign and contiguous.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <optional>
#include <sstream>

#include "dispatch/dtype_rules.hpp"
#include "dispatch/op_support.hpp"
#include "dispatch/operators.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "fusion/fusion.hpp"

namespace bp::core::dispatch {

namespace {

// Binary operators are the BINARY and COMPARE families of the vocabulary.
bool is_binary(int32_t op) {
  return is_family(op, BP_OP_FAMILY_BINARY) || is_family(op, BP_OP_FAMILY_COMPARE);
}

void require_op(bool ok, int32_t op, const char *family) {
  if (!ok)
    fail(BP_ERR_INVALID_ARGUMENT, std::string("operator ") + std::to_string(op) + " (" +
                                      op_name(op) + ") is not a " + family + " operator");
}

}  // namespace

namespace {

bool same_shape(const View &x, const View &y) {
  if (x.rank != y.rank) return false;
  // A plain loop: std::equal becomes a memcmp call, costly for a few extents.
  for (int32_t d = 0; d < x.rank; ++d)
    if (x.shape[d] != y.shape[d]) return false;
  return true;
}

// The hot-loop case, kept free of temporaries: one dtype, one shape, an
// existing output. Returns false when the general path must decide.
bool binary_fast_out(int32_t op, const View &a, const View &b, const View &out,
                     const BinaryTypes &types) {
  if (a.dtype != types.compute || b.dtype != types.compute || out.dtype != types.result ||
      !same_shape(a, b) || !same_shape(a, out))
    return false;
  bp_plugin_tensor in[2], o;
  a.to_plugin(in[0]);
  b.to_plugin(in[1]);
  out.to_plugin(o);
  if (out.storage.get() == a.storage.get() || out.storage.get() == b.storage.get())
    check_overlap(op, out, o, {{&a, &in[0]}, {&b, &in[1]}}, true);
  run(a.device(), op, types.compute, types.result, make_attrs(), in, 2, o);
  return true;
}

// An elementwise operator with one tensor input (unary, or binary with a
// scalar operand) of the compute dtype: allocate (or defer) or check the
// output, run.
View one_input_typed(int32_t op, const View &A, const BinaryTypes &types, const bp_op_attrs &attrs,
                     const View *out) {
  if (!out && fusion::defers(A.device(), op, types.compute, types.result, A.rank, A.shape))
    return fusion::record(A.device(), op, types.compute, types.result, attrs, {&A}, A.rank, A.shape);
  View result = prepare_output(op, A.device(), types.result, A.rank, A.shape, out);
  const View &target = out ? *out : result;
  bp_plugin_tensor in, o;
  A.to_plugin(in);
  target.to_plugin(o);
  if (out) check_overlap(op, target, o, {{&A, &in}}, true);
  run(A.device(), op, types.compute, types.result, attrs, &in, 1, o);
  return result;
}

View one_input(int32_t op, const View &a, const BinaryTypes &types, const bp_op_attrs &attrs,
               const View *out) {
  if (a.dtype == types.compute) return one_input_typed(op, a, types, attrs, out);
  std::optional<View> ta;
  return one_input_typed(op, as_dtype(a, types.compute, ta), types, attrs, out);
}

}  // namespace

namespace {

BinaryTypes checked_binary_types(int32_t op, const View &a, const View &b, const View *out) {
  require_op(is_binary(op), op, "binary");
  check_devices(op, {&a, &b}, out);
  BinaryTypes types = binary_types(op, a.dtype, b.dtype);
  require_defined(op, types, promote(a.dtype, b.dtype));
  return types;
}

// Inputs of the compute dtype: broadcasting, and an output allocated (or
// deferred) or given.
View binary_typed(int32_t op, const View &A, const View &B, const BinaryTypes &types, const View *out) {
  int32_t rank;
  int64_t shape[BP_MAX_RANK];
  if (A.rank == B.rank && std::equal(A.shape, A.shape + A.rank, B.shape)) {
    rank = A.rank;
    std::copy(A.shape, A.shape + rank, shape);
  } else {
    broadcast_shapes(op, {&A, &B}, rank, shape);
  }
  if (!out && fusion::defers(A.device(), op, types.compute, types.result, rank, shape))
    return fusion::record(A.device(), op, types.compute, types.result, make_attrs(), {&A, &B}, rank, shape);
  View result = prepare_output(op, A.device(), types.result, rank, shape, out);
  const View &target = out ? *out : result;
  bp_plugin_tensor in[2], o;
  broadcast_view(A, rank, shape, in[0]);
  broadcast_view(B, rank, shape, in[1]);
  target.to_plugin(o);
  if (out) check_overlap(op, target, o, {{&A, &in[0]}, {&B, &in[1]}}, true);
  run(A.device(), op, types.compute, types.result, make_attrs(), in, 2, o);
  return result;
}

// binary_typed after converting the inputs that need it (apart, so that the
// common case builds no temporaries).
View binary_general(int32_t op, const View &a, const View &b, const BinaryTypes &types, const View *out) {
  if (a.dtype == types.compute && b.dtype == types.compute) return binary_typed(op, a, b, types, out);
  std::optional<View> ta, tb;
  return binary_typed(op, as_dtype(a, types.compute, ta), as_dtype(b, types.compute, tb), types, out);
}

}  // namespace

View binary(int32_t op, const View &a, const View &b, const View *out) {
  const BinaryTypes types = checked_binary_types(op, a, b, out);
  if (out && binary_fast_out(op, a, b, *out, types)) return View();
  return binary_general(op, a, b, types, out);
}

void binary_out(int32_t op, const View &a, const View &b, const View &out) {
  const BinaryTypes types = checked_binary_types(op, a, b, &out);
  if (!binary_fast_out(op, a, b, out, types)) binary_general(op, a, b, types, &out);
}

namespace {

std::string scalar_text(double scalar) {
  std::ostringstream text;
  text << std::setprecision(17) << scalar;
  return text.str();
}

// What the kind promises of the value (backplane.h): checked before any
// dtype is decided, so a wrong call names the scalar rather than a dtype.
void check_scalar_kind(int32_t op, double scalar, int32_t scalar_kind) {
  // Formatting the scalar costs more than the whole operator: only on failure.
  const auto what = [&] { return std::string(op_name(op)) + ": the scalar " + scalar_text(scalar); };
  switch (scalar_kind) {
    case BP_SCALAR_KIND_BOOL:
      if (scalar != 0.0 && scalar != 1.0) fail(BP_ERR_INVALID_ARGUMENT, what() + " is of kind BOOL but is not 0 or 1");
      return;
    case BP_SCALAR_KIND_INT:
      if (!std::isfinite(scalar) || std::floor(scalar) != scalar)
        fail(BP_ERR_INVALID_ARGUMENT, what() + " is of kind INT but is not an integer");
      return;
    case BP_SCALAR_KIND_FLOAT: return;
    default:
      fail(BP_ERR_INVALID_ARGUMENT, std::string(op_name(op)) + ": scalar_kind " +
                                        std::to_string(scalar_kind) +
                                        " is not a bp_scalar_kind (BOOL 1, INT 2, FLOAT 3)");
  }
}

}  // namespace

View binary_scalar(int32_t op, const View &a, double scalar, bool scalar_is_lhs, const View *out,
                   int32_t scalar_kind) {
  require_op(is_binary(op), op, "binary");
  check_devices(op, {&a}, out);
  if (scalar_kind != kScalarByValue) check_scalar_kind(op, scalar, scalar_kind);
  // 1.0's rule: "integral" also means representable in the tensor's dtype
  // (int32 for bool): a scalar out of its range computes in float64 rather
  // than being cut down.
  const bool integral = scalar_kind == kScalarByValue && std::isfinite(scalar) &&
                        std::floor(scalar) == scalar &&
                        (is_float(a.dtype) || integer_holds(a.dtype == BP_BOOL ? BP_INT32 : a.dtype, scalar));
  bp_op_attrs attrs = make_attrs();
  attrs.scalar_mode = scalar_is_lhs ? BP_SCALAR_LHS : BP_SCALAR_RHS;
  attrs.scalar = scalar;
  const BinaryTypes types = scalar_types(op, a.dtype, scalar_kind, integral);
  if (types.compute == BP_DTYPE_INVALID && !is_float(a.dtype))
    fail(BP_ERR_DTYPE, std::string(op_name(op)) + ": the scalar " + scalar_text(scalar) +
                           (scalar_kind == kScalarByValue ? " is not an integer of the tensor's range"
                                                          : " is a float, which makes the operation float64"));
  require_defined(op, types, a.dtype);
  if (scalar_kind == BP_SCALAR_KIND_INT && !is_float(types.compute) && types.compute != BP_BOOL &&
      !integer_holds(types.compute, scalar))
    fail(BP_ERR_INVALID_ARGUMENT, std::string(op_name(op)) + ": the integer scalar " + scalar_text(scalar) +
                                      " does not fit " + dtype_name(types.compute) +
                                      " (the dtype of the tensor); convert the tensor first");
  return one_input(op, a, types, attrs, out);
}

View unary(int32_t op, const View &a, const View *out) {
  require_op(is_family(op, BP_OP_FAMILY_UNARY), op, "unary");
  check_devices(op, {&a}, out);
  const BinaryTypes types = unary_types(op, a.dtype);
  require_defined(op, types, a.dtype);
  return one_input(op, a, types, make_attrs(), out);
}

View where(const View &cond, const View &a, const View &b, const View *out) {
  const int32_t op = BP_OP_WHERE;
  check_devices(op, {&cond, &a, &b}, out);
  if (cond.dtype != BP_BOOL) {
    Error e(BP_ERR_DTYPE, std::string("where: the condition (input 0) must be bool, not ") +
                              dtype_name(cond.dtype) + " (compare first, e.g. bp_binary_scalar(BP_OP_NE, c, 0, ...))");
    e.op = "where";
    e.input = 0;
    throw e;
  }
  int32_t dtype = promote(a.dtype, b.dtype);
  std::optional<View> ta, tb;
  const View &A = as_dtype(a, dtype, ta);
  const View &B = as_dtype(b, dtype, tb);
  int32_t rank;
  int64_t shape[BP_MAX_RANK];
  broadcast_shapes(op, {&cond, &A, &B}, rank, shape);
  if (!out && fusion::defers(A.device(), op, dtype, dtype, rank, shape))
    return fusion::record(A.device(), op, dtype, dtype, make_attrs(), {&cond, &A, &B}, rank, shape);
  View result = prepare_output(op, A.device(), dtype, rank, shape, out);
  const View &target = out ? *out : result;
  bp_plugin_tensor in[3], o;
  broadcast_view(cond, rank, shape, in[0]);
  broadcast_view(A, rank, shape, in[1]);
  broadcast_view(B, rank, shape, in[2]);
  target.to_plugin(o);
  if (out) check_overlap(op, target, o, {{&cond, &in[0]}, {&A, &in[1]}, {&B, &in[2]}}, true);
  run(A.device(), op, dtype, dtype, make_attrs(), in, 3, o);
  return result;
}

void assign(const View &dst, const View &src) {
  const int32_t op = BP_OP_COPY;
  check_devices(op, {&src}, &dst);
  int32_t rank;
  int64_t shape[BP_MAX_RANK];
  broadcast_shapes(op, {&dst, &src}, rank, shape);
  if (rank != dst.rank || !std::equal(shape, shape + rank, dst.shape))
    fail(BP_ERR_SHAPE, "assign: source of shape " + shape_string(src.rank, src.shape) +
                           " does not broadcast to the destination's shape " +
                           shape_string(dst.rank, dst.shape));
  bp_plugin_tensor in, o;
  broadcast_view(src, rank, shape, in);
  dst.to_plugin(o);
  check_overlap(op, dst, o, {{&src, &in}}, true);
  run(dst.device(), op, src.dtype, dst.dtype, make_attrs(), &in, 1, o);
}

View cast(const View &a, int32_t dtype) {
  if (!valid_dtype(dtype)) fail(BP_ERR_DTYPE, "invalid dtype " + std::to_string(dtype));
  return cast_view(a, dtype);
}

View contiguous_copy(const View &a) { return cast_view(a, a.dtype); }

}  // namespace bp::core::dispatch
