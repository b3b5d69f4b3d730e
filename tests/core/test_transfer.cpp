// copy_to always copies; to returns the tensor itself when it is already
// there; across backends data is staged through host memory, bit for bit.
#include <catch2/catch.hpp>

#include <cstring>
#include <limits>

#include "runtime_fixture.hpp"

using bp_test::start;
using Catch::Matchers::Equals;

TEST_CASE("to() on the same device returns the same handle, copy_to never does") {
  start(bp_test::kHostOnly);
  bp::Tensor x = bp::ones({2, 3}, bp::f32, bp::cpu());
  bp::Tensor same = x.to(bp::cpu());
  CHECK(same.is(x));
  bp::Tensor copy = x.copy_to(bp::cpu());
  CHECK(!copy.is(x));
  CHECK(copy.device() == bp::cpu());
  // A copy is independent of its source.
  copy.assign(bp::zeros({}, bp::f32, bp::cpu()));
  CHECK(x.to_vector<float>()[0] == 1);
}

TEST_CASE("the seed chapter's flow between two devices") {
  start(bp_test::kHostOnly);
  bp::Device a = bp::cpu(), b("reference:0");
  bp::Tensor X = bp::ones({2, 3}, bp::f32, a);
  bp::Tensor Y = bp::random_uniform({2, 3}, 0, 1, 1, bp::f32, b);
  CHECK_THROWS_AS(X + Y, bp::DeviceMismatchError);
  bp::Tensor Z = X.copy_to(b);
  CHECK(Z.device() == b);
  bp::Tensor S = Y + Z;
  CHECK(S.device() == b);  // the result stays on the inputs' device
  CHECK(Z.to(b).is(Z));
  auto y = Y.to_vector<float>(), s = S.to_vector<float>();
  for (size_t i = 0; i < y.size(); ++i) CHECK(s[i] == y[i] + 1.0f);
}

TEST_CASE("copies across backends preserve every dtype bit for bit, strided sources included") {
  start(bp_test::kHostOnly);
  bp::Device a = bp::cpu(), b("reference:0");
  std::vector<double> special = {0.0, -0.0, std::numeric_limits<double>::infinity(),
                                 std::numeric_limits<double>::quiet_NaN(), 1e-310, -3.25};
  bp::Tensor d = bp::from_vector(special, {6}, a);
  auto back = d.copy_to(b).copy_to(a).to_vector<double>();
  CHECK(std::memcmp(back.data(), special.data(), sizeof(double) * special.size()) == 0);
  std::vector<int64_t> ints = {std::numeric_limits<int64_t>::min(), -1, 0, 1,
                               std::numeric_limits<int64_t>::max(), 42};
  CHECK_THAT(bp::from_vector(ints, {2, 3}, b).copy_to(a).to_vector<int64_t>(), Equals(ints));
  bp::Tensor t = bp::arange(0, 12, 1, bp::i32, a).reshape({3, 4}).T();  // strided
  CHECK_THAT(t.copy_to(b).to_vector<int32_t>(), Equals(t.to_vector<int32_t>()));
  CHECK_THAT(bp::ones({3}, bp::boolean, b).copy_to(a).to_vector<bool>(), Equals(std::vector<bool>{true, true, true}));
}

TEST_CASE("counters record operators and staged copies per backend") {
  start(bp_test::kHostOnly);
  bp_backend_counters before{};
  before.struct_size = sizeof before;
  REQUIRE(bp_backend_counters_get("cpu-openblas", &before) == BP_OK);
  bp::Tensor x = bp::ones({4}, bp::f32, bp::cpu());
  bp::Tensor y = x + x;
  bp::Tensor z = y.copy_to(bp::Device("reference"));
  bp_backend_counters after{};
  after.struct_size = sizeof after;
  REQUIRE(bp_backend_counters_get("cpu-openblas", &after) == BP_OK);
  CHECK(after.ops == before.ops + 2);  // fill + add
  CHECK(after.staged_copies == before.staged_copies + 1);
  CHECK(bp_backend_counters_get("nope", &after) == BP_ERR_INVALID_ARGUMENT);
}

TEST_CASE("a network's parameters live on a device and its output stays there") {
  start(bp_test::kHostOnly);
  bp::Device dev("reference:0");
  // Dense layer: y = x W^T + b, parameters created on the device.
  bp::Tensor W = bp::random_normal({1, 3}, 0, 0.01, 3, bp::f32, dev);
  bp::Tensor bias = bp::zeros({1}, bp::f32, dev);
  bp::Tensor X = bp::ones({2, 3}, bp::f32, dev);
  bp::Tensor out = bp::matmul(X, W, false, true) + bias;
  CHECK(out.device() == dev);
  CHECK(W.device() == dev);
  CHECK(out.shape() == bp::Shape{2, 1});
  auto w = W.to_vector<float>();
  CHECK(out.to_vector<float>()[0] == Approx(w[0] + w[1] + w[2]));
}

TEST_CASE("from_host_into writes host data into an existing tensor or view") {
  const bp::Device d = bp_test::each_host_device();
  bp::Tensor t = bp::zeros({2, 3}, bp::i32, d);
  const int32_t data[6] = {1, 2, 3, 4, 5, 6};
  int64_t live = bp_live_tensor_count();
  REQUIRE(bp_from_host_into(t.handle(), data, sizeof data) == BP_OK);
  CHECK(bp_live_tensor_count() == live);
  CHECK_THAT(t.to_vector<int32_t>(), Equals(std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  bp::Tensor col = t.T()[1];  // column 1 of t: a strided view
  const int32_t two[2] = {20, 50};
  REQUIRE(bp_from_host_into(col.handle(), two, sizeof two) == BP_OK);
  CHECK_THAT(t.to_vector<int32_t>(), Equals(std::vector<int32_t>{1, 20, 3, 4, 50, 6}));
  CHECK(bp_from_host_into(t.handle(), data, sizeof data - 4) == BP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(bp_last_error()).find("24 bytes") != std::string::npos);
  CHECK(bp_from_host_into(t.handle(), nullptr, sizeof data) == BP_ERR_INVALID_ARGUMENT);
}
