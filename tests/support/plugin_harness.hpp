// The comparison harness every plugin-level test shares (cpu-openblas, cuda,
// opencl, reference): plugins loaded straight from the build tree
// (plugin_handle.hpp), the device count with the reason there is none,
// buffers a test owns, host data written into them, bp_plugin_tensor views
// (contiguous, transposed, strided, broadcast), execute, reading back, and
// running one operator on a plugin and on the reference plugin with
// byte-identical inputs and comparing their whole output buffers (so elements
// outside the output view must keep their sentinel bytes in both: no stray
// writes) with a tolerance per op and dtype. An output updated in place
// (SCATTER) starts as the same known values on both sides. family_checks.hpp
// builds on this for the SCAN, GATHER and SCATTER families.
//
// What the conformance kit's engine (tools/check/engine, bp_kit_engine)
// already knows comes from it: the tolerances (its one table) and how a
// plugin's output is judged against the reference's, reading an element of
// any dtype, building fused programs. Every dtype list, name and
// rule comes from backplane/vocabulary.h (through the bp_vocab_* lookups of
// types.h); nothing here spells them again.
#pragma once

#include <catch2/catch.hpp>

#include "backplane/plugin_sdk.hpp"
#include "skip.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "fused_program.hpp"
#include "judge.hpp"
#include "plugin_handle.hpp"
#include "tolerances.hpp"
#include "values.hpp"

