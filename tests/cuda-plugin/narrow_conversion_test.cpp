// COPY to, from and between the 8- and 16-bit dtypes, and the creation
// operators in them, on the CUDA plugin, bit for bit against
// backplane/half.h and plugin.h's rules: rounding once to nearest even
// (from float64 and int64 too: the values where a float32 rounded on the
// way would give another answer are among the edges), subnormals kept,
// overflow to infinity, NaN quiet, exact widening, saturating float to
// integer, wrapping between integers.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>

#include "backplane/kernels/creation.hpp"
#include "narrow_test.hpp"

using namespace cuda_test;

namespace {

constexpr bp_dtype kHalves[] = {BP_FLOAT16, BP_BFLOAT16};

struct IntRange {
  bp_dtype dtype;
  int64_t low, high;
};
constexpr IntRange kSmallInts[] = {{BP_INT8, -128, 127}, {BP_UINT8, 0, 255}, {BP_INT16, -32768, 32767}};

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Float32 values around every rounding boundary of both halves: each
// pattern of the high bits with the low 13 (float16's dropped bits) or 16
// (bfloat16's) just below, at and just above half a unit, and at the ends.
std::vector<float> float32_edges() {
  std::vector<float> v;
  for (uint32_t high = 0; high < (1u << 19); ++high)
    for (uint32_t low : {0x0u, 0x1u, 0xfffu, 0x1000u, 0x1001u, 0x1fffu}) v.push_back(from_bits(high << 13 | low));
  for (uint32_t high = 0; high < (1u << 16); ++high)
    for (uint32_t low : {0x7fffu, 0x8000u, 0x8001u, 0xffffu}) v.push_back(from_bits(high << 16 | low));
  return v;
}

// Float64 values whose float32 rounding is a tie in a half, or would cross
// one, the ends of both ranges, and random ones of every magnitude.
std::vector<double> float64_edges() {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  auto p2 = [](int e) { return std::ldexp(1.0, e); };
  std::vector<double> v = {0.0, -0.0, 1.0, -1.0, 0.1, -0.1, 65504.0, 65519.999, 65520.0, -65520.0, 65536.0};
  for (double x : {1e300, -1e300, inf, -inf, nan, -nan, 3.3895313892515355e38, 3.3961775292304019e38,
                   3.4028234663852886e38, 3.5e38})
    v.push_back(x);
  // Subnormals of float16 (2^-24), bfloat16 (2^-133), float32 (2^-149) and float64.
  for (double x :
       {p2(-24), p2(-25), p2(-25) + p2(-70), 3 * p2(-26), p2(-149), p2(-150), p2(-133), p2(-134) + p2(-160), p2(-1074)})
    v.push_back(x);
  // Just off a tie of float16 (2^-11) and bfloat16 (2^-8) at 1: through a
  // float32, which would round them onto the tie, they would round to even.
  for (double x : {1 + p2(-11) + p2(-40), 1 + p2(-11) - p2(-40), 1 + p2(-8) + p2(-40), 1 + p2(-8) - p2(-40),
                   -(1 + p2(-11) + p2(-40))})
    v.push_back(x);
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> exponent(-160, 140);
  std::uniform_real_distribution<double> mantissa(-2.0, 2.0);
  for (int i = 0; i < 100000; ++i) v.push_back(std::ldexp(mantissa(rng), exponent(rng)));
  return v;
}

std::vector<int64_t> int64_edges() {
  const int64_t big = int64_t(1) << 40, min = std::numeric_limits<int64_t>::min();
  std::vector<int64_t> v = {0, 1, -1, 2049, 2051, -2049, 65504, 65519, 65520, 65535, 1 << 24, (1 << 24) + 1};
  for (int64_t x : {big + (int64_t(1) << 32) + 1, big + (int64_t(1) << 32) - 1, (int64_t(1) << 33) + (1 << 25) + 1,
                    std::numeric_limits<int64_t>::max(), min, min + 1, -(int64_t(1) << 62) - 1})
    v.push_back(x);
  std::mt19937_64 rng(6);
  for (int i = 0; i < 20000; ++i) v.push_back(static_cast<int64_t>(rng()) >> (rng() % 63));
  return v;
}

}  // namespace

