// The kit's own judgement of the 1.4 dtypes, without a plugin: the results
// it computes for conversions (host_results), the tolerance table
// (tolerances), and compare_outputs on one-ulp differences.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "host_results.hpp"
#include "judge.hpp"
#include "tolerances.hpp"
#include "values.hpp"
#include "views.hpp"

using namespace bpcheck;

namespace {

// A COPY of `values` (stored in dtype `from`) into a dense `to` output.
Case copy_case(int32_t from, int32_t to, const std::vector<Val> &values) {
  Case c;
  c.op = BP_OP_COPY;
  c.attrs.struct_size = sizeof c.attrs;
  const int64_t n = int64_t(values.size());
  ViewDesc in = add_view(c, from, {n}, dense(), false);
  fill(c, in, [&](const int64_t *, int64_t i) { return values[size_t(i)]; });
  c.inputs.push_back(in);
  c.output = add_view(c, to, {n}, dense(), true);
  return c;
}

uint16_t bits_at(const Case &c, const std::vector<uint8_t> &storage, int64_t i) {
  uint16_t h;
  std::memcpy(&h, storage.data() + byte_at(c.output, &i), 2);
  return h;
}

int64_t int_at(const Case &c, const std::vector<uint8_t> &storage, int64_t i) {
  return load_int(c.output.dtype, storage.data() + byte_at(c.output, &i));
}

}  // namespace

TEST_CASE("host results: float64 to float16 rounds once, overflows to infinity and keeps -0") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Case c = copy_case(BP_FLOAT64, BP_FLOAT16,
                           {{1 + 0x1p-11 + 0x1p-40, 0}, {65520 - 0x1p-30, 0}, {0x1p-25 + 0x1p-60, 0}, {-0.0, 0},
                            {1e300, 0}, {65520, 0}, {0x1p-25, 0}, {nan, 0}});
  REQUIRE(has_host_result(c));
  const std::vector<uint8_t> r = host_result(c);
  CHECK(bits_at(c, r, 0) == 0x3c01);  // not 1, as through float32
  CHECK(bits_at(c, r, 1) == 0x7bff);  // not infinity, as through float32
  CHECK(bits_at(c, r, 2) == 0x0001);
  CHECK(bits_at(c, r, 3) == 0x8000);
  CHECK(bits_at(c, r, 4) == 0x7c00);
  CHECK(bits_at(c, r, 5) == 0x7c00);  // the tie past 65504 goes to the even neighbour, infinity
  CHECK(bits_at(c, r, 6) == 0x0000);  // half the smallest subnormal: a tie with 0
  CHECK((bits_at(c, r, 7) & 0x7e00) == 0x7e00);
}

TEST_CASE("host results: int64 to bfloat16 rounds once") {
  const int64_t x = (int64_t(1) << 62) + (int64_t(1) << 54) + 1;
  const Case c = copy_case(BP_INT64, BP_BFLOAT16, {{double(x), x}, {double(-x), -x}, {257, 257}, {259, 259}});
  const std::vector<uint8_t> r = host_result(c);
  CHECK(bits_at(c, r, 0) == 0x5e81);  // 2^62 + 2^55
  CHECK(bits_at(c, r, 1) == 0xde81);
  CHECK(bits_at(c, r, 2) == 0x4380);  // 257: a tie, to 256
  CHECK(bits_at(c, r, 3) == 0x4382);  // 259: a tie, to 260
}

TEST_CASE("host results: halves to int8 saturate, int16 to int8 and uint8 wrap") {
  const double inf = std::numeric_limits<double>::infinity();
  const Case f = copy_case(BP_FLOAT16, BP_INT8,
                           {{65504, 0}, {-inf, 0}, {std::nan(""), 0}, {-2.75, 0}, {0x1p-24, 0}});
  const std::vector<uint8_t> r = host_result(f);
  CHECK(int_at(f, r, 0) == 127);
  CHECK(int_at(f, r, 1) == -128);
  CHECK(int_at(f, r, 2) == 0);
  CHECK(int_at(f, r, 3) == -2);
  CHECK(int_at(f, r, 4) == 0);
  const Case w = copy_case(BP_INT16, BP_UINT8, {{300, 300}, {-1, -1}, {-32768, -32768}});
  const std::vector<uint8_t> q = host_result(w);
  CHECK(int_at(w, q, 0) == 44);
  CHECK(int_at(w, q, 1) == 255);
  CHECK(int_at(w, q, 2) == 0);
  CHECK_FALSE(has_host_result(copy_case(BP_FLOAT32, BP_FLOAT64, {{1, 0}})));
}