namespace bp_test {

using Shape = std::vector<int64_t>;
using Options = std::vector<std::pair<std::string, std::string>>;
using Bytes = std::vector<uint8_t>;

// ---- the vocabulary -------------------------------------------------------

using bp_plugin::dtype_name;
using bp_plugin::dtype_size;
using bp_plugin::op_name;
inline bool is_float(int32_t dtype) { return bp_vocab_dtype_kind(dtype) == BP_DTYPE_KIND_FLOAT; }
// Whether the ABI defines `op` for input dtype `dtype` (vocabulary.h's dtype set).
inline bool defined_for(int32_t op, int32_t dtype) {
  return bp_vocab_dtype_in_set(dtype, bp_vocab_op_dtypes(op)) != 0;
}
// The output dtype of `op` on `dtype` (COPY: the input's own).
inline bp_dtype out_dtype(int32_t op, int32_t dtype) {
  if (bp_vocab_op_out(op) == BP_OUT_ANY) return static_cast<bp_dtype>(dtype);
  return static_cast<bp_dtype>(bp_vocab_out_dtype(op, dtype));
}

// Every dtype in a BP_DTYPE_SET_*, in list order.
inline std::vector<bp_dtype> dtypes_in(int32_t set) {
  std::vector<bp_dtype> out;
#define BP_TEST_DTYPE_(id, value, name, size, kind) \
  if (bp_vocab_dtype_in_set(value, set)) out.push_back(BP_##id);
  BP_DTYPE_LIST(BP_TEST_DTYPE_)
#undef BP_TEST_DTYPE_
  return out;
}
inline const std::vector<bp_dtype> kFloatTypes = dtypes_in(BP_DTYPE_SET_FLOAT);
inline const std::vector<bp_dtype> kNumericTypes = dtypes_in(BP_DTYPE_SET_NUMERIC);
inline const std::vector<bp_dtype> kAllTypes = dtypes_in(BP_DTYPE_SET_ALL);

// Every operator of a BP_OP_FAMILY_*, in list order.
inline std::vector<bp_op> ops_in(int32_t family) {
  std::vector<bp_op> out;
#define BP_TEST_OP_(id, value, name, fam, dtypes, rule) \
  if ((fam) == family) out.push_back(BP_OP_##id);
  BP_OP_LIST(BP_TEST_OP_)
#undef BP_TEST_OP_
  return out;
}

// The bp_dtype of a host element type (the SDK's), except that bool
// elements are bytes (uint8_t) here.
template <class T>
struct dtype_of {
  static constexpr bp_dtype value =
      std::is_same<T, uint8_t>::value ? BP_BOOL : static_cast<bp_dtype>(bp_plugin::dtype_of<T>::value);
};

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

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

// Fused programs (execute_fused) as the kit's engine builds them.
using bpcheck::fused_instr;
using bpcheck::fused_program;

inline bp_op_attrs attrs() { return default_attrs(); }
inline bp_op_attrs attrs_with(double scalar = 0, double scalar2 = 0, uint64_t seed = 0,
                              int32_t scalar_mode = BP_SCALAR_NONE) {
  bp_op_attrs a = default_attrs();
  a.scalar = scalar;
  a.scalar2 = scalar2;
  a.seed = seed;
  a.scalar_mode = scalar_mode;
  return a;
}

// ---- devices --------------------------------------------------------------

// Number of devices, and why there are none.
struct Devices {
  int32_t count = 0;
  std::string why_none;
};

inline Devices devices(const PluginHandle &plugin) {
  Devices d;
  const char *why = nullptr;
  REQUIRE(plugin.api().device_count(&d.count, &why) == BP_OK);
  if (why) d.why_none = why;
  return d;
}

// True when the plugin has a device. Otherwise the test is skipped
// (bp_test::skip: "skipped: no <kind> device (<reason>)", reported by ctest
// as skipped) after checking what a machine without a device must answer.
inline bool has_device(const PluginHandle &plugin, const char *kind) {
  const Devices d = devices(plugin);
  if (d.count > 0) return true;
  CHECK(d.count == 0);
  CHECK(!d.why_none.empty());
  skip(std::string("no ") + kind + " device (" + d.why_none + ")");
  return false;
}

inline bool supported(const PluginHandle &p, int32_t op, int32_t dtype, int32_t out_dtype,
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
inline Outcome outcome(const PluginHandle &p, bp_status status) {
  return {status, status == BP_OK ? std::string() : std::string(p.api().last_error())};
}

// A zeroed bp_plugin_device_info whose struct_size is the full size, for device_info.
inline bp_plugin_device_info blank_device_info() {
  bp_plugin_device_info info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  return info;
}

// A status and a non-empty message that mentions every word in `words`.
inline void check_error(const bp_plugin_api &api, bp_status actual, bp_status expected,
                        const std::vector<std::string> &words = {}) {
  const std::string message = api.last_error();
  INFO("message: " << message);
  CHECK(actual == expected);
  CHECK(!message.empty());
  for (const std::string &w : words) CHECK(message.find(w) != std::string::npos);
}

// ---- layouts: a view's shape, strides and offset (elements) in a buffer ----

struct Layout {
  std::string name;
  Shape shape, strides;
  int64_t offset = 0;
  int64_t buffer_elements = 0;  // size of the buffer holding the view

  std::string describe() const {
    return name + " shape " + shape_text(shape) + " strides " + shape_text(strides) + " offset " +
           std::to_string(offset) + " of " + std::to_string(buffer_elements);
  }
};

// An axis never gets stride 0 through an empty axis (an output may not have
// stride 0 on an axis of extent > 1, even when it is empty).
inline int64_t extent_or_one(int64_t e) { return e > 0 ? e : 1; }

// Strides of a C-order view.
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

// Explicit strides and offset; the buffer holds what the view reaches plus
// two spare elements, so a write past the view shows up.
inline Layout strided(const Shape &shape, const Shape &strides, int64_t offset = 0) {
  Layout l{"strided", shape, strides, offset, 0};
  int64_t span = 0;
  bool empty = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) empty = true;
    else span += (shape[d] - 1) * strides[d];
  }
  l.buffer_elements = offset + (empty ? 0 : span + 1) + 2;
  return l;
}

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

// Outputs cycle through these, so every operator writes strided views too.
inline std::vector<Layout> output_layouts(const Shape &shape) {
  return {dense(shape), transposed(shape), spaced(shape)};
}

// Shapes for elementwise tests: small odd sizes, rank 0, empty, one large
// enough to be split over threads or blocks, and with `rank_8` one of rank 8.
inline std::vector<Shape> elementwise_shapes(bool rank_8 = false) {
  std::vector<Shape> shapes = {{7, 5}, {3, 4, 5}, {}, {0, 3}, {1}, {300, 257}};
  if (rank_8) shapes.push_back({2, 1, 3, 1, 2, 3, 1, 2});
  return shapes;
}

// Every subset of the axes of a shape of rank `rank`, as flags.
inline std::vector<std::vector<bool>> axis_subsets(size_t rank) {
  std::vector<std::vector<bool>> subsets;
  for (uint32_t mask = 0; mask < (1u << rank); ++mask) {
    std::vector<bool> s(rank);
    for (size_t d = 0; d < rank; ++d) s[d] = (mask >> d) & 1u;
    subsets.push_back(s);
  }
  return subsets;
}

// The output shape of a reduction: `shape` with the axes in `reduced` set to 1.
inline Shape reduced_shape(const Shape &shape, const std::vector<bool> &reduced) {
  Shape out = shape;
  for (size_t d = 0; d < shape.size(); ++d)
    if (reduced[d]) out[d] = 1;
  return out;
}

// A layout with its dtype: one value for an input or output view.
struct View {
  bp_dtype dtype;
  Layout layout;
  std::string describe() const { return std::string(dtype_name(dtype)) + " " + layout.describe(); }
};
inline View dense(int32_t dtype, const Shape &shape) { return {static_cast<bp_dtype>(dtype), dense(shape)}; }
inline View strided(int32_t dtype, const Shape &shape, const Shape &strides, int64_t offset = 0) {
  return {static_cast<bp_dtype>(dtype), strided(shape, strides, offset)};
}
inline View with_dtype(View v, int32_t dtype) {
  v.dtype = static_cast<bp_dtype>(dtype);
  return v;
}

// ---- host data ------------------------------------------------------------

// What random values to draw.
enum class Values {
  general,   // floats in [-3, 3] with some NaN/inf/-0; ints mostly small, sometimes full range; bools
  positive,  // floats in (0.01, 5); ints in [1, 100]
  small,     // floats in [-3, 3] without specials; ints in [-5, 5]
  exponent,  // floats in [-2, 3]; ints in [-3, 9]
  moderate,  // floats in [-3, 3] without specials; ints in [-20, 20]
  full,      // floats in [-3, 3] without specials; ints over their whole range (wrap-around)
};

// A view plus the whole contents of its buffer.
struct Tensor {
  bp_dtype dtype;
  Layout layout;
  Bytes bytes;
  View view() const { return {dtype, layout}; }
};

template <class T>
inline void put(Bytes &bytes, int64_t i, T v) {
  std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof v);
}

template <class T>
inline T get(const Bytes &bytes, int64_t i) {
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
  const auto full = [&] { return wide ? static_cast<int64_t>(rng()) : static_cast<int32_t>(rng()); };
  switch (kind) {
    case Values::positive: return std::uniform_int_distribution<int64_t>(1, 100)(rng);
    case Values::small: return std::uniform_int_distribution<int64_t>(-5, 5)(rng);
    case Values::exponent: return std::uniform_int_distribution<int64_t>(-3, 9)(rng);
    case Values::moderate: return std::uniform_int_distribution<int64_t>(-20, 20)(rng);
    case Values::full: return full();
    default:
      // Mostly small (so ties and equal pairs happen), sometimes extreme (wrap-around).
      if (std::uniform_int_distribution<int>(0, 3)(rng) != 0)
        return std::uniform_int_distribution<int64_t>(-20, 20)(rng);
      return full();
  }
}

// Stores a double as element i of a buffer of `dtype`, converted as by
// COPY from float64 for the floats (the 16-bit ones through half.h) and
// keeping the low bits for the integers.
inline void put_as(int32_t dtype, Bytes &bytes, int64_t i, double x, int64_t integer) {
  switch (dtype) {
    case BP_FLOAT32: put(bytes, i, static_cast<float>(x)); break;
    case BP_FLOAT64: put(bytes, i, x); break;
    case BP_FLOAT16: put(bytes, i, bp_f16_from_f64(x)); break;
    case BP_BFLOAT16: put(bytes, i, bp_bf16_from_f64(x)); break;
    case BP_INT32: put(bytes, i, static_cast<int32_t>(integer)); break;
    case BP_INT64: put(bytes, i, integer); break;
    case BP_INT8: put(bytes, i, static_cast<int8_t>(integer)); break;
    case BP_UINT8: put(bytes, i, static_cast<uint8_t>(integer)); break;
    case BP_INT16: put(bytes, i, static_cast<int16_t>(integer)); break;
    default: put(bytes, i, static_cast<uint8_t>(integer != 0)); break;
  }
}

inline Tensor random_tensor(bp_dtype dtype, const Layout &layout, std::mt19937_64 &rng,
                            Values kind = Values::general) {
  Tensor t{dtype, layout, Bytes(static_cast<size_t>(layout.buffer_elements * dtype_size(dtype)))};
  const bool wide = dtype_size(dtype) == 8;
  for (int64_t i = 0; i < layout.buffer_elements; ++i) {
    if (is_float(dtype))
      put_as(dtype, t.bytes, i, random_float(rng, kind), 0);
    else if (dtype == BP_BOOL)
      put_as(dtype, t.bytes, i, 0, static_cast<int64_t>(rng() & 1));
    else
      put_as(dtype, t.bytes, i, 0, random_int(rng, kind, wide));
  }
  return t;
}
inline Tensor random_tensor(const View &v, std::mt19937_64 &rng, Values kind = Values::moderate) {
  return random_tensor(v.dtype, v.layout, rng, kind);
}

// A tensor whose buffer holds exactly `values` (converted to its dtype as by COPY).
template <class T>
Tensor tensor_of(const View &v, const std::vector<T> &values) {
  Tensor t{v.dtype, v.layout, Bytes(static_cast<size_t>(v.layout.buffer_elements * dtype_size(v.dtype)))};
  REQUIRE(static_cast<int64_t>(values.size()) == v.layout.buffer_elements);
  for (int64_t i = 0; i < v.layout.buffer_elements; ++i) {
    const T x = values[static_cast<size_t>(i)];
    put_as(v.dtype, t.bytes, i, static_cast<double>(x),
           v.dtype == BP_BOOL ? int64_t(x != T(0)) : static_cast<int64_t>(x));
  }
  return t;
}

// ---- views in a plugin's buffers --------------------------------------------

// The bp_plugin_tensor for `layout` in `buffer`.
inline bp_plugin_tensor plugin_view(bp_buffer buffer, bp_dtype dtype, const Layout &layout) {
  bp_plugin_tensor t = dense_view(buffer, dtype, layout.shape, static_cast<uint64_t>(layout.offset * dtype_size(dtype)));
  for (size_t d = 0; d < layout.strides.size(); ++d) t.strides[d] = layout.strides[d];
  return t;
}
inline bp_plugin_tensor plugin_view(bp_buffer buffer, const View &v) { return plugin_view(buffer, v.dtype, v.layout); }

// Buffers of one plugin on one device, freed with the owner, and typed
// helpers to fill, run on and read them.
class Buffers {
 public:
  explicit Buffers(const PluginHandle &plugin, int32_t device = 0) : plugin_(plugin), device_(device) {}
  ~Buffers() {
    for (bp_buffer b : buffers_) plugin_.api().free(b);
  }
  Buffers(const Buffers &) = delete;
  Buffers &operator=(const Buffers &) = delete;

