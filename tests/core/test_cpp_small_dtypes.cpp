// backplane.hpp and the dtypes of 1.4 (float16, bfloat16, int8, uint8,
// int16): the bp::float16 / bp::bfloat16 element types convert as
// backplane/half.h does, host data goes in and out in every one of them,
// scalar operators pass the kind of their C++ type (int_tensor * 2 stays
// int, int_tensor * 2.0 is float64, bf16_tensor * 0.5 stays bfloat16), and
// operator<< prints them as the Python repr does.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <sstream>

#include "runtime_fixture.hpp"

namespace {

std::string printed(const bp::Tensor &t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

template <class H>
std::vector<uint16_t> bits_of(const std::vector<H> &v) {
  std::vector<uint16_t> bits;
  for (H h : v) bits.push_back(h.bits);
  return bits;
}

}  // namespace

TEST_CASE("bp::float16 and bp::bfloat16 round once to nearest even, as backplane/half.h does") {
  CHECK(bp::float16(1.0).bits == 0x3C00);
  CHECK(bp::bfloat16(1.0f).bits == 0x3F80);
  CHECK(bp::float16(-0.0).bits == 0x8000);
  CHECK(bp::float16(65520.0).bits == 0x7C00);  // rounds past 65504: infinity
  CHECK(bp::float16(65519.0).bits == 0x7BFF);
  CHECK(bp::float16(5.960464477539063e-08).bits == 0x0001);  // the smallest subnormal, kept
  CHECK(bp::float16(2049).bits == bp::float16(2048.0).bits);  // a tie, to even
  CHECK(bp::float16(2051).bits == bp::float16(2052.0).bits);
  // 1 + 2^-11 + 2^-40 is just above a tie of float16: rounded from the double
  // it goes up; through a float32 (which drops the 2^-40) it would tie to 1.
  const double above_tie = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  CHECK(bp::float16(above_tie).bits == 0x3C01);
  CHECK(bp::float16(float(above_tie)).bits == 0x3C00);
  // An int64 past 2^53 rounds once too: 2^62 + 2^54 + 1 is above bfloat16's
  // tie between 2^62 and 2^62 + 2^55.
  const int64_t big = (int64_t(1) << 62) + (int64_t(1) << 54) + 1;
  CHECK(bp::bfloat16(big).bits == bp_bf16_from_i64(big));
  CHECK(float(bp::bfloat16(big)) == std::ldexp(1.0f, 62) + std::ldexp(1.0f, 55));
  CHECK(float(bp::float16::from_bits(0x3555)) == bp_f32_from_f16(0x3555));
  CHECK(float(bp::bfloat16::from_bits(0x7F80)) == std::numeric_limits<float>::infinity());
  CHECK(bp::float16(0.5) == bp::float16(0.5f));
}

TEST_CASE("host data goes in and out in the dtypes of 1.4 unchanged") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor i8 = bp::from_vector<int8_t>({-128, -1, 0, 127}, {2, 2}, d);
  CHECK(i8.dtype() == bp::i8);
  CHECK(i8.to_vector<int8_t>() == std::vector<int8_t>{-128, -1, 0, 127});
  const bp::Tensor u8 = bp::from_vector<uint8_t>({0, 1, 200, 255}, {4}, d);
  CHECK(u8.dtype() == bp::u8);
  CHECK(u8.to_vector<uint8_t>() == std::vector<uint8_t>{0, 1, 200, 255});
  const bp::Tensor i16 = bp::from_vector<int16_t>({-32768, 5, 32767}, {3}, d);
  CHECK(i16.dtype() == bp::i16);
  CHECK(i16.to_vector<int16_t>() == std::vector<int16_t>{-32768, 5, 32767});
  const std::vector<bp::float16> halves = {bp::float16(0.1), bp::float16(-2.5), bp::float16::from_bits(0x7E00)};
  const bp::Tensor f16 = bp::from_vector(halves, {3}, d);
  CHECK(f16.dtype() == bp::f16);
  CHECK(bits_of(f16.to_vector<bp::float16>()) == bits_of(halves));
  const std::vector<bp::bfloat16> brains = {bp::bfloat16(0.1), bp::bfloat16(3.0e38), bp::bfloat16(-0.0)};
  const bp::Tensor bf16 = bp::from_vector(brains, {3}, d);
  CHECK(bf16.dtype() == bp::bf16);
  CHECK(bits_of(bf16.to_vector<bp::bfloat16>()) == bits_of(brains));
  CHECK_THROWS_AS(bf16.to_vector<bp::float16>(), bp::DtypeError);
  CHECK(float(bp::from_vector(brains, {3}, d).slice(0, 1, 2).item<bp::bfloat16>()) == float(brains[1]));
  CHECK(bp::from_vector<int8_t>({-7}, {}, d).item<int8_t>() == -7);
}

