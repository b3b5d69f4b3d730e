// Shared by the tests of the 8- and 16-bit dtypes (float16, bfloat16, int8,
// uint8, int16) on the CUDA plugin: tensors of any dtype from host vectors
// of its storage type (a half's bits as uint16_t), one-operator runs, and
// the host's answers from backplane/half.h and plugin.h's rules.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "backplane/half.h"
#include "cuda_test.hpp"

namespace cuda_test {

// A dense tensor of `dtype` holding `values`, whose element type has the dtype's size.
template <class T>
bp_plugin_tensor typed(Buffers &s, bp_dtype dtype, const Shape &shape, const std::vector<T> &values) {
  REQUIRE(dtype_size(dtype) == static_cast<int64_t>(sizeof(T)));
  REQUIRE(numel(shape) == static_cast<int64_t>(values.size()));
  return dense_view(s.buffer(values), dtype, shape);
}

// One operator over 1-D inputs of `in_dtype`, into a fresh output of
// `out_dtype`; the output's elements (storage type R).
template <class R, class T>
std::vector<R> run(Buffers &s, int32_t op, bp_dtype in_dtype, bp_dtype out_dtype,
                   std::initializer_list<std::vector<T>> inputs, const bp_op_attrs &a = attrs()) {
  std::vector<bp_plugin_tensor> views;
  const int64_t n = static_cast<int64_t>(inputs.begin()->size());
  for (const std::vector<T> &in : inputs) views.push_back(typed(s, in_dtype, {n}, in));
  const bp_plugin_tensor out = s.empty(out_dtype, {n});
  s.exec(op, views, out, a);
  return s.values<R>(out);
}

// ---- the halves on the host ---------------------------------------------------

inline bool is_half(bp_dtype dtype) { return dtype == BP_FLOAT16 || dtype == BP_BFLOAT16; }
inline float widen(bp_dtype half, uint16_t bits) {
  return half == BP_FLOAT16 ? bp_f32_from_f16(bits) : bp_f32_from_bf16(bits);
}
inline uint16_t round_f32(bp_dtype half, float x) {
  return half == BP_FLOAT16 ? bp_f16_from_f32(x) : bp_bf16_from_f32(x);
}
inline uint16_t round_f64(bp_dtype half, double x) {
  return half == BP_FLOAT16 ? bp_f16_from_f64(x) : bp_bf16_from_f64(x);
}
inline uint16_t round_i64(bp_dtype half, int64_t x) {
  return half == BP_FLOAT16 ? bp_f16_from_i64(x) : bp_bf16_from_i64(x);
}
inline bool is_nan_bits(bp_dtype half, uint16_t bits) { return std::isnan(widen(half, bits)); }

// Every 16-bit pattern.
inline std::vector<uint16_t> all_bit_patterns() {
  std::vector<uint16_t> v(65536);
  for (uint32_t i = 0; i < 65536; ++i) v[i] = static_cast<uint16_t>(i);
  return v;
}

// Halves bit for bit, except that any NaN matches any NaN (float32
// arithmetic's NaNs have no agreed payload between CPU and GPU).
inline void check_half_bits(bp_dtype half, const std::vector<uint16_t> &got, const std::vector<uint16_t> &want,
                            bool any_nan = true) {
  REQUIRE(got.size() == want.size());
  size_t wrong = 0;
  for (size_t i = 0; i < got.size() && wrong < 10; ++i) {
    if (any_nan && is_nan_bits(half, want[i]) && is_nan_bits(half, got[i])) continue;
    if (got[i] != want[i]) {
      ++wrong;
      FAIL_CHECK(dtype_name(half) << " element " << i << ": got 0x" << std::hex << got[i] << ", want 0x" << want[i]);
    }
  }
  CHECK(wrong == 0);
}

// plugin.h's float-to-integer rule: truncation, saturation, NaN to 0.
inline int64_t saturate(double x, int64_t low, int64_t high) {
  if (std::isnan(x)) return 0;
  if (x <= static_cast<double>(low)) return low;
  if (x >= static_cast<double>(high)) return high;
  return static_cast<int64_t>(x);
}

}  // namespace cuda_test
