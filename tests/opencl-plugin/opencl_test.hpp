// What the OpenCL plugin tests share: both plugins (opencl under test, the
// reference as the oracle), views described on the host, and running one
// operator on both and comparing the whole output buffers.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "plugin_handle.hpp"

namespace ocl_test {

using bp_test::PluginHandle;
using Bytes = std::vector<unsigned char>;

// The plugins, loaded and started once per process. The runner sets
// POCL_DEVICES="pthread pthread", so opencl has two devices.
inline PluginHandle &ocl() {
  static PluginHandle handle("opencl");
  return handle;
}
inline PluginHandle &ref() {
  static PluginHandle handle("reference");
  return handle;
}

inline size_t dtype_size(int32_t dtype) {
  switch (dtype) {
    case BP_FLOAT32: case BP_INT32: return 4;
    case BP_FLOAT64: case BP_INT64: return 8;
    default: return 1;
  }
}

inline const char *dtype_name(int32_t dtype) {
  switch (dtype) {
    case BP_FLOAT32: return "float32";
    case BP_FLOAT64: return "float64";
    case BP_INT32: return "int32";
    case BP_INT64: return "int64";
    default: return "bool";
  }
}

const int32_t kAllDtypes[] = {BP_FLOAT32, BP_FLOAT64, BP_INT32, BP_INT64, BP_BOOL};

// A strided view of a buffer of `elements` elements.
struct Spec {
  int32_t dtype = BP_FLOAT32;
  std::vector<int64_t> shape, strides;
  int64_t offset = 0;  // elements
  int64_t elements = 0;

