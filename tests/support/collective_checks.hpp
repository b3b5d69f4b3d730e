// The collective entry (plugin.h, bp_collective_args) called directly on a
// plugin, as tests/opencl-plugin and tests/cuda-plugin do: every dtype,
// collective and reduction on the device sets a test names, in place and
// not, compared with values computed here on the host from plugin.h's
// semantics (bit for bit, except float sums and means: within the roundings
// an order of additions may cost); guard bytes around every view catch
// stray writes. And the malformed calls, each refused with its status and
// nothing written.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "plugin_harness.hpp"

namespace bp_test {

// Every collective and reduction of the vocabulary, in list order.
inline std::vector<int32_t> all_collectives() {
  std::vector<int32_t> out;
#define BP_TEST_COLLECTIVE_(id, value, name) out.push_back(value);
  BP_COLLECTIVE_LIST(BP_TEST_COLLECTIVE_)
#undef BP_TEST_COLLECTIVE_
  return out;
}
inline std::vector<int32_t> all_reduce_ops() {
  std::vector<int32_t> out;
#define BP_TEST_REDUCE_(id, value, name, dtypes) out.push_back(value);
  BP_REDUCE_OP_LIST(BP_TEST_REDUCE_)
#undef BP_TEST_REDUCE_
  return out;
}
inline bool collective_reduces(int32_t collective) {
  return collective == BP_COLLECTIVE_ALL_REDUCE || collective == BP_COLLECTIVE_REDUCE_SCATTER;
}

// Zero-filled arguments with struct_size set and the views given.
inline bp_collective_args collective_args(int32_t collective, int32_t reduce_op, const std::vector<int32_t> &devices,
                                          const std::vector<bp_plugin_tensor> &inputs,
                                          const std::vector<bp_plugin_tensor> &outputs, int32_t root = 0) {
  bp_collective_args a;
  std::memset(&a, 0, sizeof a);
  a.struct_size = sizeof a;
  a.collective = collective;
  a.reduce_op = reduce_op;
  a.root = root;
  a.count = static_cast<int32_t>(devices.size());
  a.devices = devices.data();
  a.inputs = inputs.data();
  a.outputs = outputs.data();
  return a;
}

struct CollectiveCase {
  int32_t collective = BP_COLLECTIVE_ALL_REDUCE;
  int32_t reduce_op = 0;  // for ALL_REDUCE and REDUCE_SCATTER
  int32_t root = 0;       // for BROADCAST
  bp_dtype dtype = BP_FLOAT32;
  std::vector<int32_t> devices;
  bool in_place = false;
  Shape share = {3, 5};  // S
  uint64_t group = 0;    // with a group: devices has one entry and `ranks` is the group's size
  int32_t ranks = 0;

