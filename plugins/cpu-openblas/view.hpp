// A tensor argument after validation: the address of element [0,...,0] and
// the shape and strides (pointing into the caller's bp_plugin_tensor, valid
// for the duration of the call).
#pragma once

#include <cstdint>
#include <string>

#include "backplane/plugin.h"
#include "dtype.hpp"
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

// Throws the error that describes what is wrong with *tensor (the checks of
// check_view, one by one, with a message for each).
[[noreturn]] void fail_view(const bp_plugin_tensor *tensor, const char *op, const char *role, bool is_output);

// Checks a tensor argument: dtype, rank, extents and strides, a live buffer
// of this plugin, an element-aligned offset, and that every element it
// addresses lies inside the buffer; a non-empty output may not have stride
// 0 on an axis of extent > 1 (its elements would overlap). `role` names it
// in messages ("input 1", "output"); `op` is the operator's name.
//
// Inline and branch-light because every execute runs it for each operand:
// the valid case costs a few dozen instructions; anything else goes to
// fail_view for the explanation.
inline View check_view(const bp_plugin_tensor *t, const char *op, const char *role, bool is_output) {
  if (t && static_cast<uint32_t>(t->dtype) - 1u < 5u && static_cast<uint32_t>(t->rank) <= BP_MAX_RANK) {
    const uint64_t size = dtype_size(t->dtype);
    uint64_t numel = 1, last = 0;  // element count; offset of the last element
    bool negative = false, overflow = false, overlap = false, empty = false;
    for (int d = 0; d < t->rank; ++d) {
      const int64_t extent = t->shape[d], stride = t->strides[d];
      uint64_t span;
      negative |= (extent | stride) < 0;
      empty |= extent == 0;
      overlap |= stride == 0 && extent > 1;
      overflow |= __builtin_mul_overflow(numel, static_cast<uint64_t>(extent), &numel);
      overflow |= __builtin_mul_overflow(static_cast<uint64_t>(extent) - 1, static_cast<uint64_t>(stride), &span);
      overflow |= __builtin_add_overflow(last, span, &last);
    }
    const bp_buffer_s *buffer = t->buffer;
    const bool live = buffer && buffer->magic == MemoryPool::kLiveMagic;
    if (!negative && empty && (!buffer || live))  // nothing addressed: any strides, no buffer needed
      return View{buffer ? t->buffer->data() : nullptr, t->dtype, t->rank, 0, t->shape, t->strides};
    uint64_t end;  // one past the last byte addressed
    overflow |= numel > static_cast<uint64_t>(INT64_MAX);
    overflow |= __builtin_add_overflow(last, uint64_t(1), &end);
    overflow |= __builtin_mul_overflow(end, size, &end);
    overflow |= __builtin_add_overflow(end, t->offset, &end);
    if (!negative && !overflow && !(is_output && overlap) && live && end <= buffer->bytes &&
        !(t->offset & (size - 1)))  // sizes are powers of two
      return View{t->buffer->data() + t->offset, t->dtype, t->rank, static_cast<int64_t>(numel), t->shape,
                  t->strides};
  }
  fail_view(t, op, role, is_output);
}

// "[2, 3]", for messages.
std::string shape_text(int32_t rank, const int64_t *shape);

// Throws the error for an elementwise input whose shape is not the output's.
[[noreturn]] void fail_shape(const bp_plugin_tensor *tensor, const View &out, const char *op, const char *role);

// check_view for an input of an elementwise operator, which must also have
// exactly the output's shape (the core has resolved broadcasting). Knowing
// the shape makes the common case cheaper: no element count to compute, and
// one loop that compares extents and bounds the span of the view.
inline View check_input(const bp_plugin_tensor *t, const View &out, const char *op, const char *role) {
  if (t && out.numel > 0 && static_cast<uint32_t>(t->dtype) - 1u < 5u && t->rank == out.rank) {
    const uint64_t size = dtype_size(t->dtype);
    uint64_t last = 0;  // offset of the last element
    bool bad = false;
    for (int d = 0; d < t->rank; ++d) {
      const int64_t stride = t->strides[d];
      uint64_t span;
      bad |= t->shape[d] != out.shape[d] || stride < 0;  // extents are then >= 1, like the output's
      bad |= __builtin_mul_overflow(static_cast<uint64_t>(out.shape[d]) - 1, static_cast<uint64_t>(stride), &span);
      bad |= __builtin_add_overflow(last, span, &last);
    }
    const bp_buffer_s *buffer = t->buffer;
    uint64_t end;  // one past the last byte addressed
    bad |= __builtin_add_overflow(last, uint64_t(1), &end);
    bad |= __builtin_mul_overflow(end, size, &end);
    bad |= __builtin_add_overflow(end, t->offset, &end);
    if (!bad && buffer && buffer->magic == MemoryPool::kLiveMagic && end <= buffer->bytes && !(t->offset & (size - 1)))
      return View{t->buffer->data() + t->offset, t->dtype, t->rank, out.numel, t->shape, t->strides};
  }
  // Rare or wrong: the full check explains a bad view, then the shape.
  const View v = check_view(t, op, role, false);
  if (v.rank != out.rank) fail_shape(t, out, op, role);
  for (int d = 0; d < v.rank; ++d)
    if (v.shape[d] != out.shape[d]) fail_shape(t, out, op, role);
  return v;
}

// Checks a buffer handle from the ABI (non-NULL, live) and returns it.
bp_buffer_s *check_buffer(bp_buffer buffer, const char *what);

// Checks that [offset, offset + bytes) lies inside the buffer.
void check_range(const bp_buffer_s *buffer, uint64_t offset, uint64_t bytes, const char *what);

}  // namespace cpu_backend
