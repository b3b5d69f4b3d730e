// float16, bfloat16, int8, uint8 and int16 on the OpenCL backend, checked
// against concrete values and backplane/half.h bit for bit (not against the
// reference plugin): the conversions on their edge values and over every
// 16-bit pattern, rounding once from float64 and the integers, arithmetic
// in float32 rounded once, wrapping and saturating integers, float32
// accumulation in reductions and MATMUL, the float32 random streams
// rounded, indexing that keeps bits, and supports() per device.
#include <cmath>
#include <cstring>

#include "opencl_test.hpp"

using namespace ocl_test;

namespace {

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

uint16_t half_from_f32(int32_t dtype, float f) { return dtype == BP_FLOAT16 ? bp_f16_from_f32(f) : bp_bf16_from_f32(f); }
uint16_t half_from_f64(int32_t dtype, double d) { return dtype == BP_FLOAT16 ? bp_f16_from_f64(d) : bp_bf16_from_f64(d); }
float f32_from_half(int32_t dtype, uint16_t h) { return dtype == BP_FLOAT16 ? bp_f32_from_f16(h) : bp_f32_from_bf16(h); }

const int32_t kHalves[] = {BP_FLOAT16, BP_BFLOAT16};

// out = op(input, x) for a binary operator.
bp_op_attrs scalar_rhs(double x) {
  bp_op_attrs a = attrs_with(x);
  a.scalar_mode = BP_SCALAR_RHS;
  return a;
}

// The same float32, or both NaN (widening to float64 quiets a signalling one).
bool same_float(double got, float want) {
  return std::isnan(want) ? std::isnan(got) : bits_of(static_cast<float>(got)) == bits_of(want);
}

// The harness's dense_view for a dtype held as a number.
bp_plugin_tensor dense_view(bp_buffer buffer, int32_t dtype, std::vector<int64_t> shape) {
  return bp_test::dense_view(buffer, static_cast<bp_dtype>(dtype), std::move(shape));
}

// `op` on opencl:device with 1-D inputs of the given dtypes and values; the
// output's elements as stored.
template <class R, class... In>
std::vector<R> run1d(Buffers &b, int32_t op, int32_t out_dtype, int64_t out_n, const bp_op_attrs &attrs,
                     const std::pair<int32_t, std::vector<In>> &...inputs) {
  std::vector<bp_plugin_tensor> views{
      dense_view(b.buffer(inputs.second), inputs.first, {static_cast<int64_t>(inputs.second.size())})...};
  const bp_plugin_tensor out = b.empty(static_cast<bp_dtype>(out_dtype), {out_n});
  b.exec(op, views, out, attrs);
  return b.values<R>(out);
}

template <class R, class In>
std::vector<R> copy_to(Buffers &b, int32_t from, int32_t to, const std::vector<In> &values) {
  return run1d<R>(b, BP_OP_COPY, to, static_cast<int64_t>(values.size()), attrs(), std::make_pair(from, values));
}

// Float32 patterns: the edges of both half formats, then a sweep over all
// 2^32 patterns in steps of a prime.
std::vector<uint32_t> float_patterns() {
  std::vector<uint32_t> p = {
      0x00000000, 0x80000000, 0x3f800000, 0x477fe000, 0x477fefff, 0x477ff000, 0x477fffff, 0x47800000,
      0x7f7fffff, 0x7f800000, 0xff800000, 0x7f800001, 0xffbfffff, 0x7fc00000, 0x7fffffff, 0x7fa02000,
      0x33000000, 0x33000001, 0x33400000, 0x33800000, 0x387fc000, 0x387fe000, 0x387fefff, 0x38800000,
      0x00000001, 0x00008000, 0x00018000, 0x00010000, 0x007fffff, 0x00800000, 0x3f808000, 0x3f818000,
      0x3f807fff, 0x3f808001, 0x3f801000, 0x3f803000, 0x7f7f8000, 0x7f7f7fff, 0xc77ff000, 0x80008000};
  for (uint64_t u = 0; u < (1ull << 32); u += 4093) p.push_back(static_cast<uint32_t>(u));
  return p;
}

}  // namespace

TEST_CASE("float32 to float16 and bfloat16 rounds to nearest even and keeps subnormals, as half.h", "[small_dtypes]") {
  Buffers b(ocl(), 0);
  std::vector<float> in;
  for (uint32_t u : float_patterns()) in.push_back(float_of(u));
  for (int32_t dtype : kHalves) {
    INFO("float32 -> " << dtype_name(dtype));
    const std::vector<uint16_t> got = copy_to<uint16_t>(b, BP_FLOAT32, dtype, in);
    size_t bad = 0;
    for (size_t i = 0; i < in.size(); ++i)
      if (got[i] != half_from_f32(dtype, in[i]) && bad++ < 5)
        FAIL_CHECK("float32 0x" << std::hex << bits_of(in[i]) << " gave 0x" << got[i] << ", half.h 0x"
                                << half_from_f32(dtype, in[i]));
    CHECK(bad == 0);
  }
  // The same bits, written out: ties to even, the overflow threshold,
  // subnormals kept (no flush), NaN quiet with its sign and payload.
  const std::vector<float> edges = {65519.996f, 65520.0f, 0x1p-25f, 0x1.000002p-25f, 0x1.8p-24f, -0.0f,
                                    1 + 0x1p-11f, 1 + 0x3p-11f, float_of(0x7f800001), -INFINITY};
  CHECK(copy_to<uint16_t>(b, BP_FLOAT32, BP_FLOAT16, edges) ==
        std::vector<uint16_t>{0x7bff, 0x7c00, 0x0000, 0x0001, 0x0002, 0x8000, 0x3c00, 0x3c02, 0x7e00, 0xfc00});
  const std::vector<float> bf_edges = {1 + 0x1p-8f, 1 + 0x3p-8f, float_of(0x00000001), float_of(0x00008000),
                                       float_of(0x00018000), float_of(0x00010000), float_of(0x7f800001),
                                       float_of(0xffc00001), float_of(0x7f7fffff)};
  CHECK(copy_to<uint16_t>(b, BP_FLOAT32, BP_BFLOAT16, bf_edges) ==
        std::vector<uint16_t>{0x3f80, 0x3f82, 0x0000, 0x0000, 0x0002, 0x0001, 0x7fc0, 0xffc0, 0x7f80});
}

