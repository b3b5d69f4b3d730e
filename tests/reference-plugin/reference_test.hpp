// Helpers shared by the reference plugin's tests: a started plugin that owns
// every buffer a test makes, dense and strided tensors from host values, and
// value checks that treat NaN as equal to NaN.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "plugin_handle.hpp"

namespace ref_test {

using bp_test::default_attrs;
using bp_test::dense_view;
using Shape = std::vector<int64_t>;

// The bp_dtype of a host element type; bool elements are bytes (uint8_t).
template <class T>
struct dtype_of;
template <>
struct dtype_of<float> { static constexpr bp_dtype value = BP_FLOAT32; };
template <>
struct dtype_of<double> { static constexpr bp_dtype value = BP_FLOAT64; };
template <>
struct dtype_of<int32_t> { static constexpr bp_dtype value = BP_INT32; };
template <>
struct dtype_of<int64_t> { static constexpr bp_dtype value = BP_INT64; };
template <>
struct dtype_of<uint8_t> { static constexpr bp_dtype value = BP_BOOL; };

inline size_t dtype_size(int32_t dtype) {
  switch (dtype) {
    case BP_FLOAT32: case BP_INT32: return 4;
    case BP_FLOAT64: case BP_INT64: return 8;
    default: return 1;
  }
}

inline int64_t numel(const Shape &shape) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

// The reference plugin, started, plus every buffer the test allocates.
class Reference {
 public:
  Reference() : plugin_("reference") {}
  ~Reference() {
    for (bp_buffer b : buffers_) plugin_.api().free(b);
  }
  Reference(const Reference &) = delete;
  Reference &operator=(const Reference &) = delete;

  const bp_plugin_api &api() const { return plugin_.api(); }
  const bp_test::PluginHandle &plugin() const { return plugin_; }
  std::string error() const { return api().last_error(); }

  bp_buffer alloc(uint64_t bytes) {
    bp_buffer b = plugin_.alloc(0, bytes);
    buffers_.push_back(b);
    return b;
  }

  // A buffer holding `values`, freed at the end of the test.
  template <class T>
  bp_buffer buffer(const std::vector<T> &values) {
    bp_buffer b = alloc(values.size() * sizeof(T));
    if (!values.empty())
      plugin_.check(api().write(b, 0, values.data(), values.size() * sizeof(T)), "write");
    return b;
  }

  // A dense C-order tensor of `shape` holding `values`.
  template <class T>
  bp_plugin_tensor tensor(const Shape &shape, const std::vector<T> &values) {
    REQUIRE(numel(shape) == static_cast<int64_t>(values.size()));
    return dense_view(buffer(values), dtype_of<T>::value, shape);
  }

  // A view of `storage` with explicit strides (in elements) and offset (in elements).
  template <class T>
  bp_plugin_tensor view(const std::vector<T> &storage, const Shape &shape, const Shape &strides,
                        uint64_t offset_elements = 0) {
    bp_plugin_tensor t = dense_view(buffer(storage), dtype_of<T>::value, shape);
    for (size_t d = 0; d < strides.size(); ++d) t.strides[d] = strides[d];
    t.offset = offset_elements * sizeof(T);
    return t;
  }

  // A dense, zero-filled tensor (an output).
  bp_plugin_tensor empty(bp_dtype dtype, const Shape &shape) {
    const uint64_t bytes = static_cast<uint64_t>(numel(shape)) * dtype_size(dtype);
    bp_buffer b = alloc(bytes);
    std::vector<uint8_t> zeros(bytes, 0);
    if (bytes) plugin_.check(api().write(b, 0, zeros.data(), bytes), "write");
    return dense_view(b, dtype, shape);
  }

  bp_status run(int32_t op, const std::vector<bp_plugin_tensor> &inputs,
                const bp_plugin_tensor &output, const bp_op_attrs &attrs = default_attrs()) {
    return api().execute(0, op, &attrs, inputs.empty() ? nullptr : inputs.data(),
                         static_cast<int32_t>(inputs.size()), &output);
  }

