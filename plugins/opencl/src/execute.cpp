// execute.cpp — checks one operator call completely, then hands it to its
// runner. The core has checked all of this already; checking again costs
// little and turns a core bug into an error message instead of a kernel
// reading out of bounds.
#include <algorithm>
#include <cstring>
#include <string>

#include "dtype.hpp"
#include "errors.hpp"
#include "ops.hpp"
#include "platform.hpp"
#include "supports.hpp"

namespace bp_ocl {

namespace {

int32_t expected_inputs(OpKind kind, const bp_op_attrs &attrs) {
  switch (kind) {
    case OpKind::Binary:
    case OpKind::Compare:
      return attrs.scalar_mode == BP_SCALAR_NONE ? 2 : 1;
    case OpKind::Where: return 3;
    case OpKind::Matmul: return 2;
    case OpKind::Create: return 0;
    default: return 1;
  }
}

void require_same_shape(const View &in, const View &out, int32_t op, int index) {
  bool same = in.rank == out.rank;
  for (int d = 0; same && d < out.rank; ++d) same = in.shape[d] == out.shape[d];
  if (!same)
    fail(BP_ERR_SHAPE, std::string("execute: ") + op_name(op) + ": input " + std::to_string(index) +
                           " does not have the output's shape (broadcasting is resolved by "
                           "the core: broadcast axes arrive with stride 0)");
}

void require_reducible(const View &in, const View &out, int32_t op) {
  bool ok = in.rank == out.rank;
  for (int d = 0; ok && d < out.rank; ++d) ok = out.shape[d] == in.shape[d] || out.shape[d] == 1;
  if (!ok)
    fail(BP_ERR_SHAPE, std::string("execute: ") + op_name(op) +
                           ": the output must have the input's rank, with extent 1 on reduced "
                           "axes and the input's extent on the others");
}

void require_matmul_shapes(const View &a, const View &b, const View &out) {
  const int r = out.rank;
  bool ok = r >= 2 && a.rank == r && b.rank == r;
  for (int d = 0; ok && d < r - 2; ++d)
    ok = a.shape[d] == out.shape[d] && b.shape[d] == out.shape[d];
  ok = ok && a.shape[r - 2] == out.shape[r - 2] && b.shape[r - 1] == out.shape[r - 1] &&
       a.shape[r - 1] == b.shape[r - 2];
  if (!ok)
    fail(BP_ERR_SHAPE,
         "execute: matmul needs a[..., M, K], b[..., K, N] and out[..., M, N] of one rank >= 2 "
         "with equal batch extents");
}

}  // namespace

void execute(int32_t device_index, int32_t op, const bp_op_attrs *attrs_in,
             const bp_plugin_tensor *inputs, int32_t n_inputs, const bp_plugin_tensor *output) {
  Device &device = backend("execute").device(device_index, "execute");
  const OpKind kind = op_kind(op);
  if (kind == OpKind::Unknown)
    fail(BP_ERR_INVALID_ARGUMENT, "execute: unknown operator " + std::to_string(op));

  if (!attrs_in) fail(BP_ERR_INVALID_ARGUMENT, std::string("execute: ") + op_name(op) + ": attrs is NULL");
  // Read only the attribute fields the core's struct has; absent ones are 0.
  bp_op_attrs attrs;
  std::memset(&attrs, 0, sizeof attrs);
  std::memcpy(&attrs, attrs_in, std::min<size_t>(attrs_in->struct_size, sizeof attrs));
  if ((kind == OpKind::Binary || kind == OpKind::Compare) &&
      (attrs.scalar_mode < BP_SCALAR_NONE || attrs.scalar_mode > BP_SCALAR_LHS))
    fail(BP_ERR_INVALID_ARGUMENT,
         std::string("execute: ") + op_name(op) + ": bad scalar_mode " + std::to_string(attrs.scalar_mode));

  const int32_t expected = expected_inputs(kind, attrs);
  if (n_inputs != expected)
    fail(BP_ERR_INVALID_ARGUMENT, std::string("execute: ") + op_name(op) + " takes " +
                                      std::to_string(expected) + " inputs here, got " +
                                      std::to_string(n_inputs));
  if (n_inputs > 0 && !inputs) fail(BP_ERR_INVALID_ARGUMENT, "execute: inputs is NULL");

  View in[3];
  const char *roles[3] = {"input 0", "input 1", "input 2"};
  for (int i = 0; i < n_inputs; ++i)
    in[i] = checked_view(&inputs[i], "execute", roles[i], device, false);
  const View out = checked_view(output, "execute", "output", device, true);

  // Dtypes: first what the operator's definition requires, then what this
  // device implements.
  const int32_t dtype = kind == OpKind::Create ? out.dtype : kind == OpKind::Where ? in[1].dtype
                                                                                 : in[0].dtype;
  if (n_inputs == 2 && in[1].dtype != in[0].dtype)
    fail(BP_ERR_DTYPE, std::string("execute: ") + op_name(op) + ": inputs are " + dtype_name(in[0].dtype) +
                           " and " + dtype_name(in[1].dtype) + " (the core promotes first)");
  if (kind == OpKind::Where && (in[0].dtype != BP_BOOL || in[2].dtype != in[1].dtype))
    fail(BP_ERR_DTYPE, "execute: where takes a bool condition and two inputs of one dtype");
  if (!implements(op, dtype, out.dtype, device.fp64()))
    fail(BP_ERR_UNSUPPORTED, "execute: " + device.name() + " does not implement " +
                                 op_name(op) + " for " + dtype_name(dtype) + " -> " +
                                 dtype_name(out.dtype));

  switch (kind) {
    case OpKind::Binary:
    case OpKind::Compare:
    case OpKind::Where:
    case OpKind::Unary:
    case OpKind::Copy:
      for (int i = 0; i < n_inputs; ++i) require_same_shape(in[i], out, op, i);
      break;
    case OpKind::Reduce: require_reducible(in[0], out, op); break;
    case OpKind::Matmul: require_matmul_shapes(in[0], in[1], out); break;
    default: break;
  }

  const Device::Lock lock = device.lock();
  switch (kind) {
    case OpKind::Binary:
    case OpKind::Compare:
      run_binary(device, lock, op, attrs, in[0], n_inputs == 2 ? in[1] : in[0], out);
      break;
    case OpKind::Where: run_where(device, lock, in[0], in[1], in[2], out); break;
    case OpKind::Unary: run_unary(device, lock, op, in[0], out); break;
    case OpKind::Copy: run_copy(device, lock, in[0], out); break;
    case OpKind::Reduce: run_reduce(device, lock, op, in[0], out); break;
    case OpKind::Matmul: run_matmul(device, lock, in[0], in[1], out); break;
    case OpKind::Create: run_create(device, lock, op, attrs, out); break;
    case OpKind::Unknown: break;
  }
}

}  // namespace bp_ocl