  const bp_plugin_api &api() const { return plugin_.api(); }
  const PluginHandle &plugin() const { return plugin_; }
  std::string error() const { return api().last_error(); }

  bp_buffer alloc(uint64_t bytes) {
    bp_buffer b = plugin_.alloc(device_, bytes);
    buffers_.push_back(b);
    return b;
  }

  // A buffer holding `values`.
  template <class T>
  bp_buffer buffer(const std::vector<T> &values) {
    bp_buffer b = alloc(values.size() * sizeof(T));
    if (!values.empty()) plugin_.check(api().write(b, 0, values.data(), values.size() * sizeof(T)), "write");
    return b;
  }

  // A buffer holding `bytes`, viewed as `layout`.
  bp_plugin_tensor view(bp_dtype dtype, const Layout &layout, const Bytes &bytes) {
    return plugin_view(buffer(bytes), dtype, layout);
  }
  bp_plugin_tensor view(const Tensor &t) { return view(t.dtype, t.layout, t.bytes); }

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
    const uint64_t bytes = static_cast<uint64_t>(numel(shape) * dtype_size(dtype));
    return dense_view(buffer(Bytes(bytes, 0)), dtype, shape);
  }

  bp_status run(int32_t op, const std::vector<bp_plugin_tensor> &inputs, const bp_plugin_tensor &output,
                const bp_op_attrs &attrs = default_attrs()) {
    return api().execute(device_, op, &attrs, inputs.empty() ? nullptr : inputs.data(),
                         static_cast<int32_t>(inputs.size()), &output);
  }

