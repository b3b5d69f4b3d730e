#include "execute.hpp"

#include "backend.hpp"
#include "backplane/kernels/elementwise.hpp"
#include "conv.hpp"
#include "dtype.hpp"
#include "errors.hpp"
#include "kernels.hpp"
#include "ops.hpp"
#include "small_types.hpp"
#include "view.hpp"

namespace cpu_backend {

namespace {

using bp_plugin::Attrs;

// A broadcast view of one value converted to `dtype`, shaped like `out`.
struct ScalarOperand {
  alignas(8) unsigned char storage[8];
  static constexpr int64_t kZeroStrides[BP_MAX_RANK] = {};

  View view(double value, int32_t dtype, const View &out) {
    dispatch_set<BP_DTYPE_SET_ALL>(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      *reinterpret_cast<T *>(storage) = from_double<T>(value);
    });
    return View{reinterpret_cast<char *>(storage), dtype, out.rank, out.numel, out.shape, kZeroStrides};
  }
};

void run_binary(int32_t op, const Attrs &attrs, const bp_plugin_tensor *inputs, const View &out) {
  const View a = view_of(inputs[0], out.numel);
  if (attrs.scalar_mode == BP_SCALAR_NONE)
    return binary_kernel(*g_backend.pool, op, a, view_of(inputs[1], out.numel), out);
  ScalarOperand scalar;
  const View s = scalar.view(attrs.scalar, a.dtype, out);
  if (attrs.scalar_mode == BP_SCALAR_RHS) return binary_kernel(*g_backend.pool, op, a, s, out);
  binary_kernel(*g_backend.pool, op, s, a, out);
}

// An input's element count: the output's, except for reductions, MATMUL,
// GATHER and SCATTER.
int64_t numel_of(const bp_plugin_tensor &t) {
  int64_t n = 1;
  for (int d = 0; d < t.rank; ++d) n *= t.shape[d];
  return n;
}

void run_reduce(int32_t op, const Attrs &attrs, const bp_plugin_tensor &input, const View &out) {
  const View in = view_of(input, numel_of(input));
  // MAX, MIN, ARGMAX and ARGMIN have no value for an empty set (the core never asks).
  if (in.numel == 0 && out.numel > 0 && op != BP_OP_SUM && op != BP_OP_MEAN && op != BP_OP_NORM &&
      op != BP_OP_PROD && op != BP_OP_LOGSUMEXP && op != BP_OP_VAR)
    fail(BP_ERR_SHAPE, "%s: cannot reduce an empty set", bp_plugin::op_name(op));
  reduce_kernel(*g_backend.pool, op, in, out, op == BP_OP_VAR ? static_cast<int64_t>(attrs.scalar) : 0);
}

// The window the SDK checked (or the core promised, BP_ATTRS_VALIDATED).
const bp_window_params &window_of(const Attrs &attrs) {
  return *static_cast<const bp_window_params *>(attrs.params);
}

void run_pool(int32_t op, const Attrs &attrs, const bp_plugin_tensor &x, const bp_plugin_tensor *outputs,
              const View &y) {
  const View indices = view_of(outputs[1], y.numel);
  pool_kernel(*g_backend.pool, op, window_of(attrs), view_of(x, numel_of(x)), y,
              bp_sdk_absent(&outputs[1]) ? nullptr : &indices);
}

void run_pool_grad(int32_t op, const Attrs &attrs, const bp_plugin_tensor *inputs, const View &dx) {
  const View indices = view_of(inputs[1], numel_of(inputs[1]));
  pool_grad_kernel(*g_backend.pool, op, window_of(attrs), view_of(inputs[0], numel_of(inputs[0])),
                   bp_sdk_absent(&inputs[1]) ? nullptr : &indices, dx);
}

}  // namespace

void check_device(int32_t device) {
  if (device != 0) fail(BP_ERR_UNKNOWN_DEVICE, "cpu-openblas has one device, cpu:0 (index 0), not index %d", device);
}

namespace {

// What execute needs of a call the core has validated (BP_ATTRS_VALIDATED):
// plugin.h's rules hold, so nothing is checked again.
bp_plugin::ExecuteInfo trusted_info(int32_t op, const bp_plugin_tensor *output) {
  bp_plugin::ExecuteInfo info{};
  info.family = bp_vocab_op_family(op);
  info.numel = 1;
  for (int32_t d = 0; d < output->rank; ++d) info.numel *= output->shape[d];
  return info;
}

bool validated(const bp_op_attrs *attrs) {
  return attrs && BP_SDK_FITS(attrs, flags) && (attrs->flags & BP_ATTRS_VALIDATED) != 0;
}

}  // namespace

