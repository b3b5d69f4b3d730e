// Shared by the CUDA plugin's tests: the skip rule for machines without a
// CUDA device, and differential testing against the reference plugin. Both
// plugins are loaded directly (tests/support/plugin_handle.hpp), given
// byte-identical buffers and views, asked for the same operator, and their
// whole output buffers are compared, so elements outside the output view
// must keep their sentinel bytes in both: no stray writes.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "plugin_handle.hpp"

namespace cuda_test {

using Shape = std::vector<int64_t>;
using Options = std::vector<std::pair<std::string, std::string>>;

// The plugin under test (its file is libbackplane-<name>.so).
constexpr const char *kPlugin = "cuda";

// Number of devices, and why there are none.
struct Devices {
  int32_t count = 0;
  std::string why_none;
};

inline Devices devices(const bp_test::PluginHandle &plugin) {
  Devices d;
  const char *why = nullptr;
  REQUIRE(plugin.api().device_count(&d.count, &why) == BP_OK);
  if (why) d.why_none = why;
  return d;
}

// True when the plugin has a device. Otherwise the test is skipped: it says
// so (WARN: "skipped: no CUDA device (<reason>)") after checking what a
// machine without a device must answer. Catch2 v2 has no SKIP, so a skipped
// test shows as passed in the totals; the warning is the record that it
// did not run.
inline bool has_device(const bp_test::PluginHandle &plugin) {
  const Devices d = devices(plugin);
  if (d.count > 0) return true;
  CHECK(d.count == 0);
  CHECK(!d.why_none.empty());
  WARN("skipped: no CUDA device (" << d.why_none << ")");
  return false;
}

constexpr bp_dtype kFloatTypes[] = {BP_FLOAT32, BP_FLOAT64};
constexpr bp_dtype kNumericTypes[] = {BP_FLOAT32, BP_FLOAT64, BP_INT32, BP_INT64};
constexpr bp_dtype kAllTypes[] = {BP_FLOAT32, BP_FLOAT64, BP_INT32, BP_INT64, BP_BOOL};

inline int64_t dtype_size(int32_t dtype) {
  return dtype == BP_FLOAT64 || dtype == BP_INT64 ? 8 : dtype == BP_BOOL ? 1 : 4;
}

inline const char *dtype_name(int32_t dtype) {
  switch (dtype) {
    case BP_FLOAT32: return "float32";
    case BP_FLOAT64: return "float64";
    case BP_INT32: return "int32";
    case BP_INT64: return "int64";
    case BP_BOOL: return "bool";
    default: return "invalid";
  }
}

inline bool is_float(int32_t dtype) { return dtype == BP_FLOAT32 || dtype == BP_FLOAT64; }

inline int64_t numel(const Shape &shape) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

inline std::string shape_text(const Shape &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

// ---- layouts: a view's shape, strides and offset (elements) in a buffer ----

struct Layout {
  std::string name;
  Shape shape, strides;
  int64_t offset = 0;
  int64_t buffer_elements = 0;  // size of the buffer holding the view
};

// Strides of an axis never become 0 through an empty axis (an output may
// not have stride 0 on an axis of extent > 1, even when it is empty).
inline int64_t extent_or_one(int64_t e) { return e > 0 ? e : 1; }

inline Shape c_strides(const Shape &shape) {
  Shape s(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    s[d] = stride;
    stride *= extent_or_one(shape[d]);
  }
  return s;
}

inline Layout dense(const Shape &shape) { return {"dense", shape, c_strides(shape), 0, numel(shape)}; }

// The axes stored in reverse order (a transposed view; column-major for 2-D).
inline Layout transposed(const Shape &shape) {
  Layout l{"transposed", shape, Shape(shape.size()), 0, numel(shape)};
  int64_t stride = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    l.strides[d] = stride;
    stride *= extent_or_one(shape[d]);
  }
  return l;
}

// Every other element of a buffer twice the size, starting at element 1.
inline Layout spaced(const Shape &shape) {
  Layout l{"spaced", shape, c_strides(shape), 1, 2 * numel(shape) + 1};
  for (int64_t &s : l.strides) s *= 2;
  return l;
}

// Only the last two axes swapped: a batch of column-major matrices.
inline Layout matrices_transposed(const Shape &shape) {
  Layout l = dense(shape);
  l.name = "matrices transposed";
  const size_t r = shape.size();
  l.strides[r - 1] = extent_or_one(shape[r - 2]);
  l.strides[r - 2] = 1;
  return l;
}

// Stride 0 on the axes where `broadcast` is true; the rest dense.
inline Layout broadcast(const Shape &shape, const std::vector<bool> &broadcast) {
  Layout l{"broadcast", shape, Shape(shape.size(), 0), 0, 1};
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (broadcast[d]) continue;
    l.strides[d] = stride;
    stride *= shape[d];
  }
  l.buffer_elements = stride;
  for (int64_t e : shape)
    if (e == 0) l.buffer_elements = 0;
  return l;
}

// ---- host data ----------------------------------------------------------