  int32_t participants() const { return group ? ranks : static_cast<int32_t>(devices.size()); }
  Shape input_shape() const {
    Shape s = share;
    if (collective == BP_COLLECTIVE_REDUCE_SCATTER) s.insert(s.begin(), participants());
    return s;
  }
  Shape output_shape() const {
    Shape s = share;
    if (collective == BP_COLLECTIVE_ALL_GATHER) s.insert(s.begin(), participants());
    return s;
  }
  std::string describe() const {
    std::string s = bp_vocab_collective_name(collective);
    if (collective_reduces(collective)) s += std::string(" ") + bp_vocab_reduce_op_name(reduce_op);
    if (collective == BP_COLLECTIVE_BROADCAST) s += " root " + std::to_string(root);
    s += std::string(" ") + dtype_name(dtype) + " S " + shape_text(share) + " on devices";
    for (int32_t d : devices) s += " " + std::to_string(d);
    if (group) s += " (group of " + std::to_string(ranks) + ")";
    return s + (in_place ? ", in place" : "");
  }
};

// Every dtype, collective and reduction the ABI defines, on each device set,
// in place where a collective allows it (ALL_REDUCE, BROADCAST) and not,
// BROADCAST from the first and the last participant, and one empty S.
inline std::vector<CollectiveCase> collective_cases(const std::vector<std::vector<int32_t>> &device_sets) {
  std::vector<CollectiveCase> cases;
  for (const std::vector<int32_t> &devices : device_sets)
    for (bp_dtype dtype : kAllTypes)
      for (int32_t collective : all_collectives()) {
        std::vector<int32_t> reductions = {0};
        if (collective_reduces(collective)) {
          reductions.clear();
          for (int32_t op : all_reduce_ops())
            if (bp_vocab_dtype_in_set(dtype, bp_vocab_reduce_op_dtypes(op))) reductions.push_back(op);
        }
        std::vector<int32_t> roots = {0};
        if (collective == BP_COLLECTIVE_BROADCAST && devices.size() > 1)
          roots.push_back(static_cast<int32_t>(devices.size()) - 1);
        const bool may_be_in_place = collective == BP_COLLECTIVE_ALL_REDUCE || collective == BP_COLLECTIVE_BROADCAST;
        for (int32_t op : reductions)
          for (int32_t root : roots)
            for (bool in_place : {false, true}) {
              if (in_place && !may_be_in_place) continue;
              CollectiveCase c;
              c.collective = collective;
              c.reduce_op = op;
              c.root = root;
              c.dtype = dtype;
              c.devices = devices;
              c.in_place = in_place;
              cases.push_back(c);
            }
      }
  CollectiveCase empty;
  empty.reduce_op = BP_REDUCE_SUM;
  empty.devices = device_sets.back();
  empty.share = {0, 4};
  cases.push_back(empty);
  return cases;
}

// ---- the host's answer ----------------------------------------------------

// Calls f(T{}) with T the host type of `dtype` (bool: uint8_t; float16 and
// bfloat16: the SDK's 16-bit element types, which hold their bits).
template <class F>
void with_host_type(int32_t dtype, F &&f) {
  switch (dtype) {
    case BP_FLOAT32: return f(float{});
    case BP_FLOAT64: return f(double{});
    case BP_INT32: return f(int32_t{});
    case BP_INT64: return f(int64_t{});
    case BP_INT8: return f(int8_t{});
    case BP_UINT8: return f(uint8_t{});
    case BP_INT16: return f(int16_t{});
    case BP_FLOAT16: return f(bp_plugin::float16{});
    case BP_BFLOAT16: return f(bp_plugin::bfloat16{});
    default: return f(uint8_t{});
  }
}

template <class T>
constexpr bool is_half_element =
    std::is_same<T, bp_plugin::float16>::value || std::is_same<T, bp_plugin::bfloat16>::value;
template <class T>
constexpr bool is_float_element = std::is_floating_point<T>::value || is_half_element<T>;

// The value an element stands for: halves widened exactly to float32 (where
// the host reduces them, rounding once at the end, as the core does), every
// other type itself.
inline float widened(bp_plugin::float16 h) { return bp_f32_from_f16(static_cast<uint16_t>(h)); }
inline float widened(bp_plugin::bfloat16 h) { return bp_f32_from_bf16(static_cast<uint16_t>(h)); }
template <class T>
T widened(T x) {
  return x;
}
// A value as an element of type T, rounded once to nearest even for halves.
template <class T, class V>
T stored(V x) {
  if constexpr (std::is_same<T, bp_plugin::float16>::value)
    return static_cast<T>(bp_f16_from_f64(static_cast<double>(x)));
  else if constexpr (std::is_same<T, bp_plugin::bfloat16>::value)
    return static_cast<T>(bp_bf16_from_f64(static_cast<double>(x)));
  else
    return static_cast<T>(x);
}
// The spacing of T's values at 1.
template <class T>
double epsilon_of() {
  if constexpr (std::is_same<T, bp_plugin::float16>::value) return 0x1p-10;
  else if constexpr (std::is_same<T, bp_plugin::bfloat16>::value) return 0x1p-7;
  else return static_cast<double>(std::numeric_limits<T>::epsilon());
}

// plugin.h: SUM adds (integers wrap), MAX and MIN are elementwise (on bool:
// or, and); MEAN is the sum divided by n, integers truncated toward zero.
template <class T>
T reduce_step(int32_t reduce_op, T a, T b) {
  if (reduce_op == BP_REDUCE_MAX) return b > a ? b : a;
  if (reduce_op == BP_REDUCE_MIN) return b < a ? b : a;
  if constexpr (std::is_floating_point<T>::value) {
    return a + b;
  } else {
    using U = typename std::make_unsigned<T>::type;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  }
}
template <class T>
T reduce_finish(int32_t reduce_op, T acc, int32_t n) {
  if constexpr (std::is_integral<T>::value)
    return reduce_op == BP_REDUCE_MEAN ? static_cast<T>(static_cast<int64_t>(acc) / n) : acc;
  else
    return reduce_op == BP_REDUCE_MEAN ? static_cast<T>(acc / static_cast<T>(n)) : acc;
}

// Participant j's input: floats in [-10, 10] (halves: rounded to them);
// integers small, with the extremes in the first two elements (SUM wraps)
// and negatives (MEAN truncates toward zero); bools 0 or 1.
inline Bytes collective_input(const CollectiveCase &c, int32_t j, int64_t elements) {
  std::mt19937_64 rng(static_cast<uint64_t>(1000 * c.collective + 100 * c.reduce_op + 10 * c.dtype + j + 1));
  Bytes bytes(static_cast<size_t>(elements * dtype_size(c.dtype)));
  with_host_type(c.dtype, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t e = 0; e < elements; ++e) {
      T v;
      if constexpr (is_float_element<T>)
        v = stored<T>(std::uniform_real_distribution<double>(-10, 10)(rng));
      else if (c.dtype == BP_BOOL)
        v = static_cast<T>(rng() & 1);
      else if (e == 0)
        v = static_cast<T>(std::numeric_limits<T>::max() - static_cast<T>(j));
      else if (e == 1)
        v = static_cast<T>(std::numeric_limits<T>::min() + static_cast<T>(j));
      else
        v = static_cast<T>(std::uniform_int_distribution<int64_t>(-1000, 1000)(rng));
      put(bytes, e, v);
    }
  });
  return bytes;
}

