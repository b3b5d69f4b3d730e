// COPY between the 8- and 16-bit dtypes and every other dtype, and the
// creation operators FILL, ARANGE and RANDOM_* for them, as plugin.h's
// "8- and 16-bit dtypes (since 1.4)" defines them: one rounding to nearest
// even into a half (from float64 and int64 too), overflow to infinity,
// subnormals and -0 kept, exact widening, float-to-integer saturation,
// integer narrowing modulo 2^bits.
#include "backplane/half.h"
#include "small_dtypes.hpp"

using namespace ref_test;

namespace {

// plugin.h's uniform stream for float32, written out again from its text:
// r(j) = splitmix64(seed + 0x9E3779B97F4A7C15 * (j + 1)), u(j) = (r >> 40) * 2^-24.
float uniform_f32(uint64_t seed, uint64_t j, float low, float high) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * (j + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  const float u = static_cast<float>(z >> 40) * (1.0f / 16777216.0f);
  return low + (high - low) * u;
}

}  // namespace

TEST_CASE("float32 to bfloat16 rounds to nearest even, keeps subnormals and -0, overflows to inf",
          "[small-dtypes][copy]") {
  Reference ref;
  const std::vector<uint32_t> in = {
      0x3f808000,  // 1 + 2^-8: halfway between 1 and 1 + 2^-7, to the even 1
      0x3f818000,  // 1 + 3 * 2^-8: halfway, to the even 1 + 2^-6
      0x3f808010,  // just above halfway: up
      0x00000001,  // the smallest float32 subnormal: below half of bfloat16's, to +0
      0x00010000,  // a bfloat16 subnormal, kept
      0x00018000,  // halfway between subnormals 1 and 2: to 2
      0x80000000,  // -0
      0x7f7fffff,  // the largest float32 rounds past bfloat16's largest: inf
      0x7fc00000,  // quiet NaN
      0xff800000,  // -inf
  };
  std::vector<float> values;
  for (uint32_t u : in) values.push_back(f32(u));
  check_bits(BP_BFLOAT16, copy_to<uint16_t>(ref, BP_FLOAT32, BP_BFLOAT16, values),
             {0x3f80, 0x3f82, 0x3f81, 0x0000, 0x0001, 0x0002, 0x8000, 0x7f80, 0x7fc0, 0xff80});
}

TEST_CASE("float32 to float16 rounds to nearest even, keeps subnormals and -0, overflows to inf",
          "[small-dtypes][copy]") {
  Reference ref;
  const std::vector<float> values = {
      65504.0f,                // the largest float16
      65520.0f - 0.00390625f,  // just below 65504 + half its spacing: 65504
      65520.0f,                // halfway to the next power of two: to the even one, inf
      -65520.0f,
      std::ldexp(1.0f, -24),   // the smallest float16 subnormal
      std::ldexp(1.0f, -25),   // half of it: to the even +0
      std::ldexp(1.5f, -25),   // above half: the smallest subnormal
      std::ldexp(3.0f, -25),   // halfway between subnormals 1 and 2: to 2
      1.0f + std::ldexp(1.0f, -11),  // halfway: to the even 1
      1.0f + std::ldexp(3.0f, -11),  // halfway: to the even 1 + 2^-9
      -0.0f,
      -std::ldexp(1.0f, -26),  // a negative value rounding to zero keeps its sign
      std::numeric_limits<float>::infinity(),
      f32(0x7fc00000),
  };
  check_bits(BP_FLOAT16, copy_to<uint16_t>(ref, BP_FLOAT32, BP_FLOAT16, values),
             {0x7bff, 0x7bff, 0x7c00, 0xfc00, 0x0001, 0x0000, 0x0001, 0x0002, 0x3c00, 0x3c02, 0x8000, 0x8000,
              0x7c00, 0x7e00});
}

