// The vector conversions of cpu-openblas (plugins/cpu-openblas/
// half_convert.cpp, compiled into this test) against backplane/half.h, bit
// for bit: each instruction set in a test of its own, on every float16 and
// bfloat16, on float32 edge values (NaN, infinities, -0, subnormals of both
// widths, 65504/65520, bfloat16's largest finite, ties) and on random bit
// patterns, at every length around the vector width (the scalar tails). An
// instruction set this CPU lacks is a skipped test that says so: a machine
// without AVX-512 checks the AVX2 path and says it did not check the other.
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backplane/half.h"
#include <catch2/catch.hpp>
#include "half_convert.hpp"
#include "skip.hpp"

using cpu_backend::half_converters;
using cpu_backend::HalfConverters;
using cpu_backend::Isa;

namespace {

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// check(isa), or a skip naming what the CPU lacks.
void on_isa(Isa isa, void (*check)(Isa)) {
  if (!cpu_backend::isa_supported(isa))
    return bp_test::skip(std::string("needs ") + (isa == Isa::avx512 ? "AVX-512F" : "AVX2 and F16C") +
                         ", which this CPU lacks (cpu-openblas uses " +
                         cpu_backend::isa_name(cpu_backend::best_isa()) + " here, tested on its own)");
  INFO(cpu_backend::isa_name(isa));
  check(isa);
}

// The float32 values every narrowing is checked on.
std::vector<float> edge_values() {
  std::vector<uint32_t> u = {
      0x00000000, 0x80000000,              // +-0
      0x7f800000, 0xff800000,              // +-inf
      0x7fc00000, 0xffc00000, 0x7f800001,  // quiet NaNs, a signalling NaN
      0x7fbfffff, 0xff800001, 0x7fffffff,  // NaN payloads
      0x00000001, 0x807fffff, 0x00400000,  // float32 subnormals
      0x477fe000, 0x477fefff, 0x477ff000,  // 65504, just below 65520, 65520 (ties to inf)
      0x47800000, 0xc77ff000,              // 65536, -65520
      0x33800000, 0x33000000, 0x33000001,  // 2^-24 (smallest f16 subnormal), 2^-25 (tie to 0), just above
      0x33c00000, 0x34200000,              // 1.5 * 2^-24 (tie to even: 2^-23), 1.25 * 2^-23
      0x387fc000, 0x38800000, 0x387fe000,  // largest f16 subnormal, smallest normal, tie between them
      0x3f801000, 0x3f803000, 0x3f800fff,  // f16 ties at 1 (down, up), just below
      0x3f808000, 0x3f818000, 0x3f807fff,  // bf16 ties at 1 (down, up), just below
      0x7f7f0000, 0x7f7f7fff, 0x7f7f8000,  // bf16's largest finite, below its tie, the tie (to inf)
      0x7f7fffff, 0xff7fffff,              // float32's largest finite
      0x3f800000, 0xbf800000, 0x40490fdb,  // 1, -1, pi
  };
  std::vector<float> out;
  for (uint32_t x : u) out.push_back(from_bits(x));
  return out;
}

// n values at every length from 0 to 80 and from an odd start, so each
// path's vector body and scalar tail both run.
template <class In, class Out, class Fn, class Ref>
void check_lengths(const std::vector<In> &values, Fn fn, Ref ref) {
  for (size_t start : {size_t(0), size_t(1)})
    for (size_t n = 0; n + start <= values.size() && n <= 80; ++n) {
      std::vector<Out> got(n + 1, Out(0x5a5a));
      fn(values.data() + start, got.data(), static_cast<int64_t>(n));
      for (size_t i = 0; i < n; ++i) REQUIRE(got[i] == ref(values[start + i]));
      REQUIRE(got[n] == Out(0x5a5a));  // nothing written past the end
    }
}

}  // namespace

