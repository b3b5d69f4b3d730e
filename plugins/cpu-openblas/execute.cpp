#include "execute.hpp"

#include <cstddef>

#include "backend.hpp"
#include "dtype.hpp"
#include "errors.hpp"
#include "kernels.hpp"
#include "ops.hpp"
#include "view.hpp"

namespace cpu_backend {

namespace {

using bp_plugin::Attrs;

std::string shape_text(const View &v) { return cpu_backend::shape_text(v.rank, v.shape); }

[[noreturn]] void fail_unsupported(const OpInfo &info, int32_t in, int32_t out) {
  fail(BP_ERR_UNSUPPORTED, "cpu-openblas does not implement %s for %s -> %s", info.name, dtype_name(in),
       dtype_name(out));
}

inline void check_supported(const OpInfo &info, int32_t in, int32_t out) {
  if (!op_supports(info, in, out)) fail_unsupported(info, in, out);
}

// Operands that plugin.h says share a dtype but do not: a caller's bug.
void check_same_dtype(const char *op, const View &a, const View &b) {
  if (a.dtype != b.dtype)
    fail(BP_ERR_DTYPE, "%s: both inputs must have one dtype, but they are %s and %s", op, dtype_name(a.dtype),
         dtype_name(b.dtype));
}

void check_inputs(const char *op, int32_t n_inputs, int32_t expected, const bp_plugin_tensor *inputs) {
  if (n_inputs != expected)
    fail(BP_ERR_INVALID_ARGUMENT, "%s: takes %d inputs here, got %d", op, expected, n_inputs);
  if (expected > 0 && !inputs) fail(BP_ERR_INVALID_ARGUMENT, "%s: inputs is NULL", op);
}

// A broadcast view of one value converted to `dtype`, shaped like `out`.
struct ScalarOperand {
  alignas(8) unsigned char storage[8];
  static constexpr int64_t kZeroStrides[BP_MAX_RANK] = {};