TEST_CASE("float64 to the halves rounds once, never through a rounded float32", "[small-dtypes][copy]") {
  Reference ref;
  // Each first value lies just above a float16 (bfloat16) halfway point by
  // 2^-40, which a float32 on the way would drop, leaving an exact tie.
  const std::vector<double> to_f16 = {1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40),
                                      65520.0 - 1e-9,  // through float32: 65520, then inf
                                      1e300, 1e-300, -1e-300, 0.1};
  check_bits(BP_FLOAT16, copy_to<uint16_t>(ref, BP_FLOAT64, BP_FLOAT16, to_f16),
             {0x3c01, 0x7bff, 0x7c00, 0x0000, 0x8000, 0x2e66});
  const std::vector<double> to_bf16 = {1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40), 1e300, -1e-300, 0.1};
  check_bits(BP_BFLOAT16, copy_to<uint16_t>(ref, BP_FLOAT64, BP_BFLOAT16, to_bf16), {0x3f81, 0x7f80, 0x8000, 0x3dcd});
}

TEST_CASE("integers to the halves round once from the integer's value", "[small-dtypes][copy]") {
  Reference ref;
  // 2^31 + 2^23 + 1: bfloat16 keeps 8 significant bits, so this is just
  // above halfway and rounds up to 2^31 + 2^24. Through float32 it would
  // first lose the 1 and then tie down to 2^31 (0x4f00).
  const std::vector<int64_t> wide = {(int64_t(1) << 31) + (int64_t(1) << 23) + 1, INT64_MAX, -70000, 65519, 65520};
  check_bits(BP_BFLOAT16, copy_to<uint16_t>(ref, BP_INT64, BP_BFLOAT16, wide), {0x4f01, 0x5f00, 0xc789, 0x4780, 0x4780});
  check_bits(BP_FLOAT16, copy_to<uint16_t>(ref, BP_INT64, BP_FLOAT16, wide), {0x7c00, 0x7c00, 0xfc00, 0x7bff, 0x7c00});
  // float16 has 11 significant bits: 2049 and 2051 are ties, to 2048 and 2052.
  check_bits(BP_FLOAT16, copy_to<uint16_t>(ref, BP_INT16, BP_FLOAT16, std::vector<int16_t>{2049, 2050, 2051, -32768}),
             {0x6800, 0x6801, 0x6802, 0xf800});
  check_bits(BP_BFLOAT16, copy_to<uint16_t>(ref, BP_INT16, BP_BFLOAT16, std::vector<int16_t>{257, 255}), {0x4380, 0x437f});
  check_bits(BP_BFLOAT16, copy_to<uint16_t>(ref, BP_UINT8, BP_BFLOAT16, std::vector<uint8_t>{255, 0}), {0x437f, 0x0000});
  check_bits(BP_BFLOAT16, copy_to<uint16_t>(ref, BP_INT8, BP_BFLOAT16, std::vector<int8_t>{-128, 1}), {0xc300, 0x3f80});
  check_bits(BP_FLOAT16, copy_to<uint16_t>(ref, BP_INT32, BP_FLOAT16, std::vector<int32_t>{-3, 100000}), {0xc200, 0x7c00});
  check_bits(BP_FLOAT16, copy_to<uint16_t>(ref, BP_BOOL, BP_FLOAT16, std::vector<uint8_t>{1, 0}), {0x3c00, 0x0000});
}