void execute_op(int32_t device, int32_t op, const bp_op_attrs *attrs_in, const bp_plugin_tensor *inputs,
                int32_t n_inputs, const bp_plugin_tensor *output) {
  require_started();
  bp_plugin::ExecuteInfo info;
  if (validated(attrs_in)) {
    info = trusted_info(op, output);
  } else {
    check_device(device);
    info = bp_plugin::check_execute(op, attrs_in, inputs, n_inputs, output, live_buffer_bytes, nullptr);
    kCapabilities.require("cpu-openblas", op, info.dtype, output->dtype);
  }
  const Attrs attrs = bp_plugin::read_attrs(attrs_in, bp_plugin::op_name(op));
  const View out = view_of(*output, info.numel);
  switch (info.family) {
    case BP_OP_FAMILY_BINARY:
    case BP_OP_FAMILY_COMPARE: return run_binary(op, attrs, inputs, out);
    case BP_OP_FAMILY_WHERE:
      return where_kernel(*g_backend.pool, view_of(inputs[0], out.numel), view_of(inputs[1], out.numel),
                          view_of(inputs[2], out.numel), out);
    case BP_OP_FAMILY_UNARY: return unary_kernel(*g_backend.pool, op, view_of(inputs[0], out.numel), out);
    case BP_OP_FAMILY_COPY: return copy_kernel(*g_backend.pool, view_of(inputs[0], out.numel), out);
    case BP_OP_FAMILY_REDUCE: return run_reduce(op, attrs, inputs[0], out);
    case BP_OP_FAMILY_MATMUL:
      return matmul_kernel(*g_backend.pool, view_of(inputs[0], numel_of(inputs[0])),
                           view_of(inputs[1], numel_of(inputs[1])), out);
    case BP_OP_FAMILY_CREATE:
      return create_kernel(*g_backend.pool, op, attrs.scalar, attrs.scalar2, attrs.seed, out);
    case BP_OP_FAMILY_SCAN: return scan_kernel(*g_backend.pool, op, view_of(inputs[0], out.numel), out);
    case BP_OP_FAMILY_GATHER:
      return gather_nd_kernel(*g_backend.pool, view_of(inputs[0], numel_of(inputs[0])),
                              view_of(inputs[1], numel_of(inputs[1])), out);
    case BP_OP_FAMILY_SCATTER:
      return scatter_nd_kernel(*g_backend.pool, op, view_of(inputs[0], numel_of(inputs[0])),
                               view_of(inputs[1], numel_of(inputs[1])), out);
    case BP_OP_FAMILY_SOFTMAX: return softmax_kernel(*g_backend.pool, op, view_of(inputs[0], out.numel), out);
    case BP_OP_FAMILY_TOPK:
      return topk_kernel(*g_backend.pool, view_of(inputs[0], numel_of(inputs[0])), out,
                         view_of(output[1], out.numel), (attrs.option & BP_OPTION_LARGEST) != 0);
    case BP_OP_FAMILY_NORMALIZE: return normalize_kernel(*g_backend.pool, op, attrs.scalar, inputs, output);
    case BP_OP_FAMILY_ATTENTION:
      return attention_kernel(*g_backend.pool, view_of(inputs[0], numel_of(inputs[0])),
                              view_of(inputs[1], numel_of(inputs[1])), view_of(inputs[2], numel_of(inputs[2])),
                              view_of(inputs[3], numel_of(inputs[3])), attrs.scalar,
                              (attrs.option & BP_OPTION_CAUSAL) != 0, out);
    case BP_OP_FAMILY_CONV: return conv_kernel(*g_backend.pool, op, attrs_in, inputs, output);
    case BP_OP_FAMILY_POOL: return run_pool(op, attrs, inputs[0], output, out);
    case BP_OP_FAMILY_POOL_GRAD: return run_pool_grad(op, attrs, inputs, out);
  }
  fail(BP_ERR_INTERNAL, "cpu-openblas: no kernel for operator family %d", info.family);
}

}  // namespace cpu_backend
