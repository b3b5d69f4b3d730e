// Numeric rules every backend follows the same way (plugin.h, backplane.h):
// float to integer conversion, bool storage, scalars with bool tensors. Each
// case runs on every host device and, when PoCL is installed, opencl:0.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "runtime_fixture.hpp"

using Catch::Matchers::Equals;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max(), kI32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max(), kI64Min = std::numeric_limits<int64_t>::min();

const std::vector<double> kSources = {kNaN, kInf, -kInf, 3e9, -3e9, 2.7, -2.7, 1e19, -1e19, -0.5};

}  // namespace

TEST_CASE("float to integer conversion truncates and saturates and maps NaN to 0 on every backend") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  INFO(d.name());
  const std::vector<int32_t> want32 = {0, kI32Max, kI32Min, kI32Max, kI32Min, 2, -2, kI32Max, kI32Min, 0};
  const std::vector<int64_t> want64 = {0, kI64Max, kI64Min, 3000000000, -3000000000, 2, -2, kI64Max, kI64Min, 0};
  const bp::Shape shape = {int64_t(kSources.size())};
  SECTION("bp_cast from float64") {
    bp::Tensor src = bp::from_vector<double>(kSources, shape, d);
    CHECK_THAT(src.astype(bp::i32).to_vector<int32_t>(), Equals(want32));
    CHECK_THAT(src.astype(bp::i64).to_vector<int64_t>(), Equals(want64));
  }
  SECTION("bp_cast from float32") {
    std::vector<float> f(kSources.begin(), kSources.end());
    bp::Tensor src = bp::from_vector<float>(f, shape, d);
    CHECK_THAT(src.astype(bp::i32).to_vector<int32_t>(), Equals(want32));
    // 1e19 and 3e9 round in float32; the saturated and NaN entries must not move.
    std::vector<int64_t> got = src.astype(bp::i64).to_vector<int64_t>();
    CHECK(got[0] == 0);
    CHECK(got[1] == kI64Max);
    CHECK(got[2] == kI64Min);
    CHECK(got[7] == kI64Max);
    CHECK(got[8] == kI64Min);
  }
  SECTION("bp_assign into an integer tensor") {
    bp::Tensor dst = bp::zeros(shape, bp::i32, d);
    dst.assign(bp::from_vector<double>(kSources, shape, d));
    CHECK_THAT(dst.to_vector<int32_t>(), Equals(want32));
  }
  SECTION("bp_full") {
    for (size_t i = 0; i < kSources.size(); ++i) {
      INFO(kSources[i]);
      CHECK(bp::full({2}, kSources[i], bp::i32, d).to_vector<int32_t>() == std::vector<int32_t>(2, want32[i]));
      CHECK(bp::full({2}, kSources[i], bp::i64, d).to_vector<int64_t>() == std::vector<int64_t>(2, want64[i]));
    }
  }
  SECTION("bp_arange") {
    CHECK_THAT(bp::arange(3e9, 3e9 + 3, 1, bp::i32, d).to_vector<int32_t>(),
               Equals(std::vector<int32_t>{kI32Max, kI32Max, kI32Max}));
    CHECK_THAT(bp::arange(-3e9, -3e9 + 2, 1, bp::i32, d).to_vector<int32_t>(),
               Equals(std::vector<int32_t>{kI32Min, kI32Min}));
  }
}

TEST_CASE("a scalar outside int32 with a bool tensor computes in float64 on every backend") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  INFO(d.name());
  bp::Tensor t = bp::from_vector<bool>({true, false}, {2}, d);
  bp::Tensor sum = t + 1e10;
  CHECK(sum.dtype() == BP_FLOAT64);
  CHECK_THAT(sum.to_vector<double>(), Equals(std::vector<double>{1e10 + 1, 1e10}));
  CHECK_THAT((t < 1e10).to_vector<bool>(), Equals(std::vector<bool>{true, true}));
  CHECK_THAT((t > -1e10).to_vector<bool>(), Equals(std::vector<bool>{true, true}));
  CHECK_THAT(bp::binary(BP_OP_ADD, t, 2.0).to_vector<int32_t>(), Equals(std::vector<int32_t>{3, 2}));
}

TEST_CASE("bool bytes other than 0 and 1 from the host are stored as 1 on every backend") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  INFO(d.name());
  const uint8_t raw[] = {2, 255, 0, 1};
  const int64_t shape[] = {4};
  bp_tensor h = 0;
  REQUIRE(bp_from_host(d.id(), BP_BOOL, 1, shape, raw, &h) == BP_OK);
  bp::Tensor t = bp::Tensor::adopt(h);
  CHECK(t.sum().item() == 3);
  CHECK_THAT(t.to_vector<bool>(), Equals(std::vector<bool>{true, true, false, true}));
  uint8_t back[4] = {9, 9, 9, 9};
  REQUIRE(bp_to_host(t.handle(), back, sizeof back) == BP_OK);
  CHECK(std::vector<uint8_t>(back, back + 4) == std::vector<uint8_t>{1, 1, 0, 1});
  SECTION("also through bp_from_host_into, into a strided view") {
    bp::Tensor base = bp::zeros({8}, bp::boolean, d);
    bp::Tensor odd = base.slice(0, 1, 8, 2);
    REQUIRE(bp_from_host_into(odd.handle(), raw, sizeof raw) == BP_OK);
    CHECK(base.sum().item() == 3);
    REQUIRE(bp_from_host_into(base.slice(0, 0, 4).handle(), raw, sizeof raw) == BP_OK);
    uint8_t all[8];
    REQUIRE(bp_to_host(base.handle(), all, sizeof all) == BP_OK);
    CHECK(std::vector<uint8_t>(all, all + 8) == std::vector<uint8_t>{1, 1, 0, 1, 0, 0, 0, 1});
  }
}
