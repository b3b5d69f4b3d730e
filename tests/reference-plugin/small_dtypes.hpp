// Helpers for the tests of the 8- and 16-bit dtypes (float16, bfloat16,
// int8, uint8, int16; ABI 1.4): tensors from host values stored in a C type
// of the dtype's size (uint16_t holds a half's bits), running one operator,
// and comparing halves bit for bit. Expected values in these tests are
// written out as literal bits, worked out by hand from IEEE 754 binary16 and
// bfloat16 (8 significant bits) rounding to nearest even.
#pragma once

#include <cstdio>

#include "reference_test.hpp"

namespace ref_test {

using Bits = std::vector<uint16_t>;

// A dense tensor of `dtype` and `shape` holding `values`, each stored as T.
template <class T>
bp_plugin_tensor make(Buffers &b, bp_dtype dtype, const Shape &shape, const std::vector<T> &values) {
  REQUIRE(sizeof(T) == static_cast<size_t>(dtype_size(dtype)));
  REQUIRE(numel(shape) == static_cast<int64_t>(values.size()));
  return dense_view(b.buffer(values), dtype, shape);
}

// A 1-D tensor.
template <class T>
bp_plugin_tensor row(Buffers &b, bp_dtype dtype, const std::vector<T> &values) {
  return make(b, dtype, {static_cast<int64_t>(values.size())}, values);
}

// Runs `op` into a fresh dense output of `out_dtype` and `shape`; its elements as R.
template <class R>
std::vector<R> run_into(Buffers &b, int32_t op, const std::vector<bp_plugin_tensor> &inputs, bp_dtype out_dtype,
                        const Shape &shape, const bp_op_attrs &a = attrs()) {
  const bp_plugin_tensor out = b.empty(out_dtype, shape);
  b.exec(op, inputs, out, a);
  return b.values<R>(out);
}

// An elementwise operator: the output has input 0's shape.
template <class R>
std::vector<R> elementwise(Buffers &b, int32_t op, const std::vector<bp_plugin_tensor> &inputs, bp_dtype out_dtype,
                           const bp_op_attrs &a = attrs()) {
  const bp_plugin_tensor &first = inputs.at(0);
  return run_into<R>(b, op, inputs, out_dtype, Shape(first.shape, first.shape + first.rank), a);
}

// Converts 1-D `values` of dtype `from` to `to` with COPY.
template <class R, class T>
std::vector<R> copy_to(Buffers &b, bp_dtype from, bp_dtype to, const std::vector<T> &values) {
  return elementwise<R>(b, BP_OP_COPY, {row(b, from, values)}, to);
}

inline bool is_half_nan(bp_dtype dtype, uint16_t h) {
  return dtype == BP_FLOAT16 ? (h & 0x7c00u) == 0x7c00u && (h & 0x03ffu) != 0
                             : (h & 0x7f80u) == 0x7f80u && (h & 0x007fu) != 0;
}

inline std::string hex(uint16_t h) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%04x", static_cast<unsigned>(h));
  return text;
}

// Bit-for-bit equality of halves, except that where a NaN is expected any
// NaN of the dtype will do (plugin.h fixes that a NaN results, not its payload).
inline void check_bits(bp_dtype dtype, const Bits &got, const Bits &expected) {
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO(dtype_name(dtype) << " element " << i << ": got " << hex(got[i]) << ", expected " << hex(expected[i]));
    if (is_half_nan(dtype, expected[i]))
      CHECK(is_half_nan(dtype, got[i]));
    else
      CHECK(got[i] == expected[i]);
  }
}

// A float32 from its bits, and back.
inline float f32(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
inline uint32_t bits32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

}  // namespace ref_test
