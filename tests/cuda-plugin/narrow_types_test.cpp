// narrow_types.hpp and reducers.cuh on the host, without a GPU: the type
// logic the CUDA kernels share (which conversion each dtype pair takes,
// saturation and wrapping, functors in the compute type, widening reducers)
// against backplane/half.h and plugin.h's rules. On the host every
// conversion is half.h's own; the device's float16 instruction is checked
// by the GPU tests (narrow_conversion_test.cpp).
#include "narrow_types.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "backplane/half.h"
#include "cuda_test.hpp"
#include "reducers.cuh"

using namespace cuda_test;
using bp_plugin::bfloat16;
using bp_plugin::float16;

namespace {

uint16_t bits(float16 h) { return static_cast<uint16_t>(h); }
uint16_t bits(bfloat16 h) { return static_cast<uint16_t>(h); }

template <class Red, class T>
typename Red::out_t fold(const std::vector<T> &values) {
  typename Red::acc_t acc = Red::init();
  for (size_t i = 0; i < values.size(); ++i) acc = Red::step(acc, values[i], static_cast<int64_t>(i));
  return Red::finish(acc, static_cast<int64_t>(values.size()));
}

}  // namespace

TEST_CASE("cuda narrow types: conversions to the halves round once, from float64 and int64 too", "[cuda][narrow]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  double payload_nan;
  const uint64_t payload = 0xfff4000012345678ull;  // negative, signalling, with payload bits
  std::memcpy(&payload_nan, &payload, sizeof payload);
  for (double d : {0.0, -0.0, 0.1, 65519.999, 65520.0, 1e300, nan, -nan, payload_nan, std::ldexp(1.0, -25),
                   1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), 1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40),
                   std::ldexp(1.0, -134) + std::ldexp(1.0, -160)}) {
    INFO(d);
    CHECK(bits(bp_cuda::Convert<float16>()(d)) == bp_f16_from_f64(d));
    CHECK(bits(bp_cuda::Convert<bfloat16>()(d)) == bp_bf16_from_f64(d));
    CHECK(bits(bp_cuda::Convert<float16>()(static_cast<float>(d))) == bp_f16_from_f32(static_cast<float>(d)));
  }
  for (int64_t x : {int64_t(2049), (int64_t(1) << 40) + (int64_t(1) << 32) + 1, std::numeric_limits<int64_t>::min(),
                    int64_t(-65520)}) {
    INFO(x);
    CHECK(bits(bp_cuda::Convert<float16>()(x)) == bp_f16_from_i64(x));
    CHECK(bits(bp_cuda::Convert<bfloat16>()(x)) == bp_bf16_from_i64(x));
    CHECK(bits(bp_cuda::Convert<bfloat16>()(static_cast<int32_t>(x))) == bp_bf16_from_i64(static_cast<int32_t>(x)));
  }
  CHECK(bits(bp_cuda::Convert<float16>()(int8_t(-128))) == bp_f16_from_f32(-128.0f));
  CHECK(bits(bp_cuda::Convert<bfloat16>()(uint8_t(255))) == bp_bf16_from_f32(255.0f));
  CHECK(bits(bp_cuda::Convert<bfloat16>()(int16_t(-32767))) == bp_bf16_from_i64(-32767));
  CHECK(bits(bp_cuda::Convert<float16>()(static_cast<bp_plugin::boolean>(1))) == 0x3c00);
  // Between the halves: widened exactly, rounded once.
  CHECK(bits(bp_cuda::Convert<float16>()(static_cast<bfloat16>(0x3f81))) == bp_f16_from_f32(bp_f32_from_bf16(0x3f81)));
  CHECK(bits(bp_cuda::Convert<bfloat16>()(static_cast<float16>(0x3c01))) == 0x3f80);
}

TEST_CASE("cuda narrow types: conversions out of the halves and into the small integers", "[cuda][narrow]") {
  const float16 big = static_cast<float16>(0x7bff), nan = static_cast<float16>(0x7e00);
  const bfloat16 minus = static_cast<bfloat16>(0xc2c8);  // -100
  CHECK(bp_cuda::Convert<float>()(big) == 65504.0f);
  CHECK(bp_cuda::Convert<double>()(minus) == -100.0);
  CHECK(bp_cuda::Convert<int8_t>()(big) == 127);
  CHECK(bp_cuda::Convert<uint8_t>()(minus) == 0);
  CHECK(bp_cuda::Convert<int16_t>()(big) == 32767);
  CHECK(bp_cuda::Convert<int32_t>()(big) == 65504);
  CHECK(bp_cuda::Convert<int8_t>()(nan) == 0);
  CHECK(bp_cuda::Convert<int64_t>()(minus) == -100);
  CHECK(static_cast<int>(bp_cuda::Convert<bp_plugin::boolean>()(nan)) == 1);
  CHECK(static_cast<int>(bp_cuda::Convert<bp_plugin::boolean>()(static_cast<float16>(0x8000))) == 0);
  CHECK(bp_cuda::Convert<int8_t>()(127.9f) == 127);
  CHECK(bp_cuda::Convert<int8_t>()(-128.9) == -128);
  CHECK(bp_cuda::Convert<uint8_t>()(-0.5f) == 0);
  CHECK(bp_cuda::Convert<uint8_t>()(std::numeric_limits<double>::infinity()) == 255);
  CHECK(bp_cuda::Convert<int16_t>()(-1e9f) == -32768);
  CHECK(bp_cuda::Convert<int8_t>()(int64_t(1000000007)) == 7);
  CHECK(bp_cuda::Convert<uint8_t>()(int8_t(-1)) == 255);
  CHECK(bp_cuda::Convert<int8_t>()(uint8_t(200)) == -56);
  CHECK(bp_cuda::Convert<int16_t>()(int32_t(-32769)) == 32767);
  CHECK(bp_cuda::Convert<int32_t>()(uint8_t(255)) == 255);
  CHECK(bp_cuda::Convert<uint8_t>()(static_cast<bp_plugin::boolean>(1)) == 1);
  CHECK(static_cast<int>(bp_cuda::Convert<bp_plugin::boolean>()(int16_t(256))) == 1);
}