TEST_CASE("the halves widen exactly and convert to each other with one rounding", "[small-dtypes][copy]") {
  Reference ref;
  // 2^-24 (a subnormal), 65504, -inf, NaN, -0, -1.5, 300.
  const Bits f16 = {0x0001, 0x7bff, 0xfc00, 0x7e00, 0x8000, 0xbe00, 0x5cb0};
  const std::vector<float> as_f32 = copy_to<float>(ref, BP_FLOAT16, BP_FLOAT32, f16);
  check_values(as_f32, {std::ldexp(1.0f, -24), 65504.0f, -std::numeric_limits<float>::infinity(),
                        std::numeric_limits<float>::quiet_NaN(), -0.0f, -1.5f, 300.0f});
  CHECK(std::signbit(as_f32[4]));
  check_values(copy_to<double>(ref, BP_FLOAT16, BP_FLOAT64, f16),
               {std::ldexp(1.0, -24), 65504.0, -kInf, kNaN, -0.0, -1.5, 300.0});
  // 65504 needs 11 significant bits: in bfloat16 it rounds to 2^16.
  check_bits(BP_BFLOAT16, copy_to<uint16_t>(ref, BP_FLOAT16, BP_BFLOAT16, f16),
             {0x3380, 0x4780, 0xff80, 0x7fc0, 0x8000, 0xbfc0, 0x4396});
  // 1 + 2^-7 (exact in float16), 2^-30 (below half of float16's smallest
  // subnormal), 2^33 (too large), inf, the smallest negative subnormal.
  check_bits(BP_FLOAT16, copy_to<uint16_t>(ref, BP_BFLOAT16, BP_FLOAT16, Bits{0x3f81, 0x3080, 0x5000, 0x7f80, 0x8001}),
             {0x3c08, 0x0000, 0x7c00, 0x7c00, 0x8000});
  check_values(copy_to<float>(ref, BP_BFLOAT16, BP_FLOAT32, Bits{0x0001, 0x3f81}),
               {std::ldexp(1.0f, -133), 1.0078125f});
  // A copy into its own dtype moves the bits, a signalling NaN's included.
  CHECK(copy_to<uint16_t>(ref, BP_FLOAT16, BP_FLOAT16, Bits{0x7d01, 0x8001}) == Bits{0x7d01, 0x8001});
}

TEST_CASE("floats to 8- and 16-bit integers truncate and saturate, NaN gives 0", "[small-dtypes][copy]") {
  Reference ref;
  const Bits f16 = {0x0001, 0x7bff, 0xfc00, 0x7e00, 0x8000, 0xbe00, 0x5cb0};  // as above
  check_values(copy_to<int8_t>(ref, BP_FLOAT16, BP_INT8, f16), std::vector<int8_t>{0, 127, -128, 0, 0, -1, 127});
  check_values(copy_to<uint8_t>(ref, BP_FLOAT16, BP_UINT8, f16), std::vector<uint8_t>{0, 255, 0, 0, 0, 0, 255});
  check_values(copy_to<int16_t>(ref, BP_FLOAT16, BP_INT16, f16),
               std::vector<int16_t>{0, 32767, -32768, 0, 0, -1, 300});
  check_values(copy_to<int32_t>(ref, BP_FLOAT16, BP_INT32, f16),
               std::vector<int32_t>{0, 65504, INT32_MIN, 0, 0, -1, 300});
  check_values(copy_to<uint8_t>(ref, BP_FLOAT16, BP_BOOL, f16), std::vector<uint8_t>{1, 1, 1, 1, 0, 1, 1});
  // bfloat16 2^33, -2^33, 255.0, 1.0078125 and the same from float64.
  check_values(copy_to<int16_t>(ref, BP_BFLOAT16, BP_INT16, Bits{0x5000, 0xd000, 0x437f, 0x3f81}),
               std::vector<int16_t>{32767, -32768, 255, 1});
  check_values(copy_to<uint8_t>(ref, BP_FLOAT64, BP_UINT8, std::vector<double>{255.9, 256.0, -0.9, -1.0, kNaN}),
               std::vector<uint8_t>{255, 255, 0, 0, 0});
  check_values(copy_to<int8_t>(ref, BP_FLOAT32, BP_INT8, std::vector<float>{-128.9f, -129.0f, 127.9f, 1e30f}),
               std::vector<int8_t>{-128, -128, 127, 127});
}