TEST_CASE("a scalar operand's C++ type is its kind: integral INT, floating FLOAT, bool BOOL") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor i = bp::from_vector<int32_t>({1, 2, 3}, {3}, d);
  CHECK((i * 2).dtype() == bp::i32);
  CHECK((i * 2).to_vector<int32_t>() == std::vector<int32_t>{2, 4, 6});
  CHECK((i * 2.0).dtype() == bp::f64);  // by kind: 2.0 is a float, whatever its value
  CHECK((i * 0.5).to_vector<double>() == std::vector<double>{0.5, 1.0, 1.5});
  CHECK((10 - i).to_vector<int32_t>() == std::vector<int32_t>{9, 8, 7});
  CHECK((i + int64_t(1)).dtype() == bp::i32);
  CHECK((i == 2).to_vector<bool>() == std::vector<bool>{false, true, false});
  const bp::Tensor flags = bp::from_vector<bool>({true, false}, {2}, d);
  CHECK((flags & true).dtype() == bp::boolean);
  CHECK((flags * 3).dtype() == bp::i64);  // a bool tensor meets an INT scalar in int64
  CHECK((flags * 3).to_vector<int64_t>() == std::vector<int64_t>{3, 0});
  const bp::Tensor i8 = bp::from_vector<int8_t>({100, -100}, {2}, d);
  CHECK((i8 + 27).dtype() == bp::i8);
  CHECK((i8 + 27).to_vector<int8_t>() == std::vector<int8_t>{127, -73});
  CHECK_THROWS_AS(i8 + 300, bp::InvalidArgumentError);  // an int8 cannot hold it
  CHECK((i8 + 1e10).dtype() == bp::f64);  // a float scalar: float64, nothing refused
}

TEST_CASE("a half tensor stays in its dtype with a float scalar") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor b = bp::from_vector<bp::bfloat16>({bp::bfloat16(2.0), bp::bfloat16(-6.0)}, {2}, d);
  const bp::Tensor half = b * 0.5;
  CHECK(half.dtype() == bp::bf16);
  CHECK(bits_of(half.to_vector<bp::bfloat16>()) == std::vector<uint16_t>{0x3F80, 0xC040});  // 1, -3
  const bp::Tensor h = bp::from_vector<bp::float16>({bp::float16(1.0), bp::float16(0.0)}, {2}, d);
  CHECK((h + bp::float16(0.25)).dtype() == bp::f16);
  CHECK((h + 3).dtype() == bp::f16);
  CHECK((h + 3).to_vector<bp::float16>()[0] == bp::float16(4.0));
  CHECK((h != 0).to_vector<bool>() == std::vector<bool>{true, false});
  CHECK_FALSE(static_cast<bool>(h.all()));
  CHECK(static_cast<bool>(h.any()));
}

TEST_CASE("operator<< prints the dtypes of 1.4 as the Python repr does") {
  const bp::Device d = bp_test::each_host_device();
  const std::string dev = "device='" + d.name() + "'";
  CHECK(printed(bp::from_vector<int8_t>({-1, 2, 100}, {3}, d)) == "tensor([ -1,   2, 100], " + dev + ", dtype=int8)");
  CHECK(printed(bp::from_vector<uint8_t>({0, 255}, {2}, d)) == "tensor([  0, 255], " + dev + ", dtype=uint8)");
  CHECK(printed(bp::from_vector<int16_t>({-300, 7}, {2}, d)) == "tensor([-300,    7], " + dev + ", dtype=int16)");
  // float16 in its own shortest digits (NumPy's float16 repr) ...
  CHECK(printed(bp::from_vector<bp::float16>({bp::float16(0.1), bp::float16(2.0)}, {2}, d)) ==
        "tensor([0.1, 2. ], " + dev + ", dtype=float16)");
  // ... bfloat16 as the float32 it widens to (NumPy has no bfloat16).
  CHECK(printed(bp::from_vector<bp::bfloat16>({bp::bfloat16(0.1), bp::bfloat16(2.0)}, {2}, d)) ==
        "tensor([0.10009766, 2.        ], " + dev + ", dtype=bfloat16)");
}