TEST_CASE("every float16 and bfloat16 pattern widens exactly and converts between the two as half.h", "[small_dtypes]") {
  Buffers b(ocl(), 1);
  std::vector<uint16_t> all(65536);
  for (uint32_t h = 0; h < 65536; ++h) all[h] = static_cast<uint16_t>(h);
  for (int32_t dtype : kHalves) {
    INFO(dtype_name(dtype));
    const std::vector<float> f32 = copy_to<float>(b, dtype, BP_FLOAT32, all);
    const std::vector<double> f64 = copy_to<double>(b, dtype, BP_FLOAT64, all);
    const int32_t other = dtype == BP_FLOAT16 ? BP_BFLOAT16 : BP_FLOAT16;
    const std::vector<uint16_t> crossed = copy_to<uint16_t>(b, dtype, other, all);
    size_t bad = 0;
    for (uint32_t h = 0; h < 65536; ++h) {
      const float want = f32_from_half(dtype, static_cast<uint16_t>(h));
      const bool ok = bits_of(f32[h]) == bits_of(want) && same_float(f64[h], want) &&
                      crossed[h] == half_from_f32(other, want);
      if (!ok && bad++ < 5)
        FAIL_CHECK("0x" << std::hex << h << " widened to 0x" << bits_of(f32[h]) << ", half.h 0x" << bits_of(want)
                        << "; crossed 0x" << crossed[h]);
    }
    CHECK(bad == 0);
  }
  std::vector<uint32_t> widened;
  for (float f : copy_to<float>(b, BP_FLOAT16, BP_FLOAT32, std::vector<uint16_t>{0x0001, 0x7bff, 0x7c01, 0xfe00}))
    widened.push_back(bits_of(f));
  CHECK(widened == std::vector<uint32_t>{0x33800000, 0x477fe000, 0x7fc02000, 0xffc00000});
}

TEST_CASE("float64 and 32- and 64-bit integers round once to the halves, never through a rounded float32", "[small_dtypes]") {
  Buffers b(ocl(), 0);
  // Just above a tie of the half that float32 would round onto the tie.
  const std::vector<double> doubles = {1 + 0x1p-11 + 0x1p-40, 1 + 0x1p-8 + 0x1p-40, 65520.0 - 0x1p-30, 1e300, -1e-300,
                                       0x1p-25 + 0x1p-60, std::nan("")};
  CHECK(copy_to<uint16_t>(b, BP_FLOAT64, BP_FLOAT16, doubles) ==
        std::vector<uint16_t>{0x3c01, 0x3c04, 0x7bff, 0x7c00, 0x8000, 0x0001, 0x7e00});
  CHECK(copy_to<uint16_t>(b, BP_FLOAT64, BP_BFLOAT16, doubles) ==
        std::vector<uint16_t>{0x3f80, 0x3f81, 0x4780, 0x7f80, 0x8000, 0x3300, 0x7fc0});
  // 2^24 + 2^16 + 1: float32 rounds it onto bfloat16's tie (2^24 + 2^16),
  // which then goes to even (2^24); once rounded it is 2^24 + 2^17.
  const std::vector<int64_t> longs = {(1 << 24) + (1 << 16) + 1, 2049, 2051, 65519, 65520, -65536,
                                      (int64_t(1) << 62) + 1, INT64_MIN, -((int64_t(1) << 40) + (int64_t(1) << 32) + 1)};
  const std::vector<int32_t> ints = {(1 << 24) + (1 << 16) + 1, 2049, 2051, 65519, 65520, -65536, INT32_MAX};
  CHECK(copy_to<uint16_t>(b, BP_INT64, BP_BFLOAT16, std::vector<int64_t>{longs[0]}) == std::vector<uint16_t>{0x4b81});
  CHECK(copy_to<uint16_t>(b, BP_INT32, BP_BFLOAT16, std::vector<int32_t>{ints[0]}) == std::vector<uint16_t>{0x4b81});
  CHECK(copy_to<uint16_t>(b, BP_INT64, BP_FLOAT16, std::vector<int64_t>{2049, 2051, 65519, 65520}) ==
        std::vector<uint16_t>{0x6800, 0x6802, 0x7bff, 0x7c00});
  for (int32_t dtype : kHalves) {
    INFO(dtype_name(dtype));
    const std::vector<uint16_t> from_longs = copy_to<uint16_t>(b, BP_INT64, dtype, longs);
    const std::vector<uint16_t> from_ints = copy_to<uint16_t>(b, BP_INT32, dtype, ints);
    for (size_t i = 0; i < longs.size(); ++i) {
      INFO("int64 " << longs[i]);
      CHECK(from_longs[i] == (dtype == BP_FLOAT16 ? bp_f16_from_i64(longs[i]) : bp_bf16_from_i64(longs[i])));
    }
    for (size_t i = 0; i < ints.size(); ++i) {
      INFO("int32 " << ints[i]);
      CHECK(from_ints[i] == (dtype == BP_FLOAT16 ? bp_f16_from_i64(ints[i]) : bp_bf16_from_i64(ints[i])));
    }
    // Doubles of every magnitude, against half.h.
    std::mt19937_64 rng(7);
    std::vector<double> random;
    for (int i = 0; i < 20000; ++i)
      random.push_back(std::ldexp(std::uniform_real_distribution<double>(-2, 2)(rng), static_cast<int>(rng() % 300) - 150));
    const std::vector<uint16_t> got = copy_to<uint16_t>(b, BP_FLOAT64, dtype, random);
    size_t bad = 0;
    for (size_t i = 0; i < random.size(); ++i)
      if (got[i] != half_from_f64(dtype, random[i]) && bad++ < 5)
        FAIL_CHECK(random[i] << " gave 0x" << std::hex << got[i] << ", half.h 0x" << half_from_f64(dtype, random[i]));
    CHECK(bad == 0);
  }
  CHECK(copy_to<uint16_t>(b, BP_INT16, BP_FLOAT16, std::vector<int16_t>{-32768, 2049, 32767}) ==
        std::vector<uint16_t>{0xf800, 0x6800, 0x7800});
  CHECK(copy_to<uint16_t>(b, BP_UINT8, BP_BFLOAT16, std::vector<uint8_t>{255, 3}) ==
        std::vector<uint16_t>{0x437f, 0x4040});
}