TEST_CASE("cuda: copy to float16 and bfloat16 rounds once, as half.h does, from every dtype", "[cuda][narrow]") {
  Session s(kPlugin);
  if (!has_device(s.plugin())) return;
  const std::vector<float> f32 = float32_edges();
  const std::vector<double> f64 = float64_edges();
  const std::vector<int64_t> i64 = int64_edges();
  std::vector<int32_t> i32;
  for (int64_t x : i64) i32.push_back(static_cast<int32_t>(x));
  for (bp_dtype half : kHalves) {
    INFO("to " << dtype_name(half));
    std::vector<uint16_t> want;
    for (float x : f32) want.push_back(round_f32(half, x));
    check_half_bits(half, run<uint16_t>(s, BP_OP_COPY, BP_FLOAT32, half, {f32}), want, false);
    want.clear();
    for (double x : f64) want.push_back(round_f64(half, x));
    check_half_bits(half, run<uint16_t>(s, BP_OP_COPY, BP_FLOAT64, half, {f64}), want, false);
    want.clear();
    for (int64_t x : i64) want.push_back(round_i64(half, x));
    check_half_bits(half, run<uint16_t>(s, BP_OP_COPY, BP_INT64, half, {i64}), want);
    want.clear();
    for (int32_t x : i32) want.push_back(round_i64(half, x));
    check_half_bits(half, run<uint16_t>(s, BP_OP_COPY, BP_INT32, half, {i32}), want);
    for (const IntRange &r : kSmallInts) {
      INFO("from " << dtype_name(r.dtype));
      want.clear();
      std::vector<int64_t> values;
      for (int64_t x = r.low; x <= r.high; ++x) {
        values.push_back(x);
        want.push_back(round_i64(half, x));
      }
      std::vector<uint16_t> got;
      if (r.dtype == BP_INT8) {
        got = run<uint16_t>(s, BP_OP_COPY, r.dtype, half, {std::vector<int8_t>(values.begin(), values.end())});
      } else if (r.dtype == BP_UINT8) {
        got = run<uint16_t>(s, BP_OP_COPY, r.dtype, half, {std::vector<uint8_t>(values.begin(), values.end())});
      } else {
        got = run<uint16_t>(s, BP_OP_COPY, r.dtype, half, {std::vector<int16_t>(values.begin(), values.end())});
      }
      check_half_bits(half, got, want);
    }
    CHECK(run<uint16_t>(s, BP_OP_COPY, BP_BOOL, half, {std::vector<uint8_t>{0, 1}}) ==
          std::vector<uint16_t>{0, round_f32(half, 1.0f)});
    // From the other half: widened exactly, rounded once; every pattern, NaNs bit for bit.
    const bp_dtype other = half == BP_FLOAT16 ? BP_BFLOAT16 : BP_FLOAT16;
    const std::vector<uint16_t> bits = all_bit_patterns();
    want.clear();
    for (uint16_t b : bits) want.push_back(round_f32(half, widen(other, b)));
    check_half_bits(half, run<uint16_t>(s, BP_OP_COPY, other, half, {bits}), want, false);
  }
}