  int64_t numel() const {
    int64_t n = 1;
    for (int64_t e : shape) n *= e;
    return n;
  }
  std::string describe() const {
    std::ostringstream s;
    s << dtype_name(dtype) << " shape [";
    for (size_t i = 0; i < shape.size(); ++i) s << (i ? "," : "") << shape[i];
    s << "] strides [";
    for (size_t i = 0; i < strides.size(); ++i) s << (i ? "," : "") << strides[i];
    s << "] offset " << offset << " of " << elements;
    return s.str();
  }
};

// A view with the given strides and offset; its buffer holds what the view
// reaches plus two spare elements, so a write past the view shows up.
inline Spec strided(int32_t dtype, std::vector<int64_t> shape, std::vector<int64_t> strides,
                    int64_t offset = 0) {
  Spec s;
  s.dtype = dtype;
  s.shape = std::move(shape);
  s.strides = std::move(strides);
  s.offset = offset;
  int64_t span = 0;
  bool empty = false;
  for (size_t d = 0; d < s.shape.size(); ++d) {
    if (s.shape[d] == 0) empty = true;
    else span += (s.shape[d] - 1) * s.strides[d];
  }
  s.elements = offset + (empty ? 0 : span + 1) + 2;
  return s;
}

inline Spec dense(int32_t dtype, std::vector<int64_t> shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  Spec s = strided(dtype, shape, strides);
  s.elements -= 2;
  return s;
}

inline Spec with_dtype(Spec s, int32_t dtype) {
  s.dtype = dtype;
  return s;
}

// A view plus the whole contents of its buffer.
struct Tensor {
  Spec spec;
  Bytes data;
};

enum class Values {
  Small,  // floats in [-3, 3], integers in [-20, 20], bools 0/1
  Full    // integers over their whole range (wrap-around)
};

template <class T>
void put(Bytes &data, int64_t i, T value) {
  std::memcpy(data.data() + i * sizeof(T), &value, sizeof(T));
}

template <class T>
T get(const Bytes &data, int64_t i) {
  T value;
  std::memcpy(&value, data.data() + i * sizeof(T), sizeof(T));
  return value;
}

inline Tensor random_tensor(const Spec &spec, std::mt19937_64 &rng, Values values = Values::Small) {
  Tensor t{spec, Bytes(static_cast<size_t>(spec.elements) * dtype_size(spec.dtype))};
  std::uniform_real_distribution<double> real(-3.0, 3.0);
  std::uniform_int_distribution<int64_t> small(-20, 20);
  for (int64_t i = 0; i < spec.elements; ++i) {
    switch (spec.dtype) {
      case BP_FLOAT32: put<float>(t.data, i, static_cast<float>(real(rng))); break;
      case BP_FLOAT64: put<double>(t.data, i, real(rng)); break;
      case BP_INT32:
        put<int32_t>(t.data, i, values == Values::Full ? static_cast<int32_t>(rng())
                                                       : static_cast<int32_t>(small(rng)));
        break;
      case BP_INT64:
        put<int64_t>(t.data, i, values == Values::Full ? static_cast<int64_t>(rng()) : small(rng));
        break;
      default: put<uint8_t>(t.data, i, static_cast<uint8_t>(rng() & 1)); break;
    }
  }
  return t;
}

// A tensor whose buffer holds exactly `values` (converted to its dtype).
template <class T>
Tensor tensor_of(const Spec &spec, const std::vector<T> &values) {
  Tensor t{spec, Bytes(static_cast<size_t>(spec.elements) * dtype_size(spec.dtype))};
  REQUIRE(static_cast<int64_t>(values.size()) == spec.elements);
  for (int64_t i = 0; i < spec.elements; ++i) {
    const T v = values[static_cast<size_t>(i)];
    switch (spec.dtype) {
      case BP_FLOAT32: put<float>(t.data, i, static_cast<float>(v)); break;
      case BP_FLOAT64: put<double>(t.data, i, static_cast<double>(v)); break;
      case BP_INT32: put<int32_t>(t.data, i, static_cast<int32_t>(v)); break;
      case BP_INT64: put<int64_t>(t.data, i, static_cast<int64_t>(v)); break;
      default: put<uint8_t>(t.data, i, v != T(0)); break;
    }
  }
  return t;
}

inline bp_plugin_tensor plugin_view(bp_buffer buffer, const Spec &spec) {
  bp_plugin_tensor t;
  std::memset(&t, 0, sizeof t);
  t.buffer = buffer;
  t.offset = static_cast<uint64_t>(spec.offset) * dtype_size(spec.dtype);
  t.dtype = spec.dtype;
  t.rank = static_cast<int32_t>(spec.shape.size());
  for (int d = 0; d < t.rank; ++d) {
    t.shape[d] = spec.shape[static_cast<size_t>(d)];
    t.strides[d] = spec.strides[static_cast<size_t>(d)];
  }
  return t;
}

inline bp_op_attrs attrs_with(double scalar = 0, double scalar2 = 0, uint64_t seed = 0,
                              int32_t scalar_mode = BP_SCALAR_NONE) {
  bp_op_attrs a = bp_test::default_attrs();
  a.scalar = scalar;
  a.scalar2 = scalar2;
  a.seed = seed;
  a.scalar_mode = scalar_mode;
  return a;
}

// Runs op on one plugin's device; returns the output's whole buffer, which
// starts filled with 0xA5 bytes so that stray and missing writes both show.
inline Bytes run_on(PluginHandle &p, int32_t device, int32_t op, const bp_op_attrs &attrs,
                    const std::vector<Tensor> &inputs, const Spec &out) {
  std::vector<bp_buffer> buffers;
  std::vector<bp_plugin_tensor> views;
  for (const Tensor &in : inputs) {
    buffers.push_back(p.upload(device, in.data));
    views.push_back(plugin_view(buffers.back(), in.spec));
  }
  const Bytes sentinel(static_cast<size_t>(out.elements) * dtype_size(out.dtype), 0xA5);
  bp_buffer out_buffer = p.upload(device, sentinel);
  const bp_plugin_tensor out_view = plugin_view(out_buffer, out);
  p.check(p.api().execute(device, op, &attrs, views.data(), static_cast<int32_t>(views.size()),
                          &out_view),
          "execute");
  Bytes result = p.download<unsigned char>(out_buffer, sentinel.size());
  for (bp_buffer b : buffers) p.check(p.api().free(b), "free");
  p.check(p.api().free(out_buffer), "free");
  return result;
}

// How close float results must be: |got - want| <= rel * |want| + abs.
// Both 0 means identical values (NaN equals NaN, zeros agree in sign).
struct Tolerance {
  double rel = 0, abs = 0;
};
const Tolerance kExact{};

// Element-by-element comparison of two whole output buffers.
inline void compare_buffers(int32_t dtype, const Bytes &got, const Bytes &want, Tolerance tol,
                            const std::string &what) {
  REQUIRE(got.size() == want.size());
  const int64_t n = static_cast<int64_t>(got.size() / dtype_size(dtype));
  int64_t bad = 0;
  std::ostringstream first;
  for (int64_t i = 0; i < n; ++i) {
    bool ok;
    double g = 0, w = 0;
    if (dtype == BP_FLOAT32 || dtype == BP_FLOAT64) {
      g = dtype == BP_FLOAT32 ? get<float>(got, i) : get<double>(got, i);
      w = dtype == BP_FLOAT32 ? get<float>(want, i) : get<double>(want, i);
      if (std::isnan(g) || std::isnan(w)) ok = std::isnan(g) && std::isnan(w);
      else if ((tol.rel == 0 && tol.abs == 0) || std::isinf(w))
        ok = g == w && std::signbit(g) == std::signbit(w);
      else ok = std::fabs(g - w) <= tol.rel * std::fabs(w) + tol.abs;
    } else {
      ok = std::memcmp(got.data() + i * dtype_size(dtype), want.data() + i * dtype_size(dtype),
                       dtype_size(dtype)) == 0;
      if (dtype == BP_INT64) g = static_cast<double>(get<int64_t>(got, i)), w = static_cast<double>(get<int64_t>(want, i));
      else if (dtype == BP_INT32) g = get<int32_t>(got, i), w = get<int32_t>(want, i);
      else g = get<uint8_t>(got, i), w = get<uint8_t>(want, i);
    }
    if (!ok && bad++ < 5)
      first << "\n  element " << i << ": opencl " << g << ", reference " << w;
  }
  INFO(what << ": " << bad << " of " << n << " elements differ" << first.str());
  CHECK(bad == 0);
}

// Runs op on opencl (device `device`) and on the reference, and compares.
inline void check_against_reference(int32_t op, const bp_op_attrs &attrs,
                                    const std::vector<Tensor> &inputs, const Spec &out,
                                    Tolerance tol, const std::string &what, int32_t device = 0) {
  const Bytes got = run_on(ocl(), device, op, attrs, inputs, out);
  const Bytes want = run_on(ref(), 0, op, attrs, inputs, out);
  std::string full = what + " on opencl:" + std::to_string(device) + ", out " + out.describe();
  for (size_t i = 0; i < inputs.size(); ++i)
    full += ", in" + std::to_string(i) + " " + inputs[i].spec.describe();
  compare_buffers(out.dtype, got, want, tol, full);
}

inline bool supported(PluginHandle &p, int32_t op, int32_t dtype, int32_t out_dtype,
                      int32_t device = 0) {
  int32_t answer = -1;
  p.check(p.api().supports(device, op, dtype, out_dtype, &answer), "supports");
  return answer == 1;
}

// The status of a call, with its message captured for checks.
struct Outcome {
  bp_status status;
  std::string message;
};
inline Outcome outcome(PluginHandle &p, bp_status status) {
  return {status, status == BP_OK ? std::string() : std::string(p.api().last_error())};
}

}  // namespace ocl_test
