// execute.cpp — checks one operator call completely, then hands it to its
// runner. The core has checked all of this already; checking again (with the
// SDK's validation) costs little and turns a core bug into an error message
// instead of a kernel reading out of bounds.
#include <algorithm>
#include <cstring>
#include <string>

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
  if (!implements(op, info.dtype, output->dtype, device.fp64()))
    fail(BP_ERR_UNSUPPORTED, device.name() + " does not implement " + op_name(op) + " for " +
                                 dtype_name(info.dtype) + " -> " + dtype_name(output->dtype));
  // Absent attribute fields (an older core's shorter struct) read as 0.
  bp_op_attrs attrs;
  std::memset(&attrs, 0, sizeof attrs);
  std::memcpy(&attrs, attrs_in, std::min<size_t>(attrs_in->struct_size, sizeof attrs));

  const char *name = op_name(op);
  const char *roles[3] = {"input 0", "input 1", "input 2"};
  View in[3];
  for (int i = 0; i < n_inputs; ++i) in[i] = device_view(inputs[i], name, roles[i], device);
  const View out = device_view(*output, name, "output", device);

  const Device::Lock lock = device.lock();
  switch (op_kind(op)) {
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