  View view(double value, int32_t dtype, const View &out) {
    dispatch<BP_ALL_TYPES>(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      *reinterpret_cast<T *>(storage) = bp_kernels::Cast<T>()(value);
    });
    return View{reinterpret_cast<char *>(storage), dtype, out.rank, out.numel, out.shape, kZeroStrides};
  }
};

void run_binary(const OpInfo &info, int32_t op, const Attrs &attrs, const bp_plugin_tensor *inputs,
                int32_t n_inputs, const View &out) {
  const char *name = info.name;
  if (attrs.scalar_mode == BP_SCALAR_NONE) {
    check_inputs(name, n_inputs, 2, inputs);
    const View a = check_input(&inputs[0], out, name, "input 0");
    const View b = check_input(&inputs[1], out, name, "input 1");
    check_same_dtype(name, a, b);
    check_supported(info, a.dtype, out.dtype);
    return binary_kernel(*g_backend.pool, op, a, b, out);
  }
  if (attrs.scalar_mode != BP_SCALAR_RHS && attrs.scalar_mode != BP_SCALAR_LHS)
    fail(BP_ERR_INVALID_ARGUMENT, "%s: scalar_mode %d is not a bp_scalar_mode", name, attrs.scalar_mode);
  check_inputs(name, n_inputs, 1, inputs);
  const View a = check_input(&inputs[0], out, name, "input 0");
  check_supported(info, a.dtype, out.dtype);
  ScalarOperand scalar;
  const View s = scalar.view(attrs.scalar, a.dtype, out);
  if (attrs.scalar_mode == BP_SCALAR_RHS) return binary_kernel(*g_backend.pool, op, a, s, out);
  return binary_kernel(*g_backend.pool, op, s, a, out);
}

void run_where(const OpInfo &info, const bp_plugin_tensor *inputs, int32_t n_inputs, const View &out) {
  check_inputs("where", n_inputs, 3, inputs);
  const View cond = check_input(&inputs[0], out, "where", "input 0");
  const View a = check_input(&inputs[1], out, "where", "input 1");
  const View b = check_input(&inputs[2], out, "where", "input 2");
  if (cond.dtype != BP_BOOL)
    fail(BP_ERR_DTYPE, "where: input 0 (the condition) must be bool, not %s", dtype_name(cond.dtype));
  check_same_dtype("where", a, b);
  check_supported(info, a.dtype, out.dtype);
  where_kernel(*g_backend.pool, cond, a, b, out);
}

void run_unary(const OpInfo &info, int32_t op, const bp_plugin_tensor *inputs, int32_t n_inputs,
               const View &out) {
  check_inputs(info.name, n_inputs, 1, inputs);
  const View in = check_input(&inputs[0], out, info.name, "input 0");
  check_supported(info, in.dtype, out.dtype);
  if (info.kind == OpKind::copy) return copy_kernel(*g_backend.pool, in, out);
  unary_kernel(*g_backend.pool, op, in, out);
}

void run_reduce(const OpInfo &info, int32_t op, const bp_plugin_tensor *inputs, int32_t n_inputs,
                const View &out) {
  check_inputs(info.name, n_inputs, 1, inputs);
  const View in = check_view(&inputs[0], info.name, "input 0", false);
  check_supported(info, in.dtype, out.dtype);
  if (in.rank != out.rank)
    fail(BP_ERR_SHAPE, "%s: the output has rank %d but the input %d", info.name, out.rank, in.rank);
  bool empty = false;  // some reduced axis has extent 0
  for (int d = 0; d < in.rank; ++d) {
    if (out.shape[d] == 1) {
      empty |= in.shape[d] == 0;
    } else if (out.shape[d] != in.shape[d]) {
      fail(BP_ERR_SHAPE, "%s: output shape %s does not fit input shape %s (each axis is kept or reduced to 1)",
           info.name, shape_text(out).c_str(), shape_text(in).c_str());
    }
  }
  if (empty && out.numel > 0 && (op == BP_OP_MAX || op == BP_OP_MIN || op == BP_OP_ARGMAX))
    fail(BP_ERR_SHAPE, "%s: cannot reduce an empty set (input shape %s)", info.name, shape_text(in).c_str());
  reduce_kernel(*g_backend.pool, op, in, out);
}

void run_matmul(const OpInfo &info, const bp_plugin_tensor *inputs, int32_t n_inputs, const View &out) {
  check_inputs("matmul", n_inputs, 2, inputs);
  const View a = check_view(&inputs[0], "matmul", "input 0", false);
  const View b = check_view(&inputs[1], "matmul", "input 1", false);
  check_same_dtype("matmul", a, b);
  check_supported(info, a.dtype, out.dtype);
  const int r = out.rank;
  bool ok = r >= 2 && a.rank == r && b.rank == r;
  for (int d = 0; ok && d < r - 2; ++d) ok = a.shape[d] == out.shape[d] && b.shape[d] == out.shape[d];
  ok = ok && a.shape[r - 2] == out.shape[r - 2] && b.shape[r - 1] == out.shape[r - 1] &&
       a.shape[r - 1] == b.shape[r - 2];
  if (!ok)
    fail(BP_ERR_SHAPE, "matmul: shapes %s x %s -> %s do not fit [..., M, K] x [..., K, N] -> [..., M, N]",
         shape_text(a).c_str(), shape_text(b).c_str(), shape_text(out).c_str());
  matmul_kernel(*g_backend.pool, a, b, out);
}

void run_create(const OpInfo &info, int32_t op, const Attrs &attrs, const bp_plugin_tensor *inputs,
                int32_t n_inputs, const View &out) {
  check_inputs(info.name, n_inputs, 0, inputs);
  check_supported(info, out.dtype, out.dtype);
  create_kernel(*g_backend.pool, op, attrs.scalar, attrs.scalar2, attrs.seed, out);
}

}  // namespace

void check_device(int32_t device) {
  if (device != 0) fail(BP_ERR_UNKNOWN_DEVICE, "cpu-openblas has one device, cpu:0 (index 0), not index %d", device);
}

void execute_op(int32_t device, int32_t op, const bp_op_attrs *attrs_in, const bp_plugin_tensor *inputs,
                int32_t n_inputs, const bp_plugin_tensor *output) {
  require_started();
  check_device(device);
  const OpInfo *info = find_op(op);
  if (!info) fail(BP_ERR_UNSUPPORTED, "cpu-openblas does not implement operator %d", op);
  const Attrs attrs = bp_plugin::read_attrs(attrs_in, info->name);
  const View out = check_view(output, info->name, "output", true);
  switch (info->kind) {
    case OpKind::binary:
    case OpKind::compare: return run_binary(*info, op, attrs, inputs, n_inputs, out);
    case OpKind::where: return run_where(*info, inputs, n_inputs, out);
    case OpKind::unary:
    case OpKind::copy: return run_unary(*info, op, inputs, n_inputs, out);
    case OpKind::reduce: return run_reduce(*info, op, inputs, n_inputs, out);
    case OpKind::matmul: return run_matmul(*info, inputs, n_inputs, out);
    case OpKind::create: return run_create(*info, op, attrs, inputs, n_inputs, out);
  }
}

}  // namespace cpu_backend