TEST_CASE("a conversion one ulp off is a failure naming both bit patterns") {
  Case c = copy_case(BP_FLOAT32, BP_FLOAT16, {{1, 0}, {2, 0}});
  const std::vector<uint8_t> want = host_result(c);
  std::vector<uint8_t> got = want;
  const int64_t one = 1;
  const uint16_t off = 0x4001;  // 2 + one ulp
  std::memcpy(got.data() + byte_at(c.output, &one), &off, 2);
  const std::string e = compare_outputs(c, got, want, "half.h");
  CHECK(e == "computes wrong values: at [1] it gives 2.00195312 (0x4001) where half.h gives 2 (0x4000) (1 of 2 elements differ)");
  CHECK(compare_outputs(c, want, want).empty());
}

TEST_CASE("tolerance table: halves exact where float32 rounds once, ulps for math and sums") {
  CHECK(tolerance(BP_OP_ADD, BP_FLOAT16).exact);
  CHECK(tolerance(BP_OP_DIV, BP_BFLOAT16).exact);
  CHECK(tolerance(BP_OP_SQRT, BP_FLOAT16).exact);
  CHECK_FALSE(tolerance(BP_OP_SQRT, BP_FLOAT32).exact);
  CHECK(tolerance(BP_OP_ADD, BP_INT8).exact);
  CHECK_FALSE(tolerance(BP_OP_EXP, BP_FLOAT16).exact);
  CHECK_FALSE(tolerance(BP_OP_RANDOM_NORMAL, BP_BFLOAT16).exact);
  CHECK(tolerance(BP_OP_RANDOM_UNIFORM, BP_BFLOAT16).exact);

  // EXP in float16 near 3: 2 eps |want| is 6 * 2^-10, three steps of 2^-9
  // there; four are too many.
  const Tolerance t = tolerance(BP_OP_EXP, BP_FLOAT16);
  CHECK(within(t, BP_FLOAT16, 3 + 3 * 0x1p-9, 3, 0, 0, 0));
  CHECK_FALSE(within(t, BP_FLOAT16, 3 + 4 * 0x1p-9, 3, 0, 0, 0));
  // bfloat16: ulp 2^-6 near 3.
  const Tolerance b = tolerance(BP_OP_SIN, BP_BFLOAT16);
  CHECK(within(b, BP_BFLOAT16, 0.75 + 0x1p-8, 0.75, 0, 0, 0));
  CHECK_FALSE(within(b, BP_BFLOAT16, 0.75 + 0x1p-5, 0.75, 0, 0, 0));
  // A subnormal result one step off.
  CHECK(within(t, BP_FLOAT16, 0x1p-24, 0, 0, 0, 0));

  // SUM in float16 of 128 terms whose magnitudes sum to 64, result 4: 1 ulp
  // of 4 (2^-8) plus 2^-12 * 128 * 64 ulps of 2^-10 (2^-9).
  const Tolerance s = tolerance(BP_OP_SUM, BP_FLOAT16);
  CHECK(within(s, BP_FLOAT16, 4 + 0x1p-8 + 0x1p-9, 4, 0, 64, 128));
  CHECK_FALSE(within(s, BP_FLOAT16, 4 + 0x1p-6, 4, 0, 64, 128));
  // More terms, more room: the tolerance grows with K.
  CHECK(within(s, BP_FLOAT16, 4 + 0x1p-6, 4, 0, 64, 1024));
}

TEST_CASE("special values: COPY into a half carries the ties and the double-rounding cases") {
  const std::vector<Val> sp = specials_for(BP_OP_COPY, BP_FLOAT64, BP_FLOAT16);
  bool tie = false, subnormal = false;
  for (const Val &v : sp) {
    tie = tie || v.d == 1 + 0x1p-11 + 0x1p-40;
    subnormal = subnormal || v.d == 0x1p-25;
  }
  CHECK(tie);
  CHECK(subnormal);
  const std::vector<Val> h = specials_for(BP_OP_ADD, BP_BFLOAT16);
  bool largest = false;
  for (const Val &v : h) largest = largest || v.d == 0x1.fep127;
  CHECK(largest);
  CHECK(specials_for(BP_OP_ADD, BP_FLOAT32).size() == 12);  // float32's list is unchanged
}