TEST_CASE("integer narrowing keeps the value modulo 2^bits", "[small-dtypes][copy]") {
  Reference ref;
  const std::vector<int64_t> wide = {300, -129, 65535, -1, 128, INT64_MIN};
  check_values(copy_to<int8_t>(ref, BP_INT64, BP_INT8, wide), std::vector<int8_t>{44, 127, -1, -1, -128, 0});
  check_values(copy_to<uint8_t>(ref, BP_INT64, BP_UINT8, wide), std::vector<uint8_t>{44, 127, 255, 255, 128, 0});
  check_values(copy_to<int16_t>(ref, BP_INT64, BP_INT16, wide), std::vector<int16_t>{300, -129, -1, -1, 128, 0});
  check_values(copy_to<int16_t>(ref, BP_INT32, BP_INT16, std::vector<int32_t>{65535, 32768, -32769}),
               std::vector<int16_t>{-1, -32768, 32767});
  check_values(copy_to<int8_t>(ref, BP_UINT8, BP_INT8, std::vector<uint8_t>{255, 128}), std::vector<int8_t>{-1, -128});
  check_values(copy_to<uint8_t>(ref, BP_INT8, BP_UINT8, std::vector<int8_t>{-1, -128}), std::vector<uint8_t>{255, 128});
  check_values(copy_to<uint8_t>(ref, BP_INT16, BP_UINT8, std::vector<int16_t>{-1, 256, 511}),
               std::vector<uint8_t>{255, 0, 255});
  // Widening keeps the value: sign-extended from the signed types only.
  check_values(copy_to<int64_t>(ref, BP_INT8, BP_INT64, std::vector<int8_t>{-1, -128}), std::vector<int64_t>{-1, -128});
  check_values(copy_to<int16_t>(ref, BP_UINT8, BP_INT16, std::vector<uint8_t>{255}), std::vector<int16_t>{255});
  check_values(copy_to<int32_t>(ref, BP_INT16, BP_INT32, std::vector<int16_t>{-32768}), std::vector<int32_t>{-32768});
  check_values(copy_to<uint8_t>(ref, BP_INT8, BP_BOOL, std::vector<int8_t>{-128, 0, 1}), std::vector<uint8_t>{1, 0, 1});
  check_values(copy_to<int16_t>(ref, BP_BOOL, BP_INT16, std::vector<uint8_t>{1, 0}), std::vector<int16_t>{1, 0});
}

TEST_CASE("FILL and ARANGE convert their float64 values as COPY does", "[small-dtypes][creation]") {
  Reference ref;
  auto fill = [&](bp_dtype dtype, double value) {
    const bp_plugin_tensor out = ref.empty(dtype, {3});
    ref.exec(BP_OP_FILL, {}, out, attrs_with(value));
    return out;
  };
  check_bits(BP_FLOAT16, ref.values<uint16_t>(fill(BP_FLOAT16, 0.1)), {0x2e66, 0x2e66, 0x2e66});
  check_bits(BP_BFLOAT16, ref.values<uint16_t>(fill(BP_BFLOAT16, 0.1)), {0x3dcd, 0x3dcd, 0x3dcd});
  check_bits(BP_FLOAT16, ref.values<uint16_t>(fill(BP_FLOAT16, 65520.0 - 1e-9)), {0x7bff, 0x7bff, 0x7bff});
  check_values(ref.values<int8_t>(fill(BP_INT8, 300)), std::vector<int8_t>{127, 127, 127});
  check_values(ref.values<uint8_t>(fill(BP_UINT8, -5)), std::vector<uint8_t>{0, 0, 0});
  check_values(ref.values<int16_t>(fill(BP_INT16, -2)), std::vector<int16_t>{-2, -2, -2});

  auto arange = [&](bp_dtype dtype, double start, double step, int64_t n) {
    const bp_plugin_tensor out = ref.empty(dtype, {n});
    ref.exec(BP_OP_ARANGE, {}, out, attrs_with(start, step));
    return out;
  };
  // 2049 and 2051 are float16 ties: to 2048 and 2052.
  check_bits(BP_FLOAT16, ref.values<uint16_t>(arange(BP_FLOAT16, 2048, 1, 4)), {0x6800, 0x6800, 0x6801, 0x6802});
  check_bits(BP_BFLOAT16, ref.values<uint16_t>(arange(BP_BFLOAT16, 255, 1, 3)), {0x437f, 0x4380, 0x4380});
  check_values(ref.values<int8_t>(arange(BP_INT8, 126, 1, 3)), std::vector<int8_t>{126, 127, 127});
  check_values(ref.values<uint8_t>(arange(BP_UINT8, 0, 100, 4)), std::vector<uint8_t>{0, 100, 200, 255});
  check_values(ref.values<int16_t>(arange(BP_INT16, -3, 2, 3)), std::vector<int16_t>{-3, -1, 1});
}