TEST_CASE("cuda narrow types: functors run in the compute type and narrow once", "[cuda][narrow]") {
  namespace k = bp_kernels;
  CHECK(bp_cuda::InCompute<k::Add>()(int8_t(127), int8_t(1)) == -128);
  CHECK(bp_cuda::InCompute<k::Mul>()(int16_t(300), int16_t(300)) == static_cast<int16_t>(90000 - 65536));
  CHECK(bp_cuda::InCompute<k::FloorDivide>()(uint8_t(200), uint8_t(255)) == 0);
  CHECK(bp_cuda::InCompute<k::Remainder>()(uint8_t(200), uint8_t(255)) == 200);
  CHECK(bp_cuda::InCompute<k::FloorDivide>()(int8_t(-128), int8_t(-1)) == -128);
  CHECK(bp_cuda::InCompute<k::Abs>()(int8_t(-128)) == -128);
  CHECK(bp_cuda::InCompute<k::BitwiseNot>()(uint8_t(200)) == 55);
  CHECK(bp_cuda::InCompute<k::Pow>()(int8_t(3), int8_t(5)) == static_cast<int8_t>(243));
  // 1 + 2^-11 is a tie in float16: to even, 1.
  const float16 one = static_cast<float16>(0x3c00), tiny = static_cast<float16>(0x1000);  // 2^-11
  CHECK(bits(bp_cuda::InCompute<k::Add>()(one, tiny)) == 0x3c00);
  CHECK(bits(bp_cuda::InCompute<k::Sqrt>()(static_cast<float16>(0x4000))) == bp_f16_from_f32(std::sqrt(2.0f)));
  CHECK(static_cast<int>(bp_cuda::InCompute<k::Lt>()(tiny, one)) == 1);
  const bfloat16 three = static_cast<bfloat16>(0x4040);
  CHECK(bits(bp_cuda::InCompute<k::Div>()(static_cast<bfloat16>(0x3f80), three)) == bp_bf16_from_f32(1.0f / 3.0f));
}

TEST_CASE("cuda narrow types: reducers accumulate wide and finish once", "[cuda][narrow]") {
  namespace k = bp_kernels;
  std::vector<bfloat16> terms(1025, static_cast<bfloat16>(bp_bf16_from_f32(0x1p-9f)));
  terms[0] = static_cast<bfloat16>(0x3f80);
  CHECK(bits(fold<bp_cuda::sum_like_t<k::SumReducer, bfloat16>>(terms)) == 0x4040);
  CHECK(fold<bp_cuda::sum_like_t<k::SumReducer, int8_t>>(std::vector<int8_t>(1000, 100)) == 100000);
  CHECK(fold<bp_cuda::sum_like_t<k::ProdReducer, uint8_t>>(std::vector<uint8_t>{255, 255}) == 65025);
  CHECK(fold<bp_cuda::extreme_t<k::MaxReducer, int16_t>>(std::vector<int16_t>{-3, 300, -32768}) == 300);
  const std::vector<float16> with_nan = {static_cast<float16>(0x3c00), static_cast<float16>(0x7e00),
                                         static_cast<float16>(0x4500)};
  CHECK(fold<bp_cuda::arg_t<k::ArgmaxReducer, float16>>(with_nan) == 1);
  CHECK(bits(fold<bp_cuda::sum_like_t<k::MeanReducer, float16>>(
            std::vector<float16>{static_cast<float16>(0x3c00), static_cast<float16>(0x4000)})) == 0x3e00);
  // CUMSUM's scanner: the compensated float64 sum, rounded per output.
  std::vector<float16> ones(3000, static_cast<float16>(0x3c00));
  std::vector<float16> sums(ones.size());
  bp_kernels::inclusive_scan<bp_cuda::sum_like_t<k::CumsumScanner, float16>>(ones.data(), 1, sums.data(), 1, 3000);
  CHECK(bits(sums[2047]) == bp_f16_from_f32(2048.0f));
  CHECK(bits(sums[2999]) == bp_f16_from_f32(3000.0f));
}