  // run() that must succeed; the plugin's message is shown when it does not.
  void exec(int32_t op, const std::vector<bp_plugin_tensor> &inputs, const bp_plugin_tensor &output,
            const bp_op_attrs &attrs = default_attrs()) {
    const bp_status status = run(op, inputs, output, attrs);
    INFO(api().name << ": execute failed: " << (status == BP_OK ? "" : error()));
    REQUIRE(status == BP_OK);
  }

  // A tensor's elements in C order, read through its strides and offset.
  template <class T>
  std::vector<T> values(const bp_plugin_tensor &t) {
    REQUIRE(dtype_size(t.dtype) == static_cast<int64_t>(sizeof(T)));
    int64_t count = 1, span = 1;
    for (int d = 0; d < t.rank; ++d) {
      count *= t.shape[d];
      span += (t.shape[d] - 1) * t.strides[d];
    }
    std::vector<T> out;
    if (count == 0) return out;
    const size_t first = t.offset / sizeof(T);
    const std::vector<T> raw = plugin_.download<T>(t.buffer, first + static_cast<size_t>(span));
    std::vector<int64_t> index(static_cast<size_t>(t.rank), 0);
    for (int64_t n = 0; n < count; ++n) {
      int64_t at = 0;
      for (int d = 0; d < t.rank; ++d) at += index[static_cast<size_t>(d)] * t.strides[d];
      out.push_back(raw[first + static_cast<size_t>(at)]);
      for (int d = t.rank - 1; d >= 0; --d) {
        if (++index[static_cast<size_t>(d)] < t.shape[d]) break;
        index[static_cast<size_t>(d)] = 0;
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
    const bp_plugin_tensor out = empty(dtype_of<R>::value, {n});
    exec(op, views, out, attrs);
    return values<R>(out);
  }

 private:
  const PluginHandle &plugin_;
  int32_t device_;
  std::vector<bp_buffer> buffers_;
};

inline void check_error(const Buffers &b, bp_status actual, bp_status expected,
                        const std::vector<std::string> &words = {}) {
  check_error(b.api(), actual, expected, words);
}

namespace detail {
struct OwnedHandle {
  PluginHandle handle;
};
}  // namespace detail

// A started plugin plus every buffer the test makes on its device 0.
class Session : private detail::OwnedHandle, public Buffers {
 public:
  explicit Session(const std::string &name, Options options = {})
      : OwnedHandle{PluginHandle(name, std::move(options))}, Buffers(handle) {}
};

// An output of `layout` whose whole buffer holds 0xA5 bytes, so that stray
// and missing writes both show.
inline Tensor sentinel_output(bp_dtype dtype, const Layout &layout) {
  return {dtype, layout, Bytes(static_cast<size_t>(layout.buffer_elements * dtype_size(dtype)), 0xA5)};
}

// Runs op on one plugin's device with an output whose buffer starts as
// `out`'s bytes (sentinel_output(), or known values for an operator that
// updates its output in place, SCATTER); returns that whole buffer.
inline Bytes run_on(const PluginHandle &p, int32_t device, int32_t op, const bp_op_attrs &attrs,
                    const std::vector<Tensor> &inputs, const Tensor &out) {
  Buffers buffers(p, device);
  std::vector<bp_plugin_tensor> views;
  for (const Tensor &t : inputs) views.push_back(buffers.view(t));
  const bp_plugin_tensor output = buffers.view(out);
  buffers.exec(op, views, output, attrs);
  return p.download<uint8_t>(output.buffer, out.bytes.size());
}
inline Bytes run_on(const PluginHandle &p, int32_t device, int32_t op, const bp_op_attrs &attrs,
                    const std::vector<Tensor> &inputs, bp_dtype out_dtype, const Layout &out_layout) {
  return run_on(p, device, op, attrs, inputs, sentinel_output(out_dtype, out_layout));
}
inline Bytes run_on(const PluginHandle &p, int32_t device, int32_t op, const bp_op_attrs &attrs,
                    const std::vector<Tensor> &inputs, const View &out) {
  return run_on(p, device, op, attrs, inputs, out.dtype, out.layout);
}

// ---- comparison -------------------------------------------------------------

// How close float results must be: an entry of the one tolerance table
// (tools/check/engine/tolerances.hpp, TestBound), applied as the table
// says (bpcheck::within_bound: |got - ref| <= atol + rtol * max(|got|, |ref|)).
// Both 0 (kExact) means identical values: NaN equals NaN, zeros agree in
// sign. Integers and bools are always compared exactly.
using Tolerance = bpcheck::Bound;
using bpcheck::TestBound;
inline constexpr Tolerance kExact{};

// The table's bound `which` for `dtype` (exact for integers and bool).
inline Tolerance table_tolerance(TestBound which, int32_t dtype, double n = 0) {
  return bpcheck::test_bound(which, dtype, n);
}

// One rounded operation (TestBound::rounded); exact for integers and bool.
inline Tolerance default_tolerance(int32_t dtype) { return table_tolerance(TestBound::rounded, dtype); }

// Element `i` of a buffer of `dtype` as a double (for messages and floats),
// read as the kit's engine reads elements.
inline double element(int32_t dtype, const Bytes &bytes, int64_t i) {
  return bpcheck::load_double(dtype, bytes.data() + i * dtype_size(dtype));
}

// Compares two whole output buffers of `dtype` element by element; `label`
// names the plugin under test in messages.
inline void check_buffers(int32_t dtype, const Bytes &got, const Bytes &ref, const Tolerance &tol,
                          const std::string &label = "plugin") {
  REQUIRE(got.size() == ref.size());
  const int64_t size = dtype_size(dtype);
  const int64_t n = static_cast<int64_t>(got.size()) / size;
  int64_t mismatches = 0;
  std::ostringstream first;
  for (int64_t i = 0; i < n; ++i) {
    const double a = element(dtype, got, i), b = element(dtype, ref, i);
    const bool same = is_float(dtype) ? bpcheck::within_bound(tol, a, b)
                                      : std::memcmp(got.data() + i * size, ref.data() + i * size,
                                                    static_cast<size_t>(size)) == 0;
    if (!same && mismatches++ < 5) first << "\n  buffer element " << i << ": " << label << " " << a << ", reference " << b;
  }
  INFO(mismatches << " of " << n << " elements differ" << first.str());
  CHECK(mismatches == 0);
}

// ---- typed value checks ---------------------------------------------------

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
void check_close(const std::vector<T> &actual, const std::vector<double> &expected, double relative) {
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

struct Outputs {
  Bytes got, ref;
};

// Runs op on `plugin`'s `device` and on the reference's device 0 with the
// same inputs and an output whose buffer starts as `out`'s bytes; both must
// succeed.
inline Outputs run_both(const PluginHandle &plugin, int32_t device, const PluginHandle &ref, int32_t op,
                        const bp_op_attrs &attrs, const std::vector<Tensor> &inputs, const Tensor &out) {
  return {run_on(plugin, device, op, attrs, inputs, out), run_on(ref, 0, op, attrs, inputs, out)};
}
// The same with an output of `out_layout` prefilled with sentinel bytes.
inline Outputs run_both(const PluginHandle &plugin, int32_t device, const PluginHandle &ref, int32_t op,
                        const bp_op_attrs &attrs, const std::vector<Tensor> &inputs, bp_dtype out_dtype,
                        const Layout &out_layout) {
  return run_both(plugin, device, ref, op, attrs, inputs, sentinel_output(out_dtype, out_layout));
}

// The comparison as the conformance kit's engine sees a case: one storage
// per tensor (an input's bytes, the output's starting bytes) and the views
// into them.
inline bpcheck::Case kit_case(int32_t op, const bp_op_attrs &attrs, const std::vector<Tensor> &inputs,
                              const Tensor &out) {
  bpcheck::Case c;
  c.op = op;
  c.attrs = attrs;
  const auto add = [&c](const Tensor &t) {
    bpcheck::ViewDesc v;
    v.storage = static_cast<int>(c.storages.size());
    c.storages.push_back(t.bytes);
    v.dtype = t.dtype;
    v.rank = static_cast<int32_t>(t.layout.shape.size());
    std::copy(t.layout.shape.begin(), t.layout.shape.end(), v.shape);
    std::copy(t.layout.strides.begin(), t.layout.strides.end(), v.strides);
    v.offset = static_cast<uint64_t>(t.layout.offset * dtype_size(t.dtype));
    return v;
  };
  for (const Tensor &t : inputs) c.inputs.push_back(add(t));
  c.output = add(out);
  return c;
}

// run_both(), then the kit's judgement of the plugin's output (its bytes
// outside the view untouched, every element against the reference's) at
// the test's bound `tol`; the message names the op and every view.
inline void check_against(const PluginHandle &plugin, int32_t device, const PluginHandle &ref, int32_t op,
                          const bp_op_attrs &attrs, const std::vector<Tensor> &inputs, const Tensor &out,
                          const Tolerance &tol) {
  std::string views = "out " + out.view().describe();
  for (size_t i = 0; i < inputs.size(); ++i) views += ", in" + std::to_string(i) + " " + inputs[i].view().describe();
  INFO(op_name(op) << " on " << plugin.api().device_prefix << ":" << device << ", " << views);
  const Outputs got = run_both(plugin, device, ref, op, attrs, inputs, out);
  const bpcheck::Case c = kit_case(op, attrs, inputs, out);
  std::string verdict = bpcheck::check_sentinels(c, got.got);
  if (verdict.empty()) verdict = bpcheck::compare_outputs(c, got.got, got.ref, "the reference", 0, &tol);
  INFO(plugin.api().name << " " << verdict);
  CHECK(verdict.empty());
}
inline void check_against(const PluginHandle &plugin, int32_t device, const PluginHandle &ref, int32_t op,
                          const bp_op_attrs &attrs, const std::vector<Tensor> &inputs, bp_dtype out_dtype,
                          const Layout &out_layout, const Tolerance &tol) {
  check_against(plugin, device, ref, op, attrs, inputs, sentinel_output(out_dtype, out_layout), tol);
}

// The reference plugin, loaded and started once per process (plugin.h
// allows one init), shared by every comparison.
inline PluginHandle &reference() {
  static PluginHandle handle("reference");
  return handle;
}

// A plugin under test, started, and the reference plugin, compared on the
// tested plugin's device 0 (or `device`).
class Comparison {
 public:
  explicit Comparison(const std::string &name, const Options &options = {})
      : plugin(name, options), ref(reference()) {}
  Comparison(const Comparison &) = delete;
  Comparison &operator=(const Comparison &) = delete;

  Outputs run(int32_t op, const bp_op_attrs &attrs, const std::vector<Tensor> &inputs, bp_dtype out_dtype,
              const Layout &out_layout, int32_t device = 0) {
    return run_both(plugin, device, ref, op, attrs, inputs, out_dtype, out_layout);
  }
  void check(int32_t op, const bp_op_attrs &attrs, const std::vector<Tensor> &inputs, bp_dtype out_dtype,
             const Layout &out_layout, const Tolerance &tol, int32_t device = 0) {
    check_against(plugin, device, ref, op, attrs, inputs, out_dtype, out_layout, tol);
  }

  PluginHandle plugin;
  PluginHandle &ref;
};

}  // namespace bp_test