TEST_CASE("RANDOM_UNIFORM and RANDOM_NORMAL in the halves are the float32 stream rounded once",
          "[small-dtypes][creation]") {
  Reference ref;
  const int64_t n = 2000;
  const uint64_t seed = 0x1234abcdull;
  auto draw = [&](int32_t op, bp_dtype dtype, double a, double b) {
    const bp_plugin_tensor out = ref.empty(dtype, {n});
    ref.exec(op, {}, out, attrs_with(a, b, seed));
    return out;
  };
  const std::vector<float> uniform32 = ref.values<float>(draw(BP_OP_RANDOM_UNIFORM, BP_FLOAT32, -2, 3));
  const Bits uniform16 = ref.values<uint16_t>(draw(BP_OP_RANDOM_UNIFORM, BP_FLOAT16, -2, 3));
  const Bits uniform_bf16 = ref.values<uint16_t>(draw(BP_OP_RANDOM_UNIFORM, BP_BFLOAT16, -2, 3));
  int64_t mismatches = 0, rounded = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float expected = uniform_f32(seed, uint64_t(i), -2.0f, 3.0f);
    mismatches += bits32(uniform32[size_t(i)]) != bits32(expected);
    mismatches += uniform16[size_t(i)] != bp_f16_from_f32(expected);
    mismatches += uniform_bf16[size_t(i)] != bp_bf16_from_f32(expected);
    // The halves differ from the float32 value (they are rounded) but by at most half their spacing.
    rounded += bp_f32_from_f16(uniform16[size_t(i)]) != expected;
    CHECK(std::fabs(bp_f32_from_bf16(uniform_bf16[size_t(i)]) - expected) <= std::fabs(expected) * 0x1p-8f);
  }
  CHECK(mismatches == 0);
  CHECK(rounded > n / 2);

  const std::vector<float> normal32 = ref.values<float>(draw(BP_OP_RANDOM_NORMAL, BP_FLOAT32, 1, 2));
  const Bits normal16 = ref.values<uint16_t>(draw(BP_OP_RANDOM_NORMAL, BP_FLOAT16, 1, 2));
  const Bits normal_bf16 = ref.values<uint16_t>(draw(BP_OP_RANDOM_NORMAL, BP_BFLOAT16, 1, 2));
  mismatches = 0;
  for (int64_t i = 0; i < n; ++i) {
    mismatches += normal16[size_t(i)] != bp_f16_from_f32(normal32[size_t(i)]);
    mismatches += normal_bf16[size_t(i)] != bp_bf16_from_f32(normal32[size_t(i)]);
  }
  CHECK(mismatches == 0);
}

