// A tensor argument after validation: the device address of element
// [0,...,0] with the shape and strides (pointing into the caller's
// bp_plugin_tensor, valid for the duration of the call).
#pragma once

#include <cstdint>

#include "backplane/plugin.h"
#include "buffer.hpp"

namespace bp_cuda {

class Device;

struct View {
  char *base;  // device address; nullptr when numel is 0 and there is no buffer
  int32_t dtype;
  int32_t rank;
  int64_t numel;
  const int64_t *shape;
  const int64_t *strides;
  const bp_buffer_s *buffer;      // nullptr when numel is 0 and there is no buffer
  uint64_t first_byte, end_byte;  // the bytes of the buffer the view can touch
};

// A tensor argument the SDK has validated (bp_plugin::check_execute:
// well-formed, element-aligned, inside a live buffer of this plugin), as the
// kernels see it; a buffer on another device is BP_ERR_DEVICE_MISMATCH.
// `role` names it in messages ("input 1", "output"); `op` is the operator.
View device_view(const bp_plugin_tensor &tensor, const Device &device, const char *op, const char *role);

// Whether the two views may touch a common byte (same buffer, intersecting
// byte ranges).
bool may_overlap(const View &a, const View &b);

}  // namespace bp_cuda