TEST_CASE("half.h's reference conversions give the documented bits", "[half]") {
  CHECK(bp_f16_from_f32(1.0f) == 0x3c00);
  CHECK(bp_f16_from_f32(65504.0f) == 0x7bff);
  CHECK(bp_f16_from_f32(65520.0f) == 0x7c00);
  CHECK(bp_f16_from_f32(-0.0f) == 0x8000);
  CHECK(bp_f16_from_f32(from_bits(0x33800000)) == 0x0001);
  CHECK(bp_f16_from_f32(from_bits(0x33000000)) == 0x0000);
  CHECK(bp_bf16_from_f32(1.0f) == 0x3f80);
  CHECK(bp_bf16_from_f32(from_bits(0x7f7f8000)) == 0x7f80);
  CHECK(bp_bf16_from_f32(from_bits(0x00000001)) == 0x0000);
  CHECK(bp_bf16_from_f32(from_bits(0x00018000)) == 0x0002);  // subnormal tie, kept (not flushed)
  CHECK(bp_bf16_from_f32(from_bits(0x7f800001)) == 0x7fc0);  // quieted
}

namespace {

void widens_as_half_h_does(Isa isa) {
  std::vector<uint16_t> all(65536);
  for (uint32_t i = 0; i < 65536; ++i) all[i] = static_cast<uint16_t>(i);
  const HalfConverters &c = half_converters(isa);
  std::vector<float> f16(65536), bf16(65536);
  c.f16_to_f32(all.data(), f16.data(), 65536);
  c.bf16_to_f32(all.data(), bf16.data(), 65536);
  size_t f16_bad = 0, bf16_bad = 0;
  for (uint32_t i = 0; i < 65536; ++i) {
    f16_bad += bits(f16[i]) != bits(bp_f32_from_f16(all[i]));
    bf16_bad += bits(bf16[i]) != bits(bp_f32_from_bf16(all[i]));
  }
  CHECK(f16_bad == 0);
  CHECK(bf16_bad == 0);
  CHECK(bits(f16[0x7bff]) == bits(65504.0f));
  CHECK(bits(f16[0x0001]) == 0x33800000u);
  CHECK(bits(bf16[0x7f7f]) == 0x7f7f0000u);
  check_lengths<uint16_t, uint32_t>(
      all, [&](const uint16_t *in, uint32_t *out, int64_t n) { c.f16_to_f32(in, reinterpret_cast<float *>(out), n); },
      [](uint16_t h) { return bits(bp_f32_from_f16(h)); });
}

void narrows_as_half_h_does(Isa isa) {
  std::vector<float> values = edge_values();
  std::mt19937 rng(7);
  for (int i = 0; i < (1 << 20); ++i) values.push_back(from_bits(static_cast<uint32_t>(rng())));
  // Dense sweeps over float16's range (exponents 2^-26..2^17), every rounding case.
  for (uint32_t u = 0x32800000u; u < 0x48800000u; u += 0x3ffu) {
    values.push_back(from_bits(u));
    values.push_back(from_bits(u | 0x80000000u));
  }
  const HalfConverters &c = half_converters(isa);
  std::vector<uint16_t> f16(values.size()), bf16(values.size());
  c.f32_to_f16(values.data(), f16.data(), static_cast<int64_t>(values.size()));
  c.f32_to_bf16(values.data(), bf16.data(), static_cast<int64_t>(values.size()));
  size_t f16_bad = 0, bf16_bad = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    f16_bad += f16[i] != bp_f16_from_f32(values[i]);
    bf16_bad += bf16[i] != bp_bf16_from_f32(values[i]);
  }
  CHECK(f16_bad == 0);
  CHECK(bf16_bad == 0);
  check_lengths<float, uint16_t>(values, c.f32_to_f16, [](float f) { return bp_f16_from_f32(f); });
  check_lengths<float, uint16_t>(values, c.f32_to_bf16, [](float f) { return bp_bf16_from_f32(f); });
  // The edge values one by one, so a failure names the value.
  for (float v : edge_values()) {
    INFO("float32 bits " << std::hex << bits(v));
    uint16_t h = 0, b = 0;
    std::vector<float> block(40, v);  // a full vector, not only the scalar tail
    std::vector<uint16_t> hs(40), bs(40);
    c.f32_to_f16(block.data(), hs.data(), 40);
    c.f32_to_bf16(block.data(), bs.data(), 40);
    h = hs[0];
    b = bs[0];
    CHECK(h == bp_f16_from_f32(v));
    CHECK(b == bp_bf16_from_f32(v));
  }
}