// What output i must hold, and for float sums and means the tolerance of
// each element: n roundings of the sum of the terms' magnitudes.
struct CollectiveExpectation {
  Bytes values;
  std::vector<double> tolerance;
};

inline CollectiveExpectation expected_output(const CollectiveCase &c, const std::vector<Bytes> &inputs, int32_t i) {
  const int32_t n = c.participants();
  const int64_t share = numel(c.share);
  const int64_t elements = numel(c.output_shape());
  CollectiveExpectation x{Bytes(static_cast<size_t>(elements * dtype_size(c.dtype))),
                          std::vector<double>(static_cast<size_t>(elements), 0.0)};
  with_host_type(c.dtype, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t e = 0; e < elements; ++e) {
      switch (c.collective) {
        case BP_COLLECTIVE_BROADCAST: put(x.values, e, get<T>(inputs[size_t(c.root)], e)); break;
        case BP_COLLECTIVE_ALL_GATHER: put(x.values, e, get<T>(inputs[size_t(e / share)], e % share)); break;
        default: {
          const int64_t at = c.collective == BP_COLLECTIVE_REDUCE_SCATTER ? i * share + e : e;
          auto acc = widened(get<T>(inputs[0], at));
          double magnitude = std::fabs(static_cast<double>(acc));
          for (int32_t j = 1; j < n; ++j) {
            const auto v = widened(get<T>(inputs[size_t(j)], at));
            acc = reduce_step(c.reduce_op, acc, v);
            magnitude += std::fabs(static_cast<double>(v));
          }
          put(x.values, e, stored<T>(reduce_finish(c.reduce_op, acc, n)));
          const bool summed = c.reduce_op == BP_REDUCE_SUM || c.reduce_op == BP_REDUCE_MEAN;
          if (is_float_element<T> && summed)
            x.tolerance[size_t(e)] =
                (n + 1) * epsilon_of<T>() * magnitude / (c.reduce_op == BP_REDUCE_MEAN ? n : 1);
        }
      }
    }
  });
  return x;
}