TEST_CASE("halves compute in float32 and round once, bit for bit", "[small_dtypes]") {
  Buffers b(ocl(), 1);
  std::mt19937_64 rng(11);
  for (int32_t dtype : kHalves) {
    // Specials, subnormals, the largest finite value, then random patterns.
    std::vector<uint16_t> x = {0x0000, 0x8000, 0x0001, 0x7c00, 0xfc00, 0x7e00, 0x3c00, 0xbc00},
                          y = {0x8000, 0x0001, 0x0001, 0xfc00, 0x3c00, 0x3c00, 0x3c01, 0x0000};
    const uint16_t largest = dtype == BP_FLOAT16 ? 0x7bff : 0x7f7f;
    x.push_back(largest);
    y.push_back(largest);
    while (x.size() < 4000) {
      x.push_back(static_cast<uint16_t>(rng()));
      y.push_back(static_cast<uint16_t>(rng() % 4 == 0 ? rng() : (rng() & 0x83ff) | (x.back() & 0x7c00)));
    }
    const auto n = static_cast<int64_t>(x.size());
    struct Case {
      int32_t op;
      float (*f)(float, float);
    };
    const Case binaries[] = {
        {BP_OP_ADD, [](float a, float c) { return a + c; }},
        {BP_OP_SUB, [](float a, float c) { return a - c; }},
        {BP_OP_MUL, [](float a, float c) { return a * c; }},
        {BP_OP_DIV, [](float a, float c) { return a / c; }},
        {BP_OP_MAXIMUM, [](float a, float c) { return (a > c || std::isnan(a)) ? a : c; }},
        {BP_OP_MINIMUM, [](float a, float c) { return (a < c || std::isnan(a)) ? a : c; }},
        {BP_OP_FLOOR_DIVIDE, [](float a, float c) { return std::floor(a / c); }},
        {BP_OP_REMAINDER,
         [](float a, float c) {
           float r = std::fmod(a, c);
           if (r != 0 && ((r < 0) != (c < 0))) r += c;
           return r == 0 ? std::copysign(0.0f, c) : r;
         }},
    };
    for (const Case &c : binaries) {
      INFO(op_name(c.op) << " " << dtype_name(dtype));
      const std::vector<uint16_t> got =
          run1d<uint16_t>(b, c.op, dtype, n, attrs(), std::make_pair(dtype, x), std::make_pair(dtype, y));
      size_t bad = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        const float want = c.f(f32_from_half(dtype, x[i]), f32_from_half(dtype, y[i]));
        // Which NaN an operation on two NaNs gives is the hardware's; the
        // bits of every other result are plugin.h's.
        const bool ok = std::isnan(want) ? std::isnan(f32_from_half(dtype, got[i])) : got[i] == half_from_f32(dtype, want);
        if (!ok && bad++ < 5)
          FAIL_CHECK(std::hex << "0x" << x[i] << ", 0x" << y[i] << " gave 0x" << got[i] << ", want 0x"
                              << half_from_f32(dtype, want));
      }
      CHECK(bad == 0);
    }
    const std::vector<uint8_t> lt =
        run1d<uint8_t>(b, BP_OP_LT, BP_BOOL, n, attrs(), std::make_pair(dtype, x), std::make_pair(dtype, y));
    for (size_t i = 0; i < x.size(); ++i)
      REQUIRE(lt[i] == (f32_from_half(dtype, x[i]) < f32_from_half(dtype, y[i])));
    for (int32_t op : {BP_OP_SQRT, BP_OP_SQUARE, BP_OP_NEG, BP_OP_ABS, BP_OP_RELU}) {
      INFO(op_name(op) << " " << dtype_name(dtype));
      const std::vector<uint16_t> got = run1d<uint16_t>(b, op, dtype, n, attrs(), std::make_pair(dtype, x));
      for (size_t i = 0; i < x.size(); ++i) {
        const float v = f32_from_half(dtype, x[i]);
        const float want = op == BP_OP_SQRT ? std::sqrt(v) : op == BP_OP_SQUARE ? v * v : op == BP_OP_NEG ? -v
                           : op == BP_OP_ABS ? std::fabs(v) : (v > 0 ? v : 0.0f);
        const bool ok = std::isnan(want) ? std::isnan(f32_from_half(dtype, got[i])) : got[i] == half_from_f32(dtype, want);
        if (!ok) FAIL_CHECK(std::hex << "0x" << x[i] << " gave 0x" << got[i]);
        if (!ok) break;
      }
    }
    // A scalar operand converts as by COPY from float64 first: 0.1 is
    // rounded to the dtype, not to float32.
    const std::vector<uint16_t> plus =
        run1d<uint16_t>(b, BP_OP_ADD, dtype, 1, scalar_rhs(0.1), std::make_pair(dtype, std::vector<uint16_t>{0x0000}));
    CHECK(plus[0] == half_from_f64(dtype, 0.1));
  }
  CHECK(run1d<uint16_t>(b, BP_OP_ADD, BP_FLOAT16, 2, attrs(), std::make_pair(int32_t(BP_FLOAT16), std::vector<uint16_t>{0x3c00, 0x7bff}),
                        std::make_pair(int32_t(BP_FLOAT16), std::vector<uint16_t>{0x1000, 0x5000})) ==
        std::vector<uint16_t>{0x3c00, 0x7c00});  // 1 + 2^-11 is a tie (even: 1); 65504 + 32 overflows
}