void binary_ops_match_the_scalar_kernels(Isa isa) {
  // Edge values of both formats against each other, then random bits.
  const std::vector<uint16_t> edges = {0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0x3c01, 0x7bff, 0xfbff,
                                       0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x3f80, 0x7f7f, 0xff7f, 0x7f80, 0x0080,
                                       0x007f, 0x1000, 0x4800, 0xc000};
  std::vector<uint16_t> a, b;
  for (uint16_t x : edges)
    for (uint16_t y : edges) a.push_back(x), b.push_back(y);
  std::mt19937 rng(5);
  while (a.size() < 100000) a.push_back(static_cast<uint16_t>(rng())), b.push_back(static_cast<uint16_t>(rng()));
  const HalfConverters &scalar = half_converters(Isa::scalar);
  const auto nan16 = [](uint16_t h) { return (h & 0x7fff) > 0x7c00; };
  const auto nanb16 = [](uint16_t h) { return (h & 0x7fff) > 0x7f80; };
  const HalfConverters &c = half_converters(isa);
  for (int op = 0; op < cpu_backend::kHalfBinaryOps; ++op) {
    INFO("op " << op);
    const int64_t n = static_cast<int64_t>(a.size());
    std::vector<uint16_t> want(a.size()), got(a.size());
    size_t bad = 0;
    scalar.f16_binary[op](a.data(), b.data(), want.data(), n);
    c.f16_binary[op](a.data(), b.data(), got.data(), n);
    for (size_t i = 0; i < a.size(); ++i) bad += nan16(want[i]) ? !nan16(got[i]) : got[i] != want[i];
    scalar.bf16_binary[op](a.data(), b.data(), want.data(), n);
    c.bf16_binary[op](a.data(), b.data(), got.data(), n);
    for (size_t i = 0; i < a.size(); ++i) bad += nanb16(want[i]) ? !nanb16(got[i]) : got[i] != want[i];
    CHECK(bad == 0);
    // Odd lengths: the scalar tail.
    std::vector<uint16_t> tail(24, 0x5a5a);
    c.f16_binary[op](a.data() + 1, b.data() + 1, tail.data(), 23);
    scalar.f16_binary[op](a.data() + 1, b.data() + 1, want.data(), 23);
    for (int i = 0; i < 23; ++i) CHECK((nan16(want[i]) ? nan16(tail[i]) : tail[i] == want[i]));
    CHECK(tail[23] == 0x5a5a);
  }
}

}  // namespace

TEST_CASE("float16 ADD and MUL round at the top of the range on the best instruction set", "[half]") {
  // Concrete: 65504 + 8 stays 65504 (below the tie), 65504 * 2 overflows.
  std::vector<uint16_t> out(1);
  const uint16_t x = 0x7bff, y = 0x4800, two = 0x4000;
  cpu_backend::converters().f16_binary[cpu_backend::kHalfAdd](&x, &y, out.data(), 1);
  CHECK(out[0] == 0x7bff);
  cpu_backend::converters().f16_binary[cpu_backend::kHalfMul](&x, &two, out.data(), 1);
  CHECK(out[0] == 0x7c00);
}

// One test case per instruction set, named "<set>: <what>".
#define ON_VECTOR_ISAS(what, check)                                  \
  TEST_CASE("AVX2+F16C: " what, "[half]") { on_isa(Isa::avx2, check); } \
  TEST_CASE("AVX-512F: " what, "[half]") { on_isa(Isa::avx512, check); }
#define ON_EVERY_ISA(what, check)                                        \
  TEST_CASE("scalar: " what, "[half]") { on_isa(Isa::scalar, check); } \
  ON_VECTOR_ISAS(what, check)

ON_EVERY_ISA("widens every float16 and bfloat16 as half.h does", widens_as_half_h_does)
ON_EVERY_ISA("narrows float32 edge values and random bits as half.h does", narrows_as_half_h_does)
// The scalar kernels are the yardstick, so only the vector ones are held to them.
ON_VECTOR_ISAS("fused ADD, SUB, MUL and DIV of halves match the scalar kernels", binary_ops_match_the_scalar_kernels)