// "" when `got` holds the expected values, else where and what differs.
inline std::string compare_collective_output(const CollectiveCase &c, const Bytes &got,
                                             const CollectiveExpectation &want) {
  std::string problem;
  with_host_type(c.dtype, [&](auto tag) {
    using T = decltype(tag);
    for (size_t e = 0; e < want.tolerance.size() && problem.empty(); ++e) {
      const T g = get<T>(got, static_cast<int64_t>(e)), w = get<T>(want.values, static_cast<int64_t>(e));
      const double gv = static_cast<double>(widened(g)), wv = static_cast<double>(widened(w));
      const bool ok = want.tolerance[e] > 0 ? std::fabs(gv - wv) <= want.tolerance[e] : std::memcmp(&g, &w, sizeof g) == 0;
      if (!ok) {
        std::ostringstream m;
        m.precision(17);
        m << "element " << e << " is " << +widened(g) << " where " << +widened(w) << " was expected";
        problem = m.str();
      }
    }
  });
  return problem;
}

// ---- running a case -------------------------------------------------------

constexpr int64_t kCollectiveGuard = 3;  // elements of guard bytes before and after every view
constexpr uint8_t kInputGuard = 0x5A, kOutputGuard = 0xA5;

// A buffer holding a view of `elements` elements after kCollectiveGuard
// guard elements, with as many after it.
struct GuardedBuffer {
  bp_buffer buffer = nullptr;
  Bytes contents;  // the whole buffer as written
};

inline GuardedBuffer guarded_buffer(const PluginHandle &p, int32_t device, bp_dtype dtype, int64_t elements,
                                    const Bytes &values, uint8_t guard) {
  const size_t size = static_cast<size_t>(dtype_size(dtype));
  GuardedBuffer b;
  b.contents.assign(static_cast<size_t>(elements + 2 * kCollectiveGuard) * size, guard);
  if (!values.empty()) std::memcpy(b.contents.data() + kCollectiveGuard * size, values.data(), values.size());
  b.buffer = p.alloc(device, b.contents.size());
  p.check(p.api().write(b.buffer, 0, b.contents.data(), b.contents.size()), "write");
  return b;
}

inline bp_plugin_tensor guarded_view(const GuardedBuffer &b, bp_dtype dtype, const Shape &shape) {
  return dense_view(b.buffer, dtype, shape, static_cast<uint64_t>(kCollectiveGuard * dtype_size(dtype)));
}

// Runs the case on the plugin and checks every output, every guard byte and
// that inputs not written in place kept their values.
inline void check_collective_case(const PluginHandle &p, const CollectiveCase &c) {
  INFO(c.describe());
  const size_t count = c.devices.size();
  const Shape in_shape = c.input_shape(), out_shape = c.output_shape();
  const int64_t in_elements = numel(in_shape), out_elements = numel(out_shape);
  const size_t size = static_cast<size_t>(dtype_size(c.dtype));
  // Participant i of the case is participant `rank` of the group (the
  // other ranks are the test's to run); here the group has one rank.
  std::vector<Bytes> values;
  for (int32_t j = 0; j < c.participants(); ++j) values.push_back(collective_input(c, j, in_elements));
  std::vector<GuardedBuffer> in(count), out(count);
  std::vector<bp_plugin_tensor> in_views, out_views;
  for (size_t i = 0; i < count; ++i) {
    in[i] = guarded_buffer(p, c.devices[i], c.dtype, in_elements, values[i], kInputGuard);
    in_views.push_back(guarded_view(in[i], c.dtype, in_shape));
    if (c.in_place) {
      out_views.push_back(in_views.back());
    } else {
      out[i] = guarded_buffer(p, c.devices[i], c.dtype, out_elements, {}, kOutputGuard);
      out_views.push_back(guarded_view(out[i], c.dtype, out_shape));
    }
  }
  bp_collective_args args = collective_args(c.collective, c.reduce_op, c.devices, in_views, out_views, c.root);
  args.group = c.group;
  const bp_status s = p.api().collective(&args);
  INFO("status " << bp_vocab_status_name(s) << ": " << (s == BP_OK ? "" : p.api().last_error()));
  REQUIRE(s == BP_OK);
  for (size_t i = 0; i < count; ++i) {
    INFO("participant " << i);
    const GuardedBuffer &o = c.in_place ? in[i] : out[i];
    const Bytes after = p.download<uint8_t>(o.buffer, o.contents.size());
    const size_t first = kCollectiveGuard * size, end = first + static_cast<size_t>(out_elements) * size;
    CHECK(std::equal(after.begin(), after.begin() + static_cast<std::ptrdiff_t>(first), o.contents.begin()));
    CHECK(std::equal(after.begin() + static_cast<std::ptrdiff_t>(end), after.end(),
                     o.contents.begin() + static_cast<std::ptrdiff_t>(end)));
    const Bytes got(after.begin() + static_cast<std::ptrdiff_t>(first), after.begin() + static_cast<std::ptrdiff_t>(end));
    CHECK(compare_collective_output(c, got, expected_output(c, values, static_cast<int32_t>(i))) == "");
    if (!c.in_place) CHECK(p.download<uint8_t>(in[i].buffer, in[i].contents.size()) == in[i].contents);
  }
  for (size_t i = 0; i < count; ++i) {
    CHECK(p.api().free(in[i].buffer) == BP_OK);
    if (out[i].buffer) CHECK(p.api().free(out[i].buffer) == BP_OK);
  }
}