TEST_CASE("cuda: copy from float16 and bfloat16 widens exactly and saturates into integers", "[cuda][narrow]") {
  Session s(kPlugin);
  if (!has_device(s.plugin())) return;
  const std::vector<uint16_t> bits = all_bit_patterns();
  for (bp_dtype half : kHalves) {
    INFO("from " << dtype_name(half));
    const std::vector<float> f32 = run<float>(s, BP_OP_COPY, half, BP_FLOAT32, {bits});
    const std::vector<double> f64 = run<double>(s, BP_OP_COPY, half, BP_FLOAT64, {bits});
    for (size_t i = 0; i < bits.size(); ++i) {
      const float want = widen(half, bits[i]);
      if (bp_f32_bits(f32[i]) != bp_f32_bits(want)) {
        FAIL("float32 of 0x" << std::hex << bits[i] << ": 0x" << bp_f32_bits(f32[i]) << ", want 0x"
                             << bp_f32_bits(want));
      }
      if (std::isnan(want)) {
        CHECK(std::isnan(f64[i]));
      } else if (f64[i] != static_cast<double>(want) || std::signbit(f64[i]) != std::signbit(want)) {
        FAIL("float64 of 0x" << std::hex << bits[i] << std::dec << ": " << f64[i] << ", want " << want);
      }
    }
    const std::vector<uint8_t> truth = run<uint8_t>(s, BP_OP_COPY, half, BP_BOOL, {bits});
    const std::vector<int32_t> i32 = run<int32_t>(s, BP_OP_COPY, half, BP_INT32, {bits});
    const std::vector<int64_t> i64 = run<int64_t>(s, BP_OP_COPY, half, BP_INT64, {bits});
    const std::vector<int8_t> i8 = run<int8_t>(s, BP_OP_COPY, half, BP_INT8, {bits});
    const std::vector<uint8_t> u8 = run<uint8_t>(s, BP_OP_COPY, half, BP_UINT8, {bits});
    const std::vector<int16_t> i16 = run<int16_t>(s, BP_OP_COPY, half, BP_INT16, {bits});
    size_t wrong = 0;
    for (size_t i = 0; i < bits.size() && wrong < 10; ++i) {
      const double x = widen(half, bits[i]);
      const bool ok = truth[i] == (x != 0 ? 1 : 0) && i32[i] == saturate(x, INT32_MIN, INT32_MAX) &&
                      i64[i] == saturate(x, INT64_MIN, INT64_MAX) && i8[i] == saturate(x, -128, 127) &&
                      u8[i] == saturate(x, 0, 255) && i16[i] == saturate(x, -32768, 32767);
      if (!ok) {
        ++wrong;
        FAIL_CHECK("0x" << std::hex << bits[i] << std::dec << " (" << x << "): bool " << int(truth[i]) << ", int32 "
                        << i32[i] << ", int64 " << i64[i] << ", int8 " << int(i8[i]) << ", uint8 " << int(u8[i])
                        << ", int16 " << i16[i]);
      }
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("cuda: copy into and out of int8, uint8 and int16 wraps between integers and saturates floats",
          "[cuda][narrow]") {
  Session s(kPlugin);
  if (!has_device(s.plugin())) return;
  const std::vector<int64_t> i64 = {0,   1,     -1,    127,    128,   -129,       255,
                                    256, 32767, 32768, -32769, 65535, 1000000007, std::numeric_limits<int64_t>::min()};
  CHECK(run<int8_t>(s, BP_OP_COPY, BP_INT64, BP_INT8, {i64}) ==
        std::vector<int8_t>{0, 1, -1, 127, -128, 127, -1, 0, -1, 0, -1, -1, 7, 0});
  CHECK(run<uint8_t>(s, BP_OP_COPY, BP_INT64, BP_UINT8, {i64}) ==
        std::vector<uint8_t>{0, 1, 255, 127, 128, 127, 255, 0, 255, 0, 255, 255, 7, 0});
  CHECK(run<int16_t>(s, BP_OP_COPY, BP_INT64, BP_INT16, {i64}) ==
        std::vector<int16_t>{0, 1, -1, 127, 128, -129, 255, 256, 32767, -32768, 32767, -1, -13817, 0});
  CHECK(run<int8_t>(s, BP_OP_COPY, BP_UINT8, BP_INT8, {std::vector<uint8_t>{0, 127, 128, 200, 255}}) ==
        std::vector<int8_t>{0, 127, -128, -56, -1});
  CHECK(run<uint8_t>(s, BP_OP_COPY, BP_INT8, BP_UINT8, {std::vector<int8_t>{0, 127, -128, -1}}) ==
        std::vector<uint8_t>{0, 127, 128, 255});
  CHECK(run<int8_t>(s, BP_OP_COPY, BP_INT16, BP_INT8, {std::vector<int16_t>{300, -300, -32768, 32767}}) ==
        std::vector<int8_t>{44, -44, 0, -1});
  CHECK(run<int64_t>(s, BP_OP_COPY, BP_INT8, BP_INT64, {std::vector<int8_t>{-128, -1, 127}}) ==
        std::vector<int64_t>{-128, -1, 127});
  CHECK(run<int32_t>(s, BP_OP_COPY, BP_UINT8, BP_INT32, {std::vector<uint8_t>{0, 255}}) ==
        std::vector<int32_t>{0, 255});
  CHECK(run<uint8_t>(s, BP_OP_COPY, BP_INT16, BP_BOOL, {std::vector<int16_t>{0, 256, -1}}) ==
        std::vector<uint8_t>{0, 1, 1});
  CHECK(run<float>(s, BP_OP_COPY, BP_INT16, BP_FLOAT32, {std::vector<int16_t>{-32768, 7}}) ==
        std::vector<float>{-32768.0f, 7.0f});
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> floats = {300.7f, -300.0f, nan, -0.9f, 127.9f, -128.9f, 255.5f, inf, -inf, 40000.0f};
  CHECK(run<int8_t>(s, BP_OP_COPY, BP_FLOAT32, BP_INT8, {floats}) ==
        std::vector<int8_t>{127, -128, 0, 0, 127, -128, 127, 127, -128, 127});
  CHECK(run<uint8_t>(s, BP_OP_COPY, BP_FLOAT32, BP_UINT8, {floats}) ==
        std::vector<uint8_t>{255, 0, 0, 0, 127, 0, 255, 255, 0, 255});
  CHECK(run<int16_t>(s, BP_OP_COPY, BP_FLOAT32, BP_INT16, {floats}) ==
        std::vector<int16_t>{300, -300, 0, 0, 127, -128, 255, 32767, -32768, 32767});
  CHECK(run<uint8_t>(s, BP_OP_COPY, BP_FLOAT64, BP_UINT8, {std::vector<double>{-1.0, 255.9, 1e10, 0.5}}) ==
        std::vector<uint8_t>{0, 255, 255, 0});
}

TEST_CASE("cuda: fill, arange and random in the new dtypes are the float64 or float32 value rounded once",
          "[cuda][narrow][creation]") {
  Session s(kPlugin);
  if (!has_device(s.plugin())) return;
  const int64_t n = 1000;
  for (bp_dtype half : kHalves) {
    INFO(dtype_name(half));
    bp_plugin_tensor out = s.empty(half, {n});
    s.exec(BP_OP_FILL, {}, out, attrs_with(0.1));
    CHECK(s.values<uint16_t>(out) == std::vector<uint16_t>(n, round_f64(half, 0.1)));
    s.exec(BP_OP_ARANGE, {}, out, attrs_with(0.1, 0.3));
    std::vector<uint16_t> want;
    for (int64_t i = 0; i < n; ++i) want.push_back(round_f64(half, 0.1 + static_cast<double>(i) * 0.3));
    check_half_bits(half, s.values<uint16_t>(out), want, false);
    s.exec(BP_OP_RANDOM_UNIFORM, {}, out, attrs_with(-2.0, 3.0, 77));
    want.clear();
    for (int64_t i = 0; i < n; ++i)
      want.push_back(round_f32(half, bp_kernels::random_uniform_value<float>(-2.0, 3.0, 77, i)));
    check_half_bits(half, s.values<uint16_t>(out), want, false);
    // Box-Muller uses logf and cosf, whose last bits may differ: one unit of the half at most.
    s.exec(BP_OP_RANDOM_NORMAL, {}, out, attrs_with(1.0, 2.0, 78));
    const std::vector<uint16_t> got = s.values<uint16_t>(out);
    for (int64_t i = 0; i < n; ++i) {
      const float exact = bp_kernels::random_normal_value<float>(1.0, 2.0, 78, i);
      const int low = half == BP_FLOAT16 ? -24 : -133;  // the smallest subnormal's exponent
      const float spacing = std::ldexp(1.0f, std::max(std::ilogb(exact) - (half == BP_FLOAT16 ? 10 : 7), low));
      INFO("element " << i);
      CHECK(std::fabs(widen(half, got[static_cast<size_t>(i)]) - exact) <= spacing);
    }
  }
  bp_plugin_tensor i8 = s.empty(BP_INT8, {6});
  s.exec(BP_OP_FILL, {}, i8, attrs_with(-3));
  CHECK(s.values<int8_t>(i8) == std::vector<int8_t>(6, -3));
  s.exec(BP_OP_ARANGE, {}, i8, attrs_with(-5, 50));
  CHECK(s.values<int8_t>(i8) == std::vector<int8_t>{-5, 45, 95, 127, 127, 127});
  bp_plugin_tensor u8 = s.empty(BP_UINT8, {4});
  s.exec(BP_OP_ARANGE, {}, u8, attrs_with(-1, 100));
  CHECK(s.values<uint8_t>(u8) == std::vector<uint8_t>{0, 99, 199, 255});
  bp_plugin_tensor i16 = s.empty(BP_INT16, {3});
  s.exec(BP_OP_ARANGE, {}, i16, attrs_with(-1000, 37));
  CHECK(s.values<int16_t>(i16) == std::vector<int16_t>{-1000, -963, -926});
}
