// floor_divide, remainder, square, sin, cos, prod and argmin through the C
// API and the C++ header: the dtype the core converts to, the result dtype,
// the operators % and floor_divide, and the empty-set rules of the core.
#include <catch2/catch.hpp>

#include <vector>

#include "runtime_fixture.hpp"

TEST_CASE("floor_divide and remainder are Python's // and %, with scalars on either side") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor a = bp::from_vector<int64_t>({7, -7, 7, -7}, {4}, d);
  const bp::Tensor b = bp::from_vector<int64_t>({2, 2, -2, -2}, {4}, d);
  CHECK(bp::floor_divide(a, b).to_vector<int64_t>() == std::vector<int64_t>{3, -4, -4, 3});
  CHECK((a % b).to_vector<int64_t>() == std::vector<int64_t>{1, 1, -1, -1});
  CHECK((-7 % b).to_vector<int64_t>() == std::vector<int64_t>{1, 1, -1, -1});
  // A float scalar with integers computes in float64, as for every operator.
  const bp::Tensor f = a % 2.5;
  CHECK(f.dtype() == BP_FLOAT64);
  CHECK(f.to_vector<double>() == std::vector<double>{2.0, 0.5, 2.0, 0.5});
}

TEST_CASE("square keeps the dtype, sin and cos convert integers to float64") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor i = bp::from_vector<int32_t>({-3, 4}, {2}, d);
  CHECK(i.square().dtype() == BP_INT32);
  CHECK(i.square().to_vector<int32_t>() == std::vector<int32_t>{9, 16});
  CHECK(i.sin().dtype() == BP_FLOAT64);
  CHECK(bp::zeros({2}, bp::i64, d).cos().to_vector<double>() == std::vector<double>{1.0, 1.0});
  // Bool is numeric for SQUARE after the core's conversion to int32.
  CHECK(bp::ones({2}, bp::boolean, d).square().dtype() == BP_INT32);
}

TEST_CASE("prod of integers and bool is int64, of floats the same dtype, of nothing 1") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor i = bp::from_vector<int32_t>({65536, 65536, 3}, {3}, d);
  CHECK(i.prod().dtype() == BP_INT64);
  CHECK(i.prod().item<int64_t>() == (int64_t(3) << 32));
  CHECK(bp::ones({3}, bp::boolean, d).prod().item<int64_t>() == 1);
  const bp::Tensor f = bp::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, d);
  CHECK(f.prod(1).to_vector<float>() == std::vector<float>{6, 120});
  CHECK(bp::zeros({0, 3}, bp::f32, d).prod(0).to_vector<float>() == std::vector<float>{1, 1, 1});
}

TEST_CASE("argmin gives the first minimum, and an empty set is a shape error naming it") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::from_vector<float>({3, 1, 1, 7, -5, -5}, {2, 3}, d);
  CHECK(x.argmin().item<int64_t>() == 4);
  CHECK(x.argmin(1).to_vector<int64_t>() == std::vector<int64_t>{1, 1});
  bp_tensor out = BP_NO_TENSOR;
  CHECK(bp_reduce(BP_OP_ARGMIN, bp::zeros({0}, bp::f32, d).handle(), BP_AXIS_ALL, 0, &out) == BP_ERR_SHAPE);
  CHECK(std::string(bp_last_error()).find("argmin") != std::string::npos);
}
