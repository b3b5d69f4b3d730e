// Operators. Handles are looked up here; everything else is in dispatch/.
#include "autograd/functions.hpp"
#include "backplane/backplane.h"
#include "capi/guard.hpp"
#include "dispatch/operators.hpp"
#include "errors/names.hpp"
#include "tensors/handle_table.hpp"

using namespace bp::core;
namespace ag = bp::core::autograd;

namespace {

// Error paths are out of line so the lookups below stay a few instructions.
[[noreturn, gnu::cold, gnu::noinline]] void bad_handle(bp_tensor h, int32_t op, int32_t index) {
  std::string what = index < 0 ? std::string("the output") : "input " + std::to_string(index);
  Error e(BP_ERR_INVALID_HANDLE,
          std::string(op_name(op)) + ": " + what + " is " +
              (h == 0 ? std::string("a null tensor handle")
                      : "not a live tensor (released or never issued)"));
  e.op = op_name(op);
  e.input = index;
  throw e;
}

// Looks up input i of an operator, naming the operator and input on failure.
inline const View &input(bp_tensor h, int32_t op, int32_t index) {
  const View *v = handles().get(h);
  if (__builtin_expect(v == nullptr, 0)) bad_handle(h, op, index);
  return *v;
}

inline const View &output(bp_tensor h, int32_t op) {
  const View *v = handles().get(h);
  if (__builtin_expect(v == nullptr, 0)) bad_handle(h, op, -1);
  return *v;
}

void emit(View &&v, bp_tensor *out, int32_t op) {
  if (!out) fail(BP_ERR_INVALID_ARGUMENT, std::string(op_name(op)) + ": out is NULL");
  *out = handles().insert(std::move(v));
}

// 0 means "by value" inside the core (1.0's bp_binary_scalar); a caller of
// the kind API must name a kind.
void require_scalar_kind(int32_t op, int32_t scalar_kind) {
  if (scalar_kind == kScalarByValue)
    fail(BP_ERR_INVALID_ARGUMENT,
         std::string(op_name(op)) + ": scalar_kind 0 is not a bp_scalar_kind (BOOL 1, INT 2, FLOAT 3)");
}

// A scatter into dst, under the recording layer's write rules.
bp_status scatter(int32_t op, void (*write)(const View &, const View &, const View &), bp_tensor dst,
                  bp_tensor index, bp_tensor values) {
  return guarded([&] {
    const View &d = output(dst, op), &i = input(index, op, 0), &v = input(values, op, 1);
    ag::before_write(op_name(op), d, {&v});
    write(d, i, v);
    ag::wrote(d);
  });
}

// The families run along one axis (SCAN, SOFTMAX): into a new tensor
// through the recording layer, or into a caller's output through dispatch.
using AxisRecorded = View (*)(int32_t op, const View &a, int32_t axis);
using AxisInto = View (*)(int32_t op, const View &a, int32_t axis, const View *out);

bp_status along_axis(int32_t op, bp_tensor a, int32_t axis, bp_tensor *out, AxisRecorded recorded) {
  return guarded([&] {
    if (!out) fail(BP_ERR_INVALID_ARGUMENT, std::string(op_name(op)) + ": out is NULL");
    emit(recorded(op, input(a, op, 0), axis), out, op);
  });
}

bp_status along_axis_out(int32_t op, bp_tensor a, int32_t axis, bp_tensor out, AxisInto into) {
  return guarded([&] {
    const View &x = input(a, op, 0), &o = output(out, op);
    ag::before_write(op_name(op), o, {&x});
    into(op, x, axis, &o);
    ag::wrote(o);
  });
}

}  // namespace

