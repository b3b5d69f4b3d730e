#include "view.hpp"

#include "device.hpp"
#include "dtype.hpp"
#include "errors.hpp"

namespace bp_cuda {

View device_view(const bp_plugin_tensor &t, const Device &device, const char *op, const char *role) {
  int64_t numel = 1;
  uint64_t last = 0;  // offset of the last element, in elements (validated: no overflow)
  for (int d = 0; d < t.rank; ++d) {
    numel *= t.shape[d];
    if (t.shape[d] > 0) last += static_cast<uint64_t>(t.shape[d] - 1) * static_cast<uint64_t>(t.strides[d]);
  }
  View v{nullptr, t.dtype, t.rank, numel, t.shape, t.strides, nullptr, 0, 0};
  if (numel == 0) return v;
  const bp_buffer_s &buffer = *t.buffer;
  if (buffer.device != &device)
    fail(BP_ERR_DEVICE_MISMATCH, "cuda: %s: %s is on %s, but the operator runs on %s", op, role, buffer.device->name(),
         device.name());
  v.buffer = &buffer;
  v.base = buffer.data() + t.offset;
  v.first_byte = t.offset;
  v.end_byte = t.offset + (last + 1) * static_cast<uint64_t>(dtype_size(t.dtype));
  return v;
}

bool may_overlap(const View &a, const View &b) {
  return a.numel > 0 && b.numel > 0 && a.buffer == b.buffer && a.first_byte < b.end_byte && b.first_byte < a.end_byte;
}

}  // namespace bp_cuda
