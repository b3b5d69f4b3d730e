// execute.cpp — checks one operator call completely, then hands it to its
// runner. The core has checked all of this already; checking again (with the
// SDK's validation) costs little and turns a core bug into an error message
// instead of a kernel reading out of bounds.
#include "buffer.hpp"
#include "dtype.hpp"
#include "errors.hpp"
#include "ops.hpp"
#include "platform.hpp"
#include "supports.hpp"

namespace bp_ocl {

void execute(int32_t device_index, int32_t op, const bp_op_attrs *attrs_in,
             const bp_plugin_tensor *inputs, int32_t n_inputs, const bp_plugin_tensor *output) {
  Device &device = backend("execute").device(device_index, "execute");
  // What plugin.h fixes (operator, input count, views inside live buffers,
  // shapes, dtypes), checked by the SDK; then what this device implements.
  const bp_plugin::ExecuteInfo info =
      bp_plugin::check_execute(op, attrs_in, inputs, n_inputs, output, live_buffer_bytes, nullptr);
  require_implemented(device, op, info.dtype, output->dtype);
  const char *name = bp_plugin::op_name(op);
  // Absent attribute fields (an older core's shorter struct) read as 0.
  const bp_plugin::Attrs attrs = bp_plugin::read_attrs(attrs_in, name);

  const char *roles[3] = {"input 0", "input 1", "input 2"};
  if (info.family == BP_OP_FAMILY_NORMALIZE) {  // three outputs; absent views have no buffer
    const char *out_roles[3] = {"output", "output 1", "output 2"};
    View in[3], out[3];
    for (int i = 0; i < 3; ++i) {
      if (!bp_sdk_absent(&inputs[i])) in[i] = device_view(inputs[i], name, roles[i], device);
      if (!bp_sdk_absent(&output[i])) out[i] = device_view(output[i], name, out_roles[i], device);
    }
    const Device::Lock lock = device.lock();
    return run_normalize(device, lock, op, attrs, in, out);
  }
  View in[3];
  for (int i = 0; i < n_inputs; ++i)
    if (!bp_sdk_absent(&inputs[i])) in[i] = device_view(inputs[i], name, roles[i], device);
  const View out = device_view(*output, name, "output", device);

  const Device::Lock lock = device.lock();
  switch (info.family) {
    case BP_OP_FAMILY_BINARY:
    case BP_OP_FAMILY_COMPARE:
      return run_binary(device, lock, op, attrs, in[0], n_inputs == 2 ? in[1] : in[0], out);
    case BP_OP_FAMILY_WHERE: return run_where(device, lock, in[0], in[1], in[2], out);
    case BP_OP_FAMILY_UNARY: return run_unary(device, lock, op, in[0], out);
    case BP_OP_FAMILY_COPY: return run_copy(device, lock, in[0], out);
    case BP_OP_FAMILY_REDUCE: return run_reduce(device, lock, op, attrs, in[0], out);
    case BP_OP_FAMILY_MATMUL: return run_matmul(device, lock, in[0], in[1], out);
    case BP_OP_FAMILY_CREATE: return run_create(device, lock, op, attrs, out);
    case BP_OP_FAMILY_SCAN: return run_scan(device, lock, op, in[0], out);
    case BP_OP_FAMILY_GATHER: return run_gather(device, lock, op, in[0], in[1], out);
    case BP_OP_FAMILY_SCATTER: return run_scatter(device, lock, op, in[0], in[1], out);
    case BP_OP_FAMILY_SOFTMAX: return run_softmax(device, lock, op, in[0], out);
    case BP_OP_FAMILY_TOPK:
      return run_topk(device, lock, attrs, in[0], out, device_view(output[1], name, "output 1", device));
    case BP_OP_FAMILY_CONV: return run_conv(device, lock, op, attrs_in, inputs, output, in, out);
    case BP_OP_FAMILY_POOL: {
      const bool with_indices = !bp_sdk_absent(&output[1]);
      const View indices = with_indices ? device_view(output[1], name, "output 1", device) : View();
      return run_pool(device, lock, op, *bp_sdk_window_params(attrs_in), in[0], out, with_indices ? &indices : nullptr);
    }
    case BP_OP_FAMILY_POOL_GRAD:
      return run_pool_grad(device, lock, op, *bp_sdk_window_params(attrs_in), in[0],
                           op == BP_OP_MAX_POOL_GRAD ? &in[1] : nullptr, out);
  }
  fail(BP_ERR_INTERNAL, "opencl plugin: no runner for operator family %d", info.family);
}

}  // namespace bp_ocl