enum class Values {
  general,   // floats in [-3, 3] with some NaN/inf/-0; ints over the full range; bools
  positive,  // floats in (0.01, 5); ints in [1, 100]
  small,     // floats in [-3, 3] without specials; ints in [-5, 5]
  exponent,  // floats in [-2, 3]; ints in [-3, 9]
};

struct Tensor {
  bp_dtype dtype;
  Layout layout;
  std::vector<uint8_t> bytes;  // the whole buffer
};

template <class T>
inline void put(std::vector<uint8_t> &bytes, int64_t i, T v) {
  std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof v);
}

template <class T>
inline T get(const std::vector<uint8_t> &bytes, int64_t i) {
  T v;
  std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof v);
  return v;
}

inline double random_float(std::mt19937_64 &rng, Values kind) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double u = unit(rng);
  if (kind == Values::general) {
    const double r = unit(rng);
    if (r < 0.01) return std::numeric_limits<double>::quiet_NaN();
    if (r < 0.015) return std::numeric_limits<double>::infinity();
    if (r < 0.02) return -std::numeric_limits<double>::infinity();
    if (r < 0.03) return -0.0;
    if (r < 0.06) return std::round(6 * u - 3);  // ties for comparisons and argmax
  }
  switch (kind) {
    case Values::positive: return 0.01 + 4.99 * u;
    case Values::exponent: return -2 + 5 * u;
    default: return -3 + 6 * u;
  }
}

inline int64_t random_int(std::mt19937_64 &rng, Values kind, bool wide) {
  switch (kind) {
    case Values::positive: return std::uniform_int_distribution<int64_t>(1, 100)(rng);
    case Values::small: return std::uniform_int_distribution<int64_t>(-5, 5)(rng);
    case Values::exponent: return std::uniform_int_distribution<int64_t>(-3, 9)(rng);
    default: {
      // Mostly small (so ties and equal pairs happen), sometimes extreme (wrap-around).
      if (std::uniform_int_distribution<int>(0, 3)(rng) != 0)
        return std::uniform_int_distribution<int64_t>(-20, 20)(rng);
      return wide ? static_cast<int64_t>(rng()) : static_cast<int32_t>(rng());
    }
  }
}

inline Tensor random_tensor(bp_dtype dtype, const Layout &layout, std::mt19937_64 &rng, Values kind = Values::general) {
  Tensor t{dtype, layout, std::vector<uint8_t>(static_cast<size_t>(layout.buffer_elements * dtype_size(dtype)))};
  for (int64_t i = 0; i < layout.buffer_elements; ++i) {
    switch (dtype) {
      case BP_FLOAT32: put(t.bytes, i, static_cast<float>(random_float(rng, kind))); break;
      case BP_FLOAT64: put(t.bytes, i, random_float(rng, kind)); break;
      case BP_INT32: put(t.bytes, i, static_cast<int32_t>(random_int(rng, kind, false))); break;
      case BP_INT64: put(t.bytes, i, random_int(rng, kind, true)); break;
      default: put(t.bytes, i, static_cast<uint8_t>(rng() & 1)); break;
    }
  }
  return t;
}

// ---- comparison -----------------------------------------------------------

struct Tolerance {
  double rtol = 0, atol = 0;
};

// Exact for integers and bool, a few ulp-ish for floats (CUDA's libm
// functions differ from glibc's in the last bits).
inline Tolerance default_tolerance(int32_t dtype) {
  if (dtype == BP_FLOAT32) return {1e-5, 0};
  if (dtype == BP_FLOAT64) return {1e-12, 0};
  return {0, 0};
}

inline bool close(double a, double b, const Tolerance &tol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;  // also equal infinities, and -0 == +0
  if (std::isinf(a) || std::isinf(b)) return false;
  return std::fabs(a - b) <= tol.atol + tol.rtol * std::max(std::fabs(a), std::fabs(b));
}

// Compares two whole output buffers of `dtype` element by element.
inline void check_buffers(int32_t dtype, const std::vector<uint8_t> &got, const std::vector<uint8_t> &ref,
                          const Tolerance &tol) {
  REQUIRE(got.size() == ref.size());
  const int64_t n = static_cast<int64_t>(got.size()) / dtype_size(dtype);
  int64_t mismatches = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool same;
    double a = 0, b = 0;
    switch (dtype) {
      case BP_FLOAT32:
        a = get<float>(got, i), b = get<float>(ref, i);
        same = close(a, b, tol);
        break;
      case BP_FLOAT64:
        a = get<double>(got, i), b = get<double>(ref, i);
        same = close(a, b, tol);
        break;
      case BP_INT32:
        same = get<int32_t>(got, i) == get<int32_t>(ref, i);
        a = get<int32_t>(got, i), b = get<int32_t>(ref, i);
        break;
      case BP_INT64:
        same = get<int64_t>(got, i) == get<int64_t>(ref, i);
        a = static_cast<double>(get<int64_t>(got, i)), b = static_cast<double>(get<int64_t>(ref, i));
        break;
      default:
        same = got[static_cast<size_t>(i)] == ref[static_cast<size_t>(i)];
        a = got[static_cast<size_t>(i)], b = ref[static_cast<size_t>(i)];
        break;
    }
    if (!same && ++mismatches <= 5) {
      INFO("buffer element " << i << ": " << kPlugin << " " << a << ", reference " << b);
      CHECK(same);
    }
  }
  INFO(mismatches << " of " << n << " elements differ");
  CHECK(mismatches == 0);
}