// ---- malformed calls --------------------------------------------------------

// A malformed call on `devices` (one or two distinct devices of the plugin):
// `mutate` breaks an ALL_REDUCE SUM of float32 [4] from participant to
// participant, which must then fail with `want`, a message naming
// `words`, and no output written.
template <class Mutate>
void check_collective_refused(const PluginHandle &p, const std::vector<int32_t> &devices, bp_status want,
                              const std::vector<std::string> &words, Mutate &&mutate) {
  const std::vector<float> ones(4, 1.0f);
  std::vector<bp_buffer> buffers;
  std::vector<bp_plugin_tensor> in, out;
  for (int32_t d : devices) {
    buffers.push_back(p.upload(d, ones));
    in.push_back(dense_view(buffers.back(), BP_FLOAT32, {4}));
    buffers.push_back(p.upload(d, std::vector<float>(4, -1.0f)));
    out.push_back(dense_view(buffers.back(), BP_FLOAT32, {4}));
  }
  std::vector<int32_t> ids = devices;
  bp_collective_args args = collective_args(BP_COLLECTIVE_ALL_REDUCE, BP_REDUCE_SUM, ids, in, out);
  mutate(args, ids, in, out);
  check_error(p.api(), p.api().collective(&args), want, words);
  for (size_t i = 0; i < devices.size(); ++i)
    CHECK(p.download<float>(buffers[2 * i + 1], 4) == std::vector<float>(4, -1.0f));
  for (bp_buffer b : buffers) CHECK(p.api().free(b) == BP_OK);
}

using CollectiveMutation =
    std::function<void(bp_collective_args &, std::vector<int32_t> &, std::vector<bp_plugin_tensor> &,
                       std::vector<bp_plugin_tensor> &)>;