TEST_CASE("int8, uint8 and int16 wrap, truncate and saturate as plugin.h says", "[small_dtypes]") {
  Buffers b(ocl(), 0);
  using I8 = std::vector<int8_t>;
  using U8 = std::vector<uint8_t>;
  using I16 = std::vector<int16_t>;
  auto p8 = [](I8 v) { return std::make_pair(int32_t(BP_INT8), v); };
  auto pu8 = [](U8 v) { return std::make_pair(int32_t(BP_UINT8), v); };
  auto p16 = [](I16 v) { return std::make_pair(int32_t(BP_INT16), v); };
  CHECK(run1d<int8_t>(b, BP_OP_ADD, BP_INT8, 3, attrs(), p8({100, -128, 127}), p8({100, -1, 1})) == I8{-56, 127, -128});
  CHECK(run1d<int8_t>(b, BP_OP_MUL, BP_INT8, 2, attrs(), p8({16, -128}), p8({16, -1})) == I8{0, -128});
  CHECK(run1d<uint8_t>(b, BP_OP_SUB, BP_UINT8, 2, attrs(), pu8({1, 200}), pu8({2, 100})) == U8{255, 100});
  CHECK(run1d<uint8_t>(b, BP_OP_MUL, BP_UINT8, 1, attrs(), pu8({255}), pu8({255})) == U8{1});
  CHECK(run1d<int16_t>(b, BP_OP_ADD, BP_INT16, 1, attrs(), p16({30000}), p16({30000})) == I16{-5536});
  CHECK(run1d<int16_t>(b, BP_OP_MUL, BP_INT16, 1, attrs(), p16({-32768}), p16({-32768})) == I16{0});
  CHECK(run1d<int16_t>(b, BP_OP_MUL, BP_INT16, 1, attrs(), p16({32767}), p16({32767})) == I16{1});
  CHECK(run1d<int8_t>(b, BP_OP_POW, BP_INT8, 3, attrs(), p8({3, -1, 2}), p8({5, -3, -1})) == I8{-13, -1, 0});
  CHECK(run1d<int8_t>(b, BP_OP_FLOOR_DIVIDE, BP_INT8, 4, attrs(), p8({-7, 7, -128, 5}), p8({2, -2, -1, 0})) ==
        I8{-4, -4, -128, 0});
  CHECK(run1d<int8_t>(b, BP_OP_REMAINDER, BP_INT8, 4, attrs(), p8({-7, 7, -128, 5}), p8({2, -2, -1, 0})) ==
        I8{1, -1, 0, 0});
  CHECK(run1d<uint8_t>(b, BP_OP_FLOOR_DIVIDE, BP_UINT8, 2, attrs(), pu8({255, 7}), pu8({2, 0})) == U8{127, 0});
  CHECK(run1d<int8_t>(b, BP_OP_NEG, BP_INT8, 2, attrs(), p8({-128, 5})) == I8{-128, -5});
  CHECK(run1d<int8_t>(b, BP_OP_ABS, BP_INT8, 2, attrs(), p8({-128, -5})) == I8{-128, 5});
  CHECK(run1d<uint8_t>(b, BP_OP_BITWISE_NOT, BP_UINT8, 1, attrs(), pu8({0x0f})) == U8{0xf0});
  CHECK(run1d<int16_t>(b, BP_OP_SQUARE, BP_INT16, 1, attrs(), p16({300})) == I16{24464});
  CHECK(run1d<uint8_t>(b, BP_OP_GT, BP_BOOL, 2, attrs(), pu8({200, 3}), pu8({100, 4})) == U8{1, 0});
  CHECK(run1d<uint8_t>(b, BP_OP_MAXIMUM, BP_UINT8, 1, attrs(), pu8({200}), pu8({100})) == U8{200});
  // Scalars saturate into the dtype (the core passes only integral ones).
  CHECK(run1d<int8_t>(b, BP_OP_ADD, BP_INT8, 1, scalar_rhs(1000), p8({0})) == I8{127});
  // COPY: integers keep their low bits; floats truncate, saturate, NaN 0.
  CHECK(copy_to<int8_t>(b, BP_INT32, BP_INT8, std::vector<int32_t>{300, -129, 127}) == I8{44, 127, 127});
  CHECK(copy_to<int16_t>(b, BP_INT64, BP_INT16, std::vector<int64_t>{70000, -32769}) == I16{4464, 32767});
  CHECK(copy_to<uint8_t>(b, BP_INT8, BP_UINT8, I8{-1, -128}) == U8{255, 128});
  CHECK(copy_to<int32_t>(b, BP_UINT8, BP_INT32, U8{255}) == std::vector<int32_t>{255});
  CHECK(copy_to<int8_t>(b, BP_FLOAT32, BP_INT8, std::vector<float>{300.7f, -300.0f, NAN, -2.9f, INFINITY}) ==
        I8{127, -128, 0, -2, 127});
  CHECK(copy_to<uint8_t>(b, BP_FLOAT64, BP_UINT8, std::vector<double>{-1.5, 255.9, 256.0, 1e300}) == U8{0, 255, 255, 255});
  CHECK(copy_to<int16_t>(b, BP_FLOAT16, BP_INT16, std::vector<uint16_t>{0x7bff, 0xfc00, 0x7e00, 0xc100}) ==
        I16{32767, -32768, 0, -2});
  CHECK(copy_to<uint8_t>(b, BP_BFLOAT16, BP_BOOL, std::vector<uint16_t>{0x8000, 0x0001, 0x7fc0}) == U8{0, 1, 1});
}