  // run() that must succeed; the plugin's message is shown when it does not.
  void exec(int32_t op, const std::vector<bp_plugin_tensor> &inputs,
            const bp_plugin_tensor &output, const bp_op_attrs &attrs = default_attrs()) {
    const bp_status status = run(op, inputs, output, attrs);
    INFO("execute failed: " << error());
    REQUIRE(status == BP_OK);
  }

  // A tensor's elements in C order, read through its strides and offset.
  template <class T>
  std::vector<T> values(const bp_plugin_tensor &t) {
    REQUIRE(dtype_size(t.dtype) == sizeof(T));
    int64_t count = 1, span = 1;
    for (int d = 0; d < t.rank; ++d) {
      count *= t.shape[d];
      span += (t.shape[d] - 1) * t.strides[d];
    }
    std::vector<T> out;
    if (count == 0) return out;
    const size_t first = t.offset / sizeof(T);
    std::vector<T> raw = plugin_.download<T>(t.buffer, first + static_cast<size_t>(span));
    std::vector<int64_t> index(t.rank, 0);
    for (int64_t n = 0; n < count; ++n) {
      int64_t at = 0;
      for (int d = 0; d < t.rank; ++d) at += index[d] * t.strides[d];
      out.push_back(raw[first + at]);
      for (int d = t.rank - 1; d >= 0; --d) {
        if (++index[d] < t.shape[d]) break;
        index[d] = 0;
      }
    }
    return out;
  }

  // The first `count` elements of a buffer, as stored.
  template <class T>
  std::vector<T> contents(bp_buffer b, size_t count) {
    return plugin_.download<T>(b, count);
  }

  // An elementwise op on equal-length 1-D inputs; returns the output's values.
  template <class R, class T>
  std::vector<R> apply(int32_t op, const std::vector<std::vector<T>> &inputs,
                       const bp_op_attrs &attrs = default_attrs()) {
    std::vector<bp_plugin_tensor> views;
    const int64_t n = static_cast<int64_t>(inputs.at(0).size());
    for (const auto &in : inputs) views.push_back(tensor<T>({n}, in));
    bp_plugin_tensor out = empty(dtype_of<R>::value, {n});
    exec(op, views, out, attrs);
    return values<R>(out);
  }

 private:
  bp_test::PluginHandle plugin_;
  std::vector<bp_buffer> buffers_;
};

// Element-by-element equality; NaN equals NaN.
template <class T>
void check_values(const std::vector<T> &actual, const std::vector<T> &expected) {
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    INFO("element " << i);
    if constexpr (std::is_floating_point<T>::value) {
      if (std::isnan(expected[i])) {
        CHECK(std::isnan(actual[i]));
        continue;
      }
      CHECK(actual[i] == expected[i]);
    } else {
      CHECK(static_cast<int64_t>(actual[i]) == static_cast<int64_t>(expected[i]));
    }
  }
}

// Element-by-element closeness (relative), for results of libm functions.
template <class T>
void check_close(const std::vector<T> &actual, const std::vector<double> &expected,
                 double relative) {
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    INFO("element " << i);
    if (std::isnan(expected[i])) {
      CHECK(std::isnan(actual[i]));
    } else if (std::isinf(expected[i])) {
      CHECK(static_cast<double>(actual[i]) == expected[i]);
    } else {
      CHECK(static_cast<double>(actual[i]) == Approx(expected[i]).epsilon(relative).margin(1e-300));
    }
  }
}

// A status and a non-empty message that mentions every word in `words`.
inline void check_error(const Reference &ref, bp_status actual, bp_status expected,
                        const std::vector<std::string> &words = {}) {
  const std::string message = ref.error();
  INFO("message: " << message);
  CHECK(actual == expected);
  CHECK(!message.empty());
  for (const std::string &w : words) CHECK(message.find(w) != std::string::npos);
}

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace ref_test
