// The kit's judgement at a test's named bound (compare_outputs with a
// Bound, the second part of the tolerance table), which the plugin tests'
// harness applies: the bound decides where it is tighter than the op's
// class and where it is looser, and it can fail.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "judge.hpp"
#include "tolerances.hpp"
#include "values.hpp"
#include "views.hpp"

using namespace bpcheck;

namespace {

// An ADD of two dense float32 vectors whose output storage holds `want`.
Case add_case(const std::vector<double> &want) {
  Case c;
  c.op = BP_OP_ADD;
  c.attrs.struct_size = sizeof c.attrs;
  const int64_t n = int64_t(want.size());
  for (int k = 0; k < 2; ++k) {
    ViewDesc in = add_view(c, BP_FLOAT32, {n}, dense(), false);
    fill(c, in, [](const int64_t *, int64_t) { return Val{1, 0}; });
    c.inputs.push_back(in);
  }
  c.output = add_view(c, BP_FLOAT32, {n}, dense(), true);
  fill(c, c.output, [&](const int64_t *, int64_t i) { return Val{want[size_t(i)], 0}; });
  return c;
}

// The output storage of c with element i set to v.
std::vector<uint8_t> with(const Case &c, int64_t i, double v) {
  std::vector<uint8_t> s = c.storages[size_t(c.output.storage)];
  store(BP_FLOAT32, s.data() + byte_at(c.output, &i), Val{v, 0});
  return s;
}

}  // namespace

TEST_CASE("a test's bound decides where it is tighter than the op's class") {
  const Case c = add_case({2, 2, 2});
  const std::vector<uint8_t> want = c.storages[size_t(c.output.storage)];
  const std::vector<uint8_t> got = with(c, 1, 2 * (1 + 4e-6));  // within float32's rounded class (1e-5)
  CHECK(compare_outputs(c, got, want).empty());
  const Bound tight{1e-6, 0};
  const std::string e = compare_outputs(c, got, want, "the reference", 0, &tight);
  CHECK(e.rfind("computes wrong values: at [1] it gives", 0) == 0);
  CHECK(e.find("(1 of 3 elements differ)") != std::string::npos);
  CHECK(compare_outputs(c, want, want, "the reference", 0, &tight).empty());
}

TEST_CASE("a test's bound decides where it is looser than the op's class") {
  const Case c = add_case({2, 2});
  const std::vector<uint8_t> want = c.storages[size_t(c.output.storage)];
  const std::vector<uint8_t> got = with(c, 0, 2 * (1 + 1e-3));
  CHECK_FALSE(compare_outputs(c, got, want).empty());
  const Bound loose{1e-2, 0};
  CHECK(compare_outputs(c, got, want, "the reference", 0, &loose).empty());
  const Bound too_tight{1e-4, 0};
  CHECK_FALSE(compare_outputs(c, got, want, "the reference", 0, &too_tight).empty());
}

TEST_CASE("an exact bound asks for the same value and sign of zero, and NaN matches NaN only") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Case c = add_case({0.0, nan, 3});
  const std::vector<uint8_t> want = c.storages[size_t(c.output.storage)];
  const Bound exact{};
  CHECK(compare_outputs(c, want, want, "the reference", 0, &exact).empty());
  CHECK_FALSE(compare_outputs(c, with(c, 0, -0.0), want, "the reference", 0, &exact).empty());
  CHECK_FALSE(compare_outputs(c, with(c, 1, 3), want, "the reference", 0, &exact).empty());
  CHECK_FALSE(compare_outputs(c, with(c, 2, std::nextafter(3.0f, 4.0f)), want, "the reference", 0, &exact).empty());
  const Bound loose{1e-2, 0};
  CHECK(compare_outputs(c, with(c, 0, -0.0), want, "the reference", 0, &loose).empty());  // -0 == +0
}

TEST_CASE("within_bound: atol + rtol * max(|got|, |want|), infinities only equal to themselves") {
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(within_bound({0, 1e-3}, 1e-3, 0));
  CHECK_FALSE(within_bound({0, 1e-3}, 2e-3, 0));
  CHECK(within_bound({0.5, 0}, 2, 1));  // relative to the larger of the two
  CHECK_FALSE(within_bound({0.4, 0}, 2, 1));
  CHECK(within_bound({1, 1}, inf, inf));
  CHECK_FALSE(within_bound({1, 1}, inf, 1e300));
  CHECK_FALSE(within_bound({1, 1}, -inf, inf));
}