TEST_CASE("reductions and cumsum of halves accumulate in float32, of small integers in int64", "[small_dtypes]") {
  Buffers b(ocl(), 1);
  auto reduce = [&](int32_t op, int32_t dtype, int32_t out_dtype, auto values) {
    const auto n = static_cast<int64_t>(values.size());
    const bp_plugin_tensor in = dense_view(b.buffer(values), dtype, {n});
    const bp_plugin_tensor out = b.empty(static_cast<bp_dtype>(out_dtype), {1});
    b.exec(op, {in}, out);
    return out;
  };
  for (int32_t dtype : kHalves) {
    INFO(dtype_name(dtype));
    // 1 + 1000 * 2^-12: a half accumulator would stay at 1.
    std::vector<uint16_t> x(1001, half_from_f32(dtype, 0x1p-12f));
    x[0] = half_from_f32(dtype, 1.0f);
    const float sum = 1 + 1000 * 0x1p-12f;
    CHECK(b.values<uint16_t>(reduce(BP_OP_SUM, dtype, dtype, x))[0] == (dtype == BP_FLOAT16 ? 0x3cfa : 0x3f9f));
    CHECK(b.values<uint16_t>(reduce(BP_OP_MEAN, dtype, dtype, x))[0] == half_from_f32(dtype, sum / 1001.0f));
    CHECK(b.values<uint16_t>(reduce(BP_OP_NORM, dtype, dtype, std::vector<uint16_t>{half_from_f32(dtype, 3),
                                                                                       half_from_f32(dtype, 4)}))[0] ==
          half_from_f32(dtype, 5));
    const std::vector<uint16_t> factors = {half_from_f32(dtype, 3), half_from_f32(dtype, 3), half_from_f32(dtype, 1.0f / 9)};
    CHECK(b.values<uint16_t>(reduce(BP_OP_PROD, dtype, dtype, factors))[0] ==
          half_from_f32(dtype, 9.0f * f32_from_half(dtype, factors[2])));
    const std::vector<uint16_t> mixed = {half_from_f32(dtype, -2), half_from_f32(dtype, 7), half_from_f32(dtype, 7),
                                         half_from_f32(dtype, -9)};
    CHECK(b.values<uint16_t>(reduce(BP_OP_MAX, dtype, dtype, mixed))[0] == half_from_f32(dtype, 7));
    CHECK(b.values<uint16_t>(reduce(BP_OP_MIN, dtype, dtype, mixed))[0] == half_from_f32(dtype, -9));
    CHECK(b.values<int64_t>(reduce(BP_OP_ARGMAX, dtype, BP_INT64, mixed))[0] == 1);
    const std::vector<uint16_t> with_nan = {half_from_f32(dtype, 1), half_from_f32(dtype, NAN), half_from_f32(dtype, 2)};
    CHECK(std::isnan(f32_from_half(dtype, b.values<uint16_t>(reduce(BP_OP_MAX, dtype, dtype, with_nan))[0])));
    CHECK(b.values<int64_t>(reduce(BP_OP_ARGMIN, dtype, BP_INT64, with_nan))[0] == 1);
    // Each cumsum element rounded once from its float32 running sum.
    const bp_plugin_tensor in = dense_view(b.buffer(x), dtype, {1001});
    const bp_plugin_tensor out = b.empty(static_cast<bp_dtype>(dtype), {1001});
    b.exec(BP_OP_CUMSUM, {in}, out);
    const std::vector<uint16_t> scan = b.values<uint16_t>(out);
    for (int k : {0, 1, 7, 500, 1000}) {
      INFO("cumsum element " << k);
      CHECK(scan[size_t(k)] == half_from_f32(dtype, 1 + k * 0x1p-12f));
    }
  }
  CHECK(b.values<int64_t>(reduce(BP_OP_SUM, BP_INT8, BP_INT64, std::vector<int8_t>{100, 100, 100, -128}))[0] == 172);
  CHECK(b.values<int64_t>(reduce(BP_OP_PROD, BP_INT8, BP_INT64, std::vector<int8_t>{-128, 2, 3}))[0] == -768);
  CHECK(b.values<int64_t>(reduce(BP_OP_SUM, BP_UINT8, BP_INT64, std::vector<uint8_t>(1000, 255)))[0] == 255000);
  CHECK(b.values<int64_t>(reduce(BP_OP_SUM, BP_INT16, BP_INT64, std::vector<int16_t>{-32768, -32768}))[0] == -65536);
  CHECK(b.values<int8_t>(reduce(BP_OP_MAX, BP_INT8, BP_INT8, std::vector<int8_t>{-128, -5, 127}))[0] == 127);
  CHECK(b.values<int8_t>(reduce(BP_OP_MIN, BP_INT8, BP_INT8, std::vector<int8_t>{-127, -128, 0}))[0] == -128);
  CHECK(b.values<uint8_t>(reduce(BP_OP_MIN, BP_UINT8, BP_UINT8, std::vector<uint8_t>{255, 0, 7}))[0] == 0);
  CHECK(b.values<uint8_t>(reduce(BP_OP_MAX, BP_UINT8, BP_UINT8, std::vector<uint8_t>{255, 0, 7}))[0] == 255);
  CHECK(b.values<int64_t>(reduce(BP_OP_ARGMIN, BP_INT16, BP_INT64, std::vector<int16_t>{5, -32768, -32768}))[0] == 1);
  const bp_plugin_tensor in = dense_view(b.buffer(std::vector<uint8_t>{200, 200, 200}), BP_UINT8, {3});
  const bp_plugin_tensor out = b.empty(BP_INT64, {3});
  b.exec(BP_OP_CUMSUM, {in}, out);
  CHECK(b.values<int64_t>(out) == std::vector<int64_t>{200, 400, 600});
}