TEST_CASE("every float16 and bfloat16 bit pattern converts as backplane/half.h defines", "[small-dtypes][copy]") {
  Reference ref;
  Bits all(65536);
  for (size_t i = 0; i < all.size(); ++i) all[i] = uint16_t(i);
  const std::vector<float> f16_as_f32 = copy_to<float>(ref, BP_FLOAT16, BP_FLOAT32, all);
  const std::vector<float> bf16_as_f32 = copy_to<float>(ref, BP_BFLOAT16, BP_FLOAT32, all);
  const Bits f16_as_bf16 = copy_to<uint16_t>(ref, BP_FLOAT16, BP_BFLOAT16, all);
  const Bits bf16_as_f16 = copy_to<uint16_t>(ref, BP_BFLOAT16, BP_FLOAT16, all);
  const std::vector<int16_t> f16_as_i16 = copy_to<int16_t>(ref, BP_FLOAT16, BP_INT16, all);
  const std::vector<uint8_t> bf16_as_u8 = copy_to<uint8_t>(ref, BP_BFLOAT16, BP_UINT8, all);
  int64_t mismatches = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    const float a = bp_f32_from_f16(all[i]), b = bp_f32_from_bf16(all[i]);
    mismatches += bits32(f16_as_f32[i]) != bits32(a);
    mismatches += bits32(bf16_as_f32[i]) != bits32(b);
    mismatches += f16_as_bf16[i] != bp_bf16_from_f32(a);
    mismatches += bf16_as_f16[i] != bp_f16_from_f32(b);
    // Float to integer, written out from plugin.h: NaN 0, else truncate and clamp.
    const double ta = std::isnan(a) ? 0.0 : std::trunc(std::min(std::max(double(a), -32768.0), 32767.0));
    const double tb = std::isnan(b) ? 0.0 : std::trunc(std::min(std::max(double(b), 0.0), 255.0));
    mismatches += f16_as_i16[i] != int16_t(ta);
    mismatches += bf16_as_u8[i] != uint8_t(tb);
  }
  CHECK(mismatches == 0);
  // Spot checks of half.h itself: widening is exact and round trips.
  CHECK(bp_f32_from_f16(0x0001) == std::ldexp(1.0f, -24));
  CHECK(bp_f16_from_f32(bp_f32_from_f16(0x7bff)) == 0x7bff);
  CHECK(bits32(bp_f32_from_bf16(0x3f81)) == 0x3f810000u);
}

TEST_CASE("float64 and int64 values of every magnitude convert to the halves as backplane/half.h defines",
          "[small-dtypes][copy]") {
  Reference ref;
  std::mt19937_64 rng(1404);
  std::vector<double> doubles;
  std::vector<int64_t> integers;
  for (int i = 0; i < 20000; ++i) {
    // Random bits over float16's and bfloat16's whole ranges and past them, and random integers of every width.
    const int exponent = std::uniform_int_distribution<int>(-140, 140)(rng);
    doubles.push_back(std::ldexp(std::uniform_real_distribution<double>(-2.0, 2.0)(rng), exponent));
    integers.push_back(static_cast<int64_t>(rng() >> std::uniform_int_distribution<int>(0, 63)(rng)) *
                       (rng() & 1 ? 1 : -1));
  }
  const Bits d16 = copy_to<uint16_t>(ref, BP_FLOAT64, BP_FLOAT16, doubles);
  const Bits dbf = copy_to<uint16_t>(ref, BP_FLOAT64, BP_BFLOAT16, doubles);
  const Bits i16 = copy_to<uint16_t>(ref, BP_INT64, BP_FLOAT16, integers);
  const Bits ibf = copy_to<uint16_t>(ref, BP_INT64, BP_BFLOAT16, integers);
  int64_t mismatches = 0;
  for (size_t i = 0; i < doubles.size(); ++i) {
    mismatches += d16[i] != bp_f16_from_f64(doubles[i]);
    mismatches += dbf[i] != bp_bf16_from_f64(doubles[i]);
    mismatches += i16[i] != bp_f16_from_i64(integers[i]);
    mismatches += ibf[i] != bp_bf16_from_i64(integers[i]);
  }
  CHECK(mismatches == 0);
}