extern "C" {

bp_status bp_binary(int32_t op, bp_tensor a, bp_tensor b, bp_tensor *out) {
  return guarded([&] {
    if (!out) fail(BP_ERR_INVALID_ARGUMENT, std::string(op_name(op)) + ": out is NULL");
    emit(ag::binary(op, input(a, op, 0), input(b, op, 1)), out, op);
  });
}

bp_status bp_binary_out(int32_t op, bp_tensor a, bp_tensor b, bp_tensor out) {
  return guarded([&] {
    const View &x = input(a, op, 0), &y = input(b, op, 1), &o = output(out, op);
    ag::before_write(op_name(op), o, {&x, &y});
    dispatch::binary_out(op, x, y, o);
    ag::wrote(o);
  });
}

bp_status bp_binary_scalar(int32_t op, bp_tensor a, double scalar, int32_t scalar_is_lhs,
                           bp_tensor *out) {
  return guarded([&] {
    if (!out) fail(BP_ERR_INVALID_ARGUMENT, std::string(op_name(op)) + ": out is NULL");
    emit(ag::binary_scalar(op, input(a, op, 0), scalar, scalar_is_lhs != 0), out, op);
  });
}

bp_status bp_binary_scalar_out(int32_t op, bp_tensor a, double scalar, int32_t scalar_is_lhs,
                               bp_tensor out) {
  return guarded([&] {
    const View &x = input(a, op, 0), &o = output(out, op);
    ag::before_write(op_name(op), o, {&x});
    dispatch::binary_scalar(op, x, scalar, scalar_is_lhs != 0, &o);
    ag::wrote(o);
  });
}

bp_status bp_binary_scalar_kind(int32_t op, bp_tensor a, double scalar, int32_t scalar_kind,
                                int32_t scalar_is_lhs, bp_tensor *out) {
  return guarded([&] {
    if (!out) fail(BP_ERR_INVALID_ARGUMENT, std::string(op_name(op)) + ": out is NULL");
    require_scalar_kind(op, scalar_kind);
    emit(ag::binary_scalar(op, input(a, op, 0), scalar, scalar_is_lhs != 0, scalar_kind), out, op);
  });
}

bp_status bp_binary_scalar_kind_out(int32_t op, bp_tensor a, double scalar, int32_t scalar_kind,
                                    int32_t scalar_is_lhs, bp_tensor out) {
  return guarded([&] {
    require_scalar_kind(op, scalar_kind);
    const View &x = input(a, op, 0), &o = output(out, op);
    ag::before_write(op_name(op), o, {&x});
    dispatch::binary_scalar(op, x, scalar, scalar_is_lhs != 0, &o, scalar_kind);
    ag::wrote(o);
  });
}

bp_status bp_unary(int32_t op, bp_tensor a, bp_tensor *out) {
  return guarded([&] {
    if (!out) fail(BP_ERR_INVALID_ARGUMENT, std::string(op_name(op)) + ": out is NULL");
    emit(ag::unary(op, input(a, op, 0)), out, op);
  });
}

bp_status bp_unary_out(int32_t op, bp_tensor a, bp_tensor out) {
  return guarded([&] {
    const View &x = input(a, op, 0), &o = output(out, op);
    ag::before_write(op_name(op), o, {&x});
    dispatch::unary(op, x, &o);
    ag::wrote(o);
  });
}

bp_status bp_where(bp_tensor cond, bp_tensor a, bp_tensor b, bp_tensor *out) {
  const int32_t op = BP_OP_WHERE;
  return guarded([&] {
    if (!out) fail(BP_ERR_INVALID_ARGUMENT, "where: out is NULL");
    emit(ag::where(input(cond, op, 0), input(a, op, 1), input(b, op, 2)), out, op);
  });
}

bp_status bp_where_out(bp_tensor cond, bp_tensor a, bp_tensor b, bp_tensor out) {
  const int32_t op = BP_OP_WHERE;
  return guarded([&] {
    const View &c = input(cond, op, 0), &x = input(a, op, 1), &y = input(b, op, 2), &o = output(out, op);
    ag::before_write("where", o, {&x, &y});
    dispatch::where(c, x, y, &o);
    ag::wrote(o);
  });
}

bp_status bp_reduce(int32_t op, bp_tensor a, int32_t axis, int32_t keepdims, bp_tensor *out) {
  return guarded([&] {
    if (!out) fail(BP_ERR_INVALID_ARGUMENT, std::string(op_name(op)) + ": out is NULL");
    emit(ag::reduce(op, input(a, op, 0), axis, keepdims != 0), out, op);
  });
}

bp_status bp_reduce_out(int32_t op, bp_tensor a, int32_t axis, int32_t keepdims, bp_tensor out) {
  return guarded([&] {
    const View &x = input(a, op, 0), &o = output(out, op);
    ag::before_write(op_name(op), o, {&x});
    dispatch::reduce(op, x, axis, keepdims != 0, &o);
    ag::wrote(o);
  });
}

bp_status bp_norm(bp_tensor a, bp_tensor *out) { return bp_reduce(BP_OP_NORM, a, BP_AXIS_ALL, 0, out); }

bp_status bp_norm_out(bp_tensor a, bp_tensor out) {
  return bp_reduce_out(BP_OP_NORM, a, BP_AXIS_ALL, 0, out);
}

bp_status bp_matmul(bp_tensor a, bp_tensor b, int32_t transpose_a, int32_t transpose_b,
                    bp_tensor *out) {
  const int32_t op = BP_OP_MATMUL;
  return guarded([&] {
    if (!out) fail(BP_ERR_INVALID_ARGUMENT, "matmul: out is NULL");
    emit(ag::matmul(input(a, op, 0), input(b, op, 1), transpose_a != 0, transpose_b != 0), out, op);
  });
}

bp_status bp_matmul_out(bp_tensor a, bp_tensor b, int32_t transpose_a, int32_t transpose_b,
                        bp_tensor out) {
  const int32_t op = BP_OP_MATMUL;
  return guarded([&] {
    const View &x = input(a, op, 0), &y = input(b, op, 1), &o = output(out, op);
    ag::before_write("matmul", o, {&x, &y});
    dispatch::matmul(x, y, transpose_a != 0, transpose_b != 0, &o);
    ag::wrote(o);
  });
}

bp_status bp_scan(int32_t op, bp_tensor a, int32_t axis, bp_tensor *out) {
  return along_axis(op, a, axis, out, ag::scan);
}
bp_status bp_scan_out(int32_t op, bp_tensor a, int32_t axis, bp_tensor out) {
  return along_axis_out(op, a, axis, out, dispatch::scan);
}
bp_status bp_softmax(bp_tensor a, int32_t axis, bp_tensor *out) {
  return along_axis(BP_OP_SOFTMAX, a, axis, out, ag::softmax);
}
bp_status bp_softmax_out(bp_tensor a, int32_t axis, bp_tensor out) {
  return along_axis_out(BP_OP_SOFTMAX, a, axis, out, dispatch::softmax);
}
bp_status bp_log_softmax(bp_tensor a, int32_t axis, bp_tensor *out) {
  return along_axis(BP_OP_LOG_SOFTMAX, a, axis, out, ag::softmax);
}
bp_status bp_log_softmax_out(bp_tensor a, int32_t axis, bp_tensor out) {
  return along_axis_out(BP_OP_LOG_SOFTMAX, a, axis, out, dispatch::softmax);
}

bp_status bp_gather_nd(bp_tensor a, bp_tensor index, bp_tensor *out) {
  const int32_t op = BP_OP_GATHER_ND;
  return guarded([&] {
    if (!out) fail(BP_ERR_INVALID_ARGUMENT, "gather_nd: out is NULL");
    emit(ag::gather_nd(input(a, op, 0), input(index, op, 1)), out, op);
  });
}

bp_status bp_scatter_nd(bp_tensor dst, bp_tensor index, bp_tensor values) {
  return scatter(BP_OP_SCATTER_ND, dispatch::scatter_nd, dst, index, values);
}

bp_status bp_scatter_add_nd(bp_tensor dst, bp_tensor index, bp_tensor values) {
  return scatter(BP_OP_SCATTER_ADD_ND, dispatch::scatter_add_nd, dst, index, values);
}

bp_status bp_nonzero(bp_tensor a, bp_tensor *out) {
  return guarded([&] {
    as_function("bp_nonzero", {"scatter_nd", "nonzero"}, [&] {
      if (!out) fail(BP_ERR_INVALID_ARGUMENT, "out is NULL");
      emit(dispatch::nonzero(input(a, BP_OP_SCATTER_ND, 0)), out, BP_OP_SCATTER_ND);
    });
  });
}

bp_status bp_cast(bp_tensor a, int32_t dtype, bp_tensor *out) {
  const int32_t op = BP_OP_COPY;
  return guarded([&] {
    as_function("bp_cast", {"copy"}, [&] {
      if (!out) fail(BP_ERR_INVALID_ARGUMENT, "out is NULL");
      emit(ag::cast(input(a, op, 0), dtype), out, op);
    });
  });
}

bp_status bp_assign(bp_tensor dst, bp_tensor src) {
  const int32_t op = BP_OP_COPY;
  return guarded([&] {
    as_function("bp_assign", {"copy", "assign"}, [&] {
      const View &d = output(dst, op), &s = input(src, op, 0);
      ag::assign(d, s);
    });
  });
}

}  // extern "C"