TEST_CASE("matmul of halves accumulates in float32 and rounds once, of small integers wraps", "[small_dtypes]") {
  Buffers b(ocl(), 0);
  for (int32_t dtype : kHalves) {
    INFO(dtype_name(dtype));
    // Row [1, e, e] times ones, e half of the spacing at 1: a half
    // accumulator rounds 1 + e back to 1 twice; float32 gives 1 + 2e.
    const float e = dtype == BP_FLOAT16 ? 0x1p-11f : 0x1p-8f;
    const uint16_t one = half_from_f32(dtype, 1), he = half_from_f32(dtype, e);
    const bp_plugin_tensor a = dense_view(b.buffer(std::vector<uint16_t>{one, he, he, he, he, one}), dtype, {2, 3});
    const bp_plugin_tensor ones = dense_view(b.buffer(std::vector<uint16_t>(6, one)), dtype, {3, 2});
    const bp_plugin_tensor out = b.empty(static_cast<bp_dtype>(dtype), {2, 2});
    b.exec(BP_OP_MATMUL, {a, ones}, out);
    const uint16_t want = half_from_f32(dtype, 1 + 2 * e);
    CHECK(b.values<uint16_t>(out) == std::vector<uint16_t>{want, want, want, want});
    // Random values, b transposed: float32 sums, rounded once.
    std::mt19937_64 rng(3);
    const int64_t M = 5, K = 37, N = 4;
    std::vector<uint16_t> av, bv;
    for (int64_t i = 0; i < M * K; ++i) av.push_back(half_from_f32(dtype, static_cast<float>(int(rng() % 17) - 8) / 4));
    for (int64_t i = 0; i < K * N; ++i) bv.push_back(half_from_f32(dtype, static_cast<float>(int(rng() % 13) - 6) / 8));
    bp_plugin_tensor at = dense_view(b.buffer(av), dtype, {M, K});
    bp_plugin_tensor bt = dense_view(b.buffer(bv), dtype, {K, N});
    bt.strides[0] = 1;  // the buffer holds b^T, [N, K]
    bt.strides[1] = K;
    const bp_plugin_tensor o = b.empty(static_cast<bp_dtype>(dtype), {M, N});
    b.exec(BP_OP_MATMUL, {at, bt}, o);
    const std::vector<uint16_t> got = b.values<uint16_t>(o);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        float s = 0;  // exact: few bits, small K
        for (int64_t k = 0; k < K; ++k)
          s += f32_from_half(dtype, av[size_t(i * K + k)]) * f32_from_half(dtype, bv[size_t(j * K + k)]);
        CHECK(got[size_t(i * N + j)] == half_from_f32(dtype, s));
      }
    // K = 0: zeros.
    const bp_plugin_tensor empty_a = b.empty(static_cast<bp_dtype>(dtype), {2, 0});
    const bp_plugin_tensor empty_b = b.empty(static_cast<bp_dtype>(dtype), {0, 3});
    const bp_plugin_tensor zeros = dense_view(b.buffer(std::vector<uint16_t>(6, 0x5555)), dtype, {2, 3});
    b.exec(BP_OP_MATMUL, {empty_a, empty_b}, zeros);
    CHECK(b.values<uint16_t>(zeros) == std::vector<uint16_t>(6, 0));
  }
  const bp_plugin_tensor a = dense_view(b.buffer(std::vector<int8_t>{100, 100, -128, 1}), BP_INT8, {2, 2});
  const bp_plugin_tensor c = dense_view(b.buffer(std::vector<int8_t>{2, 1}), BP_INT8, {2, 1});
  const bp_plugin_tensor out = b.empty(BP_INT8, {2, 1});
  b.exec(BP_OP_MATMUL, {a, c}, out);
  CHECK(b.values<int8_t>(out) == std::vector<int8_t>{44, 1});
}

