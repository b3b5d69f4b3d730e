// execute(): validates the operator's arguments (what plugin.h promises is
// checked again, cheaply, so a bad call is an error and never a wild memory
// access on the GPU), plans the index space on the host and enqueues the
// kernels on the device's stream. Nothing here waits for the device.
#include "execute.hpp"

#include <cinttypes>
#include <cstddef>
#include <string>

#include "dense_copy.hpp"
#include "device.hpp"
#include "device_registry.hpp"
#include "dtype.hpp"
#include "errors.hpp"
#include "iteration.hpp"
#include "kernels.hpp"
#include "matmul_cublas.hpp"
#include "ops.hpp"
#include "scratch.hpp"
#include "view.hpp"

namespace bp_cuda {

namespace {

using bp_plugin::Attrs;

std::string shape_text(const View &v) {
  std::string s = "[";
  for (int d = 0; d < v.rank; ++d) s += (d ? ", " : "") + std::to_string(v.shape[d]);
  return s + "]";
}

void check_supported(const char *op_name, int32_t op, int32_t in, int32_t out) {
  if (!op_supports(op, in, out))
    fail(BP_ERR_UNSUPPORTED, "cuda does not implement %s for %s -> %s", op_name, dtype_name(in), dtype_name(out));
}

// Operands that plugin.h says share a dtype but do not: a caller's bug.
void check_same_dtype(const char *op, const View &a, const View &b) {
  if (a.dtype != b.dtype)
    fail(BP_ERR_DTYPE, "cuda: %s: both inputs must have one dtype, but they are %s and %s", op, dtype_name(a.dtype),
         dtype_name(b.dtype));
}

// Elementwise inputs have exactly the output's shape (broadcasting is resolved by the core).
void check_same_shape(const char *op, const View &in, const char *role, const View &out) {
  bool same = in.rank == out.rank;
  for (int d = 0; same && d < out.rank; ++d) same = in.shape[d] == out.shape[d];
  if (!same)
    fail(BP_ERR_SHAPE, "cuda: %s: %s has shape %s but the output has %s", op, role, shape_text(in).c_str(),
         shape_text(out).c_str());
}

void check_inputs(const char *op, int32_t n_inputs, int32_t expected, const bp_plugin_tensor *inputs) {
  if (n_inputs != expected)
    fail(BP_ERR_INVALID_ARGUMENT, "cuda: %s: takes %d inputs here, got %d", op, expected, n_inputs);
  if (expected > 0 && !inputs) fail(BP_ERR_INVALID_ARGUMENT, "cuda: %s: inputs is NULL", op);
}

void run_binary(Device &device, const OpInfo &info, int32_t op, const Attrs &attrs, const bp_plugin_tensor *inputs,
                int32_t n_inputs, const View &out) {
  const char *name = info.name;
  const bool compare = info.kind == OpKind::compare;
  if (attrs.scalar_mode == BP_SCALAR_NONE) {
    check_inputs(name, n_inputs, 2, inputs);
    const View a = check_view(&inputs[0], device, name, "input 0", false);
    const View b = check_view(&inputs[1], device, name, "input 1", false);
    check_same_dtype(name, a, b);
    check_supported(name, op, a.dtype, out.dtype);
    check_same_shape(name, a, "input 0", out);
    check_same_shape(name, b, "input 1", out);
    if (out.numel == 0) return;
    const IterShape it = make_iter_shape(out.rank, out.shape, {out.strides, a.strides, b.strides});
    Device::Lock lock = device.lock();
    const Launch launch = device.launch(lock);
    const InputArg ia{a.base, 0}, ib{b.base, 0};
    if (compare) return launch_compare(launch, op, a.dtype, it, out.base, ia, ib);
    return launch_binary(launch, op, a.dtype, it, out.base, ia, ib);
  }
  if (attrs.scalar_mode != BP_SCALAR_RHS && attrs.scalar_mode != BP_SCALAR_LHS)
    fail(BP_ERR_INVALID_ARGUMENT, "cuda: %s: scalar_mode %d is not a bp_scalar_mode", name, attrs.scalar_mode);
  check_inputs(name, n_inputs, 1, inputs);
  const View a = check_view(&inputs[0], device, name, "input 0", false);
  check_supported(name, op, a.dtype, out.dtype);
  check_same_shape(name, a, "input 0", out);
  if (out.numel == 0) return;
  // The scalar is an operand without memory, converted to a's dtype by the launcher.
  const bool rhs = attrs.scalar_mode == BP_SCALAR_RHS;
  const InputArg tensor{a.base, 0}, scalar{nullptr, attrs.scalar};
  const IterShape it = rhs ? make_iter_shape(out.rank, out.shape, {out.strides, a.strides, nullptr})
                           : make_iter_shape(out.rank, out.shape, {out.strides, nullptr, a.strides});
  Device::Lock lock = device.lock();
  const Launch launch = device.launch(lock);
  const InputArg lhs_arg = rhs ? tensor : scalar, rhs_arg = rhs ? scalar : tensor;
  if (compare) return launch_compare(launch, op, a.dtype, it, out.base, lhs_arg, rhs_arg);
  return launch_binary(launch, op, a.dtype, it, out.base, lhs_arg, rhs_arg);
}

void run_where(Device &device, const bp_plugin_tensor *inputs, int32_t n_inputs, const View &out) {
  check_inputs("where", n_inputs, 3, inputs);
  const View cond = check_view(&inputs[0], device, "where", "input 0", false);
  const View a = check_view(&inputs[1], device, "where", "input 1", false);
  const View b = check_view(&inputs[2], device, "where", "input 2", false);
  if (cond.dtype != BP_BOOL)
    fail(BP_ERR_DTYPE, "cuda: where: input 0 (the condition) must be bool, not %s", dtype_name(cond.dtype));
  check_same_dtype("where", a, b);
  check_supported("where", BP_OP_WHERE, a.dtype, out.dtype);
  check_same_shape("where", cond, "input 0", out);
  check_same_shape("where", a, "input 1", out);
  check_same_shape("where", b, "input 2", out);
  if (out.numel == 0) return;
  const IterShape it = make_iter_shape(out.rank, out.shape, {out.strides, cond.strides, a.strides, b.strides});
  Device::Lock lock = device.lock();
  launch_where(device.launch(lock), a.dtype, it, out.base, cond.base, a.base, b.base);
}

void run_unary_or_copy(Device &device, const OpInfo &info, int32_t op, const bp_plugin_tensor *inputs, int32_t n_inputs,
                       const View &out) {
  check_inputs(info.name, n_inputs, 1, inputs);
  const View in = check_view(&inputs[0], device, info.name, "input 0", false);
  check_supported(info.name, op, in.dtype, out.dtype);
  check_same_shape(info.name, in, "input 0", out);
  if (out.numel == 0) return;
  const IterShape it = make_iter_shape(out.rank, out.shape, {out.strides, in.strides});
  Device::Lock lock = device.lock();
  const Launch launch = device.launch(lock);
  if (info.kind == OpKind::copy) return launch_copy(launch, in.dtype, out.dtype, it, out.base, in.base);
  launch_unary(launch, op, in.dtype, it, out.base, in.base);
}

void run_reduce(Device &device, const OpInfo &info, int32_t op, const bp_plugin_tensor *inputs, int32_t n_inputs,
                const View &out) {
  check_inputs(info.name, n_inputs, 1, inputs);
  const View in = check_view(&inputs[0], device, info.name, "input 0", false);
  check_supported(info.name, op, in.dtype, out.dtype);
  if (in.rank != out.rank)
    fail(BP_ERR_SHAPE, "cuda: %s: the output has rank %d but the input %d", info.name, out.rank, in.rank);
  bool empty = false;  // some reduced axis has extent 0
  for (int d = 0; d < in.rank; ++d) {
    if (out.shape[d] == 1) {
      empty |= in.shape[d] == 0;
    } else if (out.shape[d] != in.shape[d]) {
      fail(BP_ERR_SHAPE, "cuda: %s: output shape %s does not fit input shape %s (each axis is kept or reduced to 1)",
           info.name, shape_text(out).c_str(), shape_text(in).c_str());
    }
  }
  if (empty && out.numel > 0 && (op == BP_OP_MAX || op == BP_OP_MIN || op == BP_OP_ARGMAX))
    fail(BP_ERR_SHAPE, "cuda: %s: cannot reduce an empty set (input shape %s)", info.name, shape_text(in).c_str());
  if (out.numel == 0) return;
  const ReducePlan plan = make_reduce_plan(in, out);
  Device::Lock lock = device.lock();
  const Launch launch = device.launch(lock);
  Scratch scratch(device, lock);
  if (op == BP_OP_SUM || op == BP_OP_MEAN || op == BP_OP_NORM)
    return launch_reduce_sum(launch, op, in.dtype, plan, out.base, in.base, scratch);
  launch_reduce_extreme(launch, op, in.dtype, plan, out.base, in.base, scratch);
}

void run_matmul(Device &device, const bp_plugin_tensor *inputs, int32_t n_inputs, const View &out) {
  check_inputs("matmul", n_inputs, 2, inputs);
  const View a = check_view(&inputs[0], device, "matmul", "input 0", false);
  const View b = check_view(&inputs[1], device, "matmul", "input 1", false);
  check_same_dtype("matmul", a, b);
  check_supported("matmul", BP_OP_MATMUL, a.dtype, out.dtype);
  const int r = out.rank;
  bool ok = r >= 2 && a.rank == r && b.rank == r;
  for (int d = 0; ok && d < r - 2; ++d) ok = a.shape[d] == out.shape[d] && b.shape[d] == out.shape[d];
  ok = ok && a.shape[r - 2] == out.shape[r - 2] && b.shape[r - 1] == out.shape[r - 1] &&
       a.shape[r - 1] == b.shape[r - 2];
  if (!ok)
    fail(BP_ERR_SHAPE, "cuda: matmul: shapes %s x %s -> %s do not fit [..., M, K] x [..., K, N] -> [..., M, N]",
         shape_text(a).c_str(), shape_text(b).c_str(), shape_text(out).c_str());
  if (out.numel == 0) return;
  Device::Lock lock = device.lock();
  const Launch launch = device.launch(lock);
  if (a.shape[r - 1] == 0) {  // K = 0: every sum is empty
    launch_create(launch, BP_OP_FILL, out.dtype, make_iter_shape(out.rank, out.shape, {out.strides}), out.base, 0, 0,
                  0);
    return;
  }
  // Neither cuBLAS nor the integer kernel may write memory they still read.
  Scratch scratch(device, lock);
  DenseView out_copy;
  const bool overlap = may_overlap(out, a) || may_overlap(out, b);
  if (overlap) make_dense(scratch, out, out_copy);
  const View &target = overlap ? out_copy.view : out;
  if (is_float_dtype(out.dtype))
    matmul_cublas(device, lock, a, b, target, registry().allow_tf32.load());
  else
    launch_matmul_int(launch, out.dtype, make_matmul_shape(a, b, target), target.base, a.base, b.base);
  if (overlap) copy_view(launch, out_copy.view, out);
}

void run_create(Device &device, const OpInfo &info, int32_t op, const Attrs &attrs, const bp_plugin_tensor *inputs,
                int32_t n_inputs, const View &out) {
  check_inputs(info.name, n_inputs, 0, inputs);
  check_supported(info.name, op, out.dtype, out.dtype);
  if (out.numel == 0) return;
  const IterShape it = make_iter_shape(out.rank, out.shape, {out.strides});
  Device::Lock lock = device.lock();
  launch_create(device.launch(lock), op, out.dtype, it, out.base, attrs.scalar, attrs.scalar2, attrs.seed);
}

}  // namespace

void execute_op(int32_t device_index, int32_t op, const bp_op_attrs *attrs_in, const bp_plugin_tensor *inputs,
                int32_t n_inputs, const bp_plugin_tensor *output) {
  Device &device = device_at(device_index, "execute");
  const OpInfo *info = find_op(op);
  if (!info) fail(BP_ERR_UNSUPPORTED, "cuda does not implement operator %d", op);
  const Attrs attrs = bp_plugin::read_attrs(attrs_in, info->name);
  const View out = check_view(output, device, info->name, "output", true);
  switch (info->kind) {
    case OpKind::binary:
    case OpKind::compare: return run_binary(device, *info, op, attrs, inputs, n_inputs, out);
    case OpKind::where: return run_where(device, inputs, n_inputs, out);
    case OpKind::unary:
    case OpKind::copy: return run_unary_or_copy(device, *info, op, inputs, n_inputs, out);
    case OpKind::reduce: return run_reduce(device, *info, op, inputs, n_inputs, out);
    case OpKind::matmul: return run_matmul(device, inputs, n_inputs, out);
    case OpKind::create: return run_create(device, *info, op, attrs, inputs, n_inputs, out);
  }
}

}  // namespace bp_cuda
