// Creating tensors on a device and reading them back, on both host backends.
#include <catch2/catch.hpp>

#include <cmath>

#include "runtime_fixture.hpp"

using bp_test::start;
using Catch::Matchers::Equals;

TEST_CASE("zeros, ones, full, arange and from_vector hold the right values") {
  const bp::Device d = bp_test::each_host_device();
  CHECK_THAT(bp::zeros({2, 2}, bp::f32, d).to_vector<float>(), Equals(std::vector<float>{0, 0, 0, 0}));
  CHECK_THAT(bp::ones({3}, bp::i64, d).to_vector<int64_t>(), Equals(std::vector<int64_t>{1, 1, 1}));
  CHECK_THAT(bp::full({2}, 2.5, bp::f64, d).to_vector<double>(), Equals(std::vector<double>{2.5, 2.5}));
  CHECK_THAT(bp::full({2}, 3.0, bp::boolean, d).to_vector<bool>(), Equals(std::vector<bool>{true, true}));
  CHECK_THAT(bp::arange(0, 5, 1, bp::i32, d).to_vector<int32_t>(),
             Equals(std::vector<int32_t>{0, 1, 2, 3, 4}));
  CHECK_THAT(bp::arange(1, 0, -0.25, bp::f64, d).to_vector<double>(),
             Equals(std::vector<double>{1, 0.75, 0.5, 0.25}));
  CHECK(bp::arange(3, 3, 1, bp::f32, d).numel() == 0);
  auto t = bp::from_vector<int64_t>({1, 2, 3, 4, 5, 6}, {2, 3}, d);
  CHECK(t.shape() == bp::Shape{2, 3});
  CHECK(t.device() == d);
  CHECK(t.dtype() == BP_INT64);
  CHECK_THAT(t.to_vector<int64_t>(), Equals(std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
}

TEST_CASE("rank-0 and empty tensors") {
  const bp::Device d = bp_test::each_host_device();
  bp::Tensor s = bp::full({}, 7, bp::i32, d);
  CHECK(s.rank() == 0);
  CHECK(s.numel() == 1);
  CHECK(s.item() == 7);
  bp::Tensor e = bp::zeros({0, 3}, bp::f32, d);
  CHECK(e.numel() == 0);
  CHECK(e.to_vector<float>().empty());
  CHECK((e + e).shape() == bp::Shape{0, 3});
  CHECK(e.sum().item() == 0);
}

TEST_CASE("random tensors are reproducible from the seed and identical across backends") {
  start(bp_test::kHostOnly);
  bp::Tensor a = bp::random_uniform({1000}, -1, 1, 42, bp::f32, bp::cpu());
  bp::Tensor b = bp::random_uniform({1000}, -1, 1, 42, bp::f32, bp::Device("reference"));
  bp::Tensor c = bp::random_uniform({1000}, -1, 1, 43, bp::f32, bp::cpu());
  auto va = a.to_vector<float>(), vb = b.to_vector<float>(), vc = c.to_vector<float>();
  CHECK_THAT(va, Equals(vb));
  CHECK(va != vc);
  for (float x : va) REQUIRE((x >= -1 && x < 1));
  bp::Tensor n = bp::random_normal({20000}, 2.0, 0.5, 7, bp::f64, bp::cpu());
  CHECK(n.mean().item() == Approx(2.0).margin(0.02));
  bp::Tensor centered = n - 2.0;
  CHECK((centered * centered).mean().item() == Approx(0.25).margin(0.02));
  auto n2 = bp::random_normal({20000}, 2.0, 0.5, 7, bp::f64, bp::Device("reference")).to_vector<double>();
  auto n1 = n.to_vector<double>();
  for (size_t i = 0; i < n1.size(); ++i) REQUIRE(n1[i] == Approx(n2[i]).epsilon(1e-12));
}

TEST_CASE("bad creation arguments are errors that leave the out-pointer alone") {
  start(bp_test::kHostOnly);
  bp_device cpu;
  REQUIRE(bp_cpu(&cpu) == BP_OK);
  bp_tensor t = BP_NO_TENSOR;
  int64_t shape[2] = {2, -1};
  CHECK(bp_empty(cpu, BP_FLOAT32, 2, shape, &t) == BP_ERR_SHAPE);
  CHECK(std::string(bp_last_error()).find("negative extent") != std::string::npos);
  CHECK(bp_empty(cpu, BP_FLOAT32, 9, shape, &t) == BP_ERR_SHAPE);
  CHECK(bp_empty(cpu, 42, 1, shape, &t) == BP_ERR_DTYPE);
  CHECK(bp_empty(cpu, BP_FLOAT32, 1, nullptr, &t) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_empty(cpu, BP_FLOAT32, 1, shape, nullptr) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_empty(99, BP_FLOAT32, 1, shape, &t) == BP_ERR_INVALID_HANDLE);
  CHECK(bp_arange(cpu, BP_FLOAT32, 0, 1, 0, &t) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_random_uniform(cpu, BP_INT32, 1, shape, 0, 1, 1, &t) == BP_ERR_DTYPE);
  int64_t huge[2] = {int64_t(1) << 40, int64_t(1) << 20};
  CHECK(bp_empty(cpu, BP_FLOAT64, 2, huge, &t) == BP_ERR_SHAPE);  // as bp_reshape says
  CHECK(std::string(bp_last_error()).find("shape [1099511627776, 1048576] has more than 2^56 elements") != std::string::npos);
  int64_t big[1] = {int64_t(1) << 50};
  CHECK(bp_empty(cpu, BP_FLOAT64, 1, big, &t) == BP_ERR_OUT_OF_MEMORY);
  CHECK(std::string(bp_last_error()).find("cpu:0") != std::string::npos);
  CHECK(t == BP_NO_TENSOR);
  CHECK(bp_live_tensor_count() == 0);
}

TEST_CASE("to_host checks the byte count and handles every dtype") {
  start(bp_test::kHostOnly);
  bp::Tensor t = bp::ones({4}, bp::f64, bp::cpu());
  double buf[4];
  CHECK(bp_to_host(t.handle(), buf, sizeof buf - 1) == BP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(bp_last_error()).find("32 bytes") != std::string::npos);
  CHECK(bp_to_host(t.handle(), nullptr, sizeof buf) == BP_ERR_INVALID_ARGUMENT);
  REQUIRE(bp_to_host(t.handle(), buf, sizeof buf) == BP_OK);
  CHECK(buf[3] == 1.0);
  CHECK(bp::ones({2}, bp::boolean, bp::cpu()).to_vector<bool>() == std::vector<bool>{true, true});
}

TEST_CASE("handles are reference counted and freed with their last reference") {
  start(bp_test::kHostOnly);
  int64_t before = bp_live_tensor_count();
  {
    bp::Tensor a = bp::ones({8}, bp::f32, bp::cpu());
    bp::Tensor view = a.slice(0, 2, 6);
    CHECK(bp_live_tensor_count() == before + 2);
    bp::Tensor copy = a;  // retain
    CHECK(bp_live_tensor_count() == before + 2);
  }
  CHECK(bp_live_tensor_count() == before);
}