TEST_CASE("random halves are the float32 streams rounded, fill and arange convert as from float64", "[small_dtypes]") {
  Buffers b(ocl(), 1);
  const int64_t n = 4096;
  for (int32_t dtype : kHalves) {
    INFO(dtype_name(dtype));
    for (int32_t op : {BP_OP_RANDOM_UNIFORM, BP_OP_RANDOM_NORMAL}) {
      INFO(op_name(op));
      const bp_op_attrs a = attrs_with(-0.3, 2.7, 1234);
      const bp_plugin_tensor f32 = b.empty(BP_FLOAT32, {n});
      const bp_plugin_tensor half = b.empty(static_cast<bp_dtype>(dtype), {n});
      b.exec(op, {}, f32, a);
      b.exec(op, {}, half, a);
      const std::vector<float> want = b.values<float>(f32);
      const std::vector<uint16_t> got = b.values<uint16_t>(half);
      size_t bad = 0;
      for (int64_t i = 0; i < n; ++i) bad += got[size_t(i)] != half_from_f32(dtype, want[size_t(i)]);
      CHECK(bad == 0);
    }
    const bp_plugin_tensor filled = b.empty(static_cast<bp_dtype>(dtype), {3});
    b.exec(BP_OP_FILL, {}, filled, attrs_with(0.1));
    CHECK(b.values<uint16_t>(filled) == std::vector<uint16_t>(3, dtype == BP_FLOAT16 ? 0x2e66 : 0x3dcd));
    const bp_plugin_tensor range = b.empty(static_cast<bp_dtype>(dtype), {50});
    b.exec(BP_OP_ARANGE, {}, range, attrs_with(1000, 0.1));
    const std::vector<uint16_t> got = b.values<uint16_t>(range);
    for (int i = 0; i < 50; ++i) CHECK(got[size_t(i)] == half_from_f64(dtype, 1000 + i * 0.1));
  }
  CHECK(bp_f16_from_f64(0.1) == 0x2e66);  // the constants above are half.h's
  CHECK(bp_bf16_from_f64(0.1) == 0x3dcd);
  const bp_plugin_tensor range = b.empty(BP_INT8, {4});
  b.exec(BP_OP_ARANGE, {}, range, attrs_with(120, 5.5));
  CHECK(b.values<int8_t>(range) == std::vector<int8_t>{120, 125, 127, 127});
  const bp_plugin_tensor filled = b.empty(BP_UINT8, {2});
  b.exec(BP_OP_FILL, {}, filled, attrs_with(-3));
  CHECK(b.values<uint8_t>(filled) == std::vector<uint8_t>{0, 0});
}