// ---- running both plugins ------------------------------------------------

// Buffers of one plugin, freed with the owner.
class Buffers {
 public:
  explicit Buffers(const bp_test::PluginHandle &plugin) : plugin_(plugin) {}
  ~Buffers() {
    for (bp_buffer b : buffers_) plugin_.api().free(b);
  }
  Buffers(const Buffers &) = delete;
  Buffers &operator=(const Buffers &) = delete;

  bp_plugin_tensor view(bp_dtype dtype, const Layout &layout, const std::vector<uint8_t> &bytes) {
    bp_buffer b = plugin_.alloc(0, bytes.size());
    buffers_.push_back(b);
    if (!bytes.empty()) plugin_.check(plugin_.api().write(b, 0, bytes.data(), bytes.size()), "write");
    bp_plugin_tensor t =
        bp_test::dense_view(b, dtype, layout.shape, static_cast<uint64_t>(layout.offset * dtype_size(dtype)));
    for (size_t d = 0; d < layout.strides.size(); ++d) t.strides[d] = layout.strides[d];
    return t;
  }

 private:
  const bp_test::PluginHandle &plugin_;
  std::vector<bp_buffer> buffers_;
};

struct Outputs {
  std::vector<uint8_t> got, ref;
};

class Pair {
 public:
  explicit Pair(const Options &options = {}) : plugin(kPlugin, options), ref("reference") {}

  // Runs op on both plugins with the same inputs and an output of
  // `out_layout` prefilled with sentinel bytes; both must succeed.
  Outputs run(int32_t op, const bp_op_attrs &attrs, const std::vector<Tensor> &inputs, bp_dtype out_dtype,
              const Layout &out_layout) {
    const std::vector<uint8_t> sentinel(static_cast<size_t>(out_layout.buffer_elements * dtype_size(out_dtype)), 0xA5);
    return {run_on(plugin, op, attrs, inputs, out_dtype, out_layout, sentinel),
            run_on(ref, op, attrs, inputs, out_dtype, out_layout, sentinel)};
  }

  // run() then check_buffers() with `tol`.
  void check(int32_t op, const bp_op_attrs &attrs, const std::vector<Tensor> &inputs, bp_dtype out_dtype,
             const Layout &out_layout, const Tolerance &tol) {
    const Outputs out = run(op, attrs, inputs, out_dtype, out_layout);
    check_buffers(out_dtype, out.got, out.ref, tol);
  }

  bp_test::PluginHandle plugin, ref;

 private:
  static std::vector<uint8_t> run_on(const bp_test::PluginHandle &p, int32_t op, const bp_op_attrs &attrs,
                                     const std::vector<Tensor> &inputs, bp_dtype out_dtype, const Layout &out_layout,
                                     const std::vector<uint8_t> &sentinel) {
    Buffers buffers(p);
    std::vector<bp_plugin_tensor> views;
    for (const Tensor &t : inputs) views.push_back(buffers.view(t.dtype, t.layout, t.bytes));
    const bp_plugin_tensor out = buffers.view(out_dtype, out_layout, sentinel);
    const bp_status status = p.api().execute(0, op, &attrs, views.empty() ? nullptr : views.data(),
                                             static_cast<int32_t>(views.size()), &out);
    INFO(p.api().name << ": " << (status == BP_OK ? "" : p.api().last_error()));
    REQUIRE(status == BP_OK);
    return p.download<uint8_t>(out.buffer, sentinel.size());
  }
};

// The layouts every elementwise test runs through, for a given shape.
inline std::vector<Layout> input_layouts(const Shape &shape) {
  std::vector<Layout> layouts = {dense(shape), transposed(shape), spaced(shape)};
  std::vector<bool> outer(shape.size(), false), inner(shape.size(), false), all(shape.size(), true);
  if (!shape.empty()) {
    outer[0] = true;
    inner[shape.size() - 1] = true;
    layouts.push_back(broadcast(shape, outer));
    layouts.push_back(broadcast(shape, inner));
    layouts.push_back(broadcast(shape, all));
  }
  return layouts;
}

// Shapes for elementwise tests: small odd sizes, rank 0, empty, and one
// large enough for many blocks and a grid-stride loop.
inline std::vector<Shape> elementwise_shapes() {
  return {{7, 5}, {3, 4, 5}, {}, {0, 3}, {1}, {300, 257}, {2, 1, 3, 1, 2, 3, 1, 2}};
}

inline bp_op_attrs attrs() { return bp_test::default_attrs(); }

}  // namespace cuda_test
