// A tensor argument after validation (the SDK's check_execute): the address
// of element [0,...,0] and the shape and strides (pointing into the caller's
// bp_plugin_tensor, valid for the duration of the call).
#pragma once

#include <cstdint>

#include "backplane/plugin.h"
#include "memory_pool.hpp"

namespace cpu_backend {

struct View {
  char *base;  // element [0,...,0]; nullptr when numel is 0 and there is no buffer
  int32_t dtype;
  int32_t rank;
  int64_t numel;
  const int64_t *shape;
  const int64_t *strides;

  template <class T>
  T *data() const { return reinterpret_cast<T *>(base); }
};

// The view of a tensor that check_execute has validated.
inline View view_of(const bp_plugin_tensor &t, int64_t numel) {
  return View{t.buffer ? t.buffer->data() + t.offset : nullptr, t.dtype, t.rank, numel, t.shape, t.strides};
}

// For the SDK's validation: 1 and the size when `buffer` is a live buffer
// of this plugin.
int32_t live_buffer_bytes(void *context, bp_buffer buffer, uint64_t *bytes);

// Checks a buffer handle from the ABI (non-NULL, live) and returns it.
bp_buffer_s *check_buffer(bp_buffer buffer, const char *what);

// Checks that [offset, offset + bytes) lies inside the buffer.
void check_range(const bp_buffer_s *buffer, uint64_t offset, uint64_t bytes, const char *what);

}  // namespace cpu_backend