// The malformed calls of plugin.h's rules on one device (d0) and, when d1 >=
// 0, on two. A plugin's own rules (groups it knows, devices it has) are the
// test's to add.
inline void check_collective_errors(const PluginHandle &p, int32_t d0, int32_t d1) {
  const bp_plugin_api &api = p.api();
  check_error(api, api.collective(nullptr), BP_ERR_INVALID_ARGUMENT, {"NULL"});
  struct Bad {
    const char *what;
    bool two_devices;
    bp_status want;
    std::vector<std::string> words;
    CollectiveMutation mutate;
  };
  const std::vector<Bad> bad = {
      {"count 0", false, BP_ERR_INVALID_ARGUMENT, {"count"},
       [](bp_collective_args &a, auto &, auto &, auto &) { a.count = 0; }},
      {"an older struct_size", false, BP_ERR_INVALID_ARGUMENT, {"struct_size"},
       [](bp_collective_args &a, auto &, auto &, auto &) { a.struct_size = offsetof(bp_collective_args, group); }},
      {"NULL devices", false, BP_ERR_INVALID_ARGUMENT, {"devices"},
       [](bp_collective_args &a, auto &, auto &, auto &) { a.devices = nullptr; }},
      {"NULL inputs", false, BP_ERR_INVALID_ARGUMENT, {"inputs"},
       [](bp_collective_args &a, auto &, auto &, auto &) { a.inputs = nullptr; }},
      {"NULL outputs", false, BP_ERR_INVALID_ARGUMENT, {"outputs"},
       [](bp_collective_args &a, auto &, auto &, auto &) { a.outputs = nullptr; }},
      {"an unknown collective", false, BP_ERR_INVALID_ARGUMENT, {"99"},
       [](bp_collective_args &a, auto &, auto &, auto &) { a.collective = 99; }},
      {"an unknown reduction", false, BP_ERR_INVALID_ARGUMENT, {"reduce_op", "77"},
       [](bp_collective_args &a, auto &, auto &, auto &) { a.reduce_op = 77; }},
      {"a broadcast root that is no participant", false, BP_ERR_INVALID_ARGUMENT, {"root"},
       [](bp_collective_args &a, auto &, auto &, auto &) {
         a.collective = BP_COLLECTIVE_BROADCAST;
         a.root = 1;
       }},
      {"a NULL input buffer", false, BP_ERR_INVALID_ARGUMENT, {"input 0"},
       [](bp_collective_args &, auto &, auto &in, auto &) { in[0].buffer = nullptr; }},
      {"an input past its buffer", false, BP_ERR_INVALID_ARGUMENT, {"input 0"},
       [](bp_collective_args &, auto &, auto &in, auto &) { in[0].offset = 8; }},
      {"a strided input", false, BP_ERR_INVALID_ARGUMENT, {"contiguous"},
       [](bp_collective_args &, auto &, auto &in, auto &) {
         in[0].shape[0] = 2;
         in[0].strides[0] = 2;
       }},
      {"an output of another shape", false, BP_ERR_SHAPE, {"output 0"},
       [](bp_collective_args &, auto &, auto &, auto &out) { out[0].shape[0] = 3; }},
      {"an output of another dtype", false, BP_ERR_DTYPE, {"int32"},
       [](bp_collective_args &, auto &, auto &, auto &out) { out[0].dtype = BP_INT32; }},
      {"a sum of bool", false, BP_ERR_DTYPE, {"bool"},
       [](bp_collective_args &, auto &, auto &in, auto &out) {
         in[0] = dense_view(in[0].buffer, BP_BOOL, {4});
         out[0] = dense_view(out[0].buffer, BP_BOOL, {4});
       }},
      {"an output overlapping its input", false, BP_ERR_INVALID_ARGUMENT, {"overlaps"},
       [](bp_collective_args &, auto &, auto &in, auto &out) {
         in[0].shape[0] = 2;
         out[0] = in[0];
         out[0].offset = 4;
       }},
      {"a reduce_scatter input without the leading n", false, BP_ERR_SHAPE, {"leading"},
       [](bp_collective_args &a, auto &, auto &, auto &) { a.collective = BP_COLLECTIVE_REDUCE_SCATTER; }},
      {"one device twice", true, BP_ERR_INVALID_ARGUMENT, {"devices[0]", "devices[1]"},
       [](bp_collective_args &, auto &ids, auto &, auto &) { ids[1] = ids[0]; }},
      {"inputs of two shapes", true, BP_ERR_SHAPE, {"input 1"},
       [](bp_collective_args &, auto &, auto &in, auto &out) {
         in[1].shape[0] = 3;
         out[1].shape[0] = 3;
       }},
      {"an input on another participant's device", true, BP_ERR_DEVICE_MISMATCH, {"input 1"},
       [](bp_collective_args &, auto &, auto &in, auto &) { in[1].buffer = in[0].buffer; }},
  };
  for (const Bad &b : bad) {
    if (b.two_devices && d1 < 0) continue;
    INFO(b.what);
    check_collective_refused(p, b.two_devices ? std::vector<int32_t>{d0, d1} : std::vector<int32_t>{d0}, b.want,
                             b.words, b.mutate);
  }
}

}  // namespace bp_test