TEST_CASE("gather, scatter and where move half bits untouched, scatter_add adds bytes and halves in place", "[small_dtypes]") {
  Buffers b(ocl(), 0);
  // A signalling NaN's payload survives data movement.
  const std::vector<uint16_t> data = {0x7c01, 0x8001, 0x3c00, 0xfbff};
  const bp_plugin_tensor d = dense_view(b.buffer(data), BP_FLOAT16, {4});
  const bp_plugin_tensor index = dense_view(b.buffer(std::vector<int64_t>{3, 0, 1}), BP_INT64, {3, 1});
  const bp_plugin_tensor gathered = b.empty(BP_FLOAT16, {3});
  b.exec(BP_OP_GATHER_ND, {d, index}, gathered);
  CHECK(b.values<uint16_t>(gathered) == std::vector<uint16_t>{0xfbff, 0x7c01, 0x8001});
  const bp_plugin_tensor cond = dense_view(b.buffer(std::vector<uint8_t>{1, 0, 1, 0}), BP_BOOL, {4});
  const bp_plugin_tensor other = dense_view(b.buffer(std::vector<uint16_t>{1, 2, 3, 4}), BP_BFLOAT16, {4});
  const bp_plugin_tensor mine = dense_view(b.buffer(data), BP_BFLOAT16, {4});
  const bp_plugin_tensor chosen = b.empty(BP_BFLOAT16, {4});
  b.exec(BP_OP_WHERE, {cond, mine, other}, chosen);
  CHECK(b.values<uint16_t>(chosen) == std::vector<uint16_t>{0x7c01, 2, 0x3c00, 4});

  // Neighbouring bytes of one 32-bit word, an element named twice.
  const bp_plugin_tensor rows = dense_view(b.buffer(std::vector<int64_t>{0, 1, 0, 3, 4, 4, 2}), BP_INT64, {7, 1});
  const bp_plugin_tensor bytes = dense_view(b.buffer(std::vector<int8_t>{0, 0, 0, 0, 0}), BP_INT8, {5});
  b.exec(BP_OP_SCATTER_ADD_ND, {rows, dense_view(b.buffer(std::vector<int8_t>{100, 1, 100, 7, -128, -1, -3}), BP_INT8, {7})},
         bytes);
  CHECK(b.values<int8_t>(bytes) == std::vector<int8_t>{-56, 1, -3, 7, 127});
  const bp_plugin_tensor shorts = dense_view(b.buffer(std::vector<int16_t>{1, 2, 3, 4, 5}), BP_INT16, {5});
  b.exec(BP_OP_SCATTER_ADD_ND,
         {rows, dense_view(b.buffer(std::vector<int16_t>{32767, 10, 1, 20, 30, 40, 50}), BP_INT16, {7})}, shorts);
  CHECK(b.values<int16_t>(shorts) == std::vector<int16_t>{-32767, 12, 53, 24, 75});
  for (int32_t dtype : kHalves) {
    INFO(dtype_name(dtype));
    std::vector<uint16_t> start(5), add(7);
    for (int i = 0; i < 5; ++i) start[size_t(i)] = half_from_f32(dtype, float(i));
    const float adds[] = {0.5f, 0.25f, 0.25f, -3, 8, 8, -2};
    for (int i = 0; i < 7; ++i) add[size_t(i)] = half_from_f32(dtype, adds[i]);
    const bp_plugin_tensor out = dense_view(b.buffer(start), dtype, {5});
    b.exec(BP_OP_SCATTER_ADD_ND, {rows, dense_view(b.buffer(add), dtype, {7})}, out);
    const std::vector<uint16_t> got = b.values<uint16_t>(out);
    const float want[] = {0.75f, 1.25f, 0.0f, 0.0f, 20.0f};
    for (int i = 0; i < 5; ++i) CHECK(got[size_t(i)] == half_from_f32(dtype, want[i]));
  }
}

TEST_CASE("supports declares the new dtypes per device, and without float64 none that needs it", "[small_dtypes]") {
  for (int32_t dtype : {BP_FLOAT16, BP_BFLOAT16, BP_INT8, BP_UINT8, BP_INT16}) {
    INFO(dtype_name(dtype));
    CHECK(supported(ocl(), BP_OP_MATMUL, dtype, dtype));
    CHECK(supported(ocl(), BP_OP_SCATTER_ADD_ND, dtype, dtype));
    CHECK(supported(ocl(), BP_OP_ARANGE, dtype, dtype));
    CHECK(supported(ocl(), BP_OP_COPY, BP_FLOAT64, dtype));
    CHECK(supported(ocl(), BP_OP_SUM, dtype, is_float(dtype) ? dtype : BP_INT64));
  }
  PluginHandle p("opencl", {{"fp64", "off"}});
  CHECK_FALSE(supported(p, BP_OP_COPY, BP_FLOAT64, BP_FLOAT16));
  CHECK_FALSE(supported(p, BP_OP_COPY, BP_INT8, BP_FLOAT64));
  CHECK_FALSE(supported(p, BP_OP_ARANGE, BP_BFLOAT16, BP_BFLOAT16));
  CHECK(supported(p, BP_OP_COPY, BP_INT64, BP_FLOAT16));
  CHECK(supported(p, BP_OP_MATMUL, BP_FLOAT16, BP_FLOAT16));
  // Without float64 an int64 still rounds once into a half.
  Buffers b(p, 0);
  const int64_t x = (1 << 24) + (1 << 16) + 1;
  CHECK(copy_to<uint16_t>(b, BP_INT64, BP_BFLOAT16, std::vector<int64_t>{x}) == std::vector<uint16_t>{0x4b81});
  const bp_plugin_tensor half = b.empty(BP_FLOAT16, {8});
  b.exec(BP_OP_RANDOM_UNIFORM, {}, half, attrs_with(0, 1, 9));
  const bp_plugin_tensor f32 = b.empty(BP_FLOAT32, {8});
  b.exec(BP_OP_RANDOM_UNIFORM, {}, f32, attrs_with(0, 1, 9));
  const std::vector<float> want = b.values<float>(f32);
  const std::vector<uint16_t> got = b.values<uint16_t>(half);
  for (size_t i = 0; i < 8; ++i) CHECK(got[i] == bp_f16_from_f32(want[i]));
}
