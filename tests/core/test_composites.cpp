// The composites (bp_concatenate, bp_stack, bp_eye, bp_linspace, bp_clip,
// bp_var, bp_std, bp_allclose) through the C API and the C++
// header, on every host device: values, dtypes and the errors that name them.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "runtime_fixture.hpp"

using bp_test::last_error_mentions;

TEST_CASE("concatenate and stack join tensors, promoting dtypes and naming bad shapes") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor a = bp::from_vector<int32_t>({1, 2, 3, 4}, {2, 2}, d);
  const bp::Tensor b = bp::from_vector<float>({5, 6}, {2, 1}, d);
  const bp::Tensor joined = bp::concatenate({a, b}, 1);
  CHECK(joined.dtype() == BP_FLOAT32);
  CHECK(joined.to_vector<float>() == std::vector<float>{1, 2, 5, 3, 4, 6});
  CHECK(bp::concatenate({a, a}, -2).shape() == bp::Shape{4, 2});
  const bp::Tensor stacked = bp::stack({a, a * 10}, 2);
  CHECK(stacked.shape() == bp::Shape{2, 2, 2});
  CHECK(stacked.to_vector<int32_t>() == std::vector<int32_t>{1, 10, 2, 20, 3, 30, 4, 40});
  bp_tensor out = BP_NO_TENSOR;
  const bp_tensor pair[2] = {a.handle(), b.handle()};
  CHECK(bp_concatenate(pair, 2, 0, &out) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("bp_concatenate: input 1 has shape [2, 1]"));
  CHECK(bp_stack(pair, 2, 0, &out) == BP_ERR_SHAPE);
  CHECK(bp_concatenate(pair, 0, 0, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_concatenate(pair, 2, 2, &out) == BP_ERR_SHAPE);
}

TEST_CASE("concatenate of tensors on two devices is a device mismatch naming both") {
  bp_test::each_host_device();
  const bp::Tensor a = bp::zeros({2}, bp::f32, bp::Device("cpu:0"));
  const bp::Tensor b = bp::zeros({2}, bp::f32, bp::Device("reference:0"));
  const bp_tensor pair[2] = {a.handle(), b.handle()};
  bp_tensor out = BP_NO_TENSOR;
  CHECK(bp_concatenate(pair, 2, 0, &out) == BP_ERR_DEVICE_MISMATCH);
  CHECK(last_error_mentions("cpu:0"));
  CHECK(last_error_mentions("reference:0"));
  CHECK(bp_last_error_input() == 1);
}

TEST_CASE("eye, linspace, clip, var, std and allclose") {
  const bp::Device d = bp_test::each_host_device();
  CHECK(bp::eye(2, 3, 1, bp::i32, d).to_vector<int32_t>() == std::vector<int32_t>{0, 1, 0, 0, 0, 1});
  CHECK(bp::eye(2, -1, 0, bp::f64, d).to_vector<double>() == std::vector<double>{1, 0, 0, 1});
  const bp::Tensor l = bp::linspace(0, 1, 5, true, bp::f64, d);
  CHECK(l.to_vector<double>() == std::vector<double>{0, 0.25, 0.5, 0.75, 1});
  CHECK(bp::linspace(0, 1, 4, false, bp::f32, d).to_vector<float>() == std::vector<float>{0, 0.25f, 0.5f, 0.75f});
  // 0.1 * 3 rounds past 0.3; the last value is stop itself.
  CHECK(bp::linspace(0, 0.3, 4, true, bp::f64, d).to_vector<double>().back() == 0.3);
  const bp::Tensor i = bp::from_vector<int32_t>({-5, 0, 7}, {3}, d);
  CHECK(i.clip(-1, 3).to_vector<int32_t>() == std::vector<int32_t>{-1, 0, 3});
  CHECK(i.clip(-INFINITY, 3).dtype() == BP_INT32);
  CHECK(i.clip(-INFINITY, INFINITY).to_vector<int32_t>() == std::vector<int32_t>{-5, 0, 7});
  bp_tensor out = BP_NO_TENSOR;
  CHECK(bp_clip(i.handle(), NAN, 1, &out) == BP_ERR_INVALID_ARGUMENT);
  const bp::Tensor x = bp::from_vector<double>({1, 2, 3, 4}, {2, 2}, d);
  CHECK(x.var().item<double>() == 1.25);
  CHECK(x.var(0, false, 1).to_vector<double>() == std::vector<double>{2, 2});
  CHECK(x.std(1, true).shape() == bp::Shape{2, 1});
  CHECK(x.std(1).to_vector<double>() == std::vector<double>{0.5, 0.5});
  // n - ddof <= 0 divides by 0 (since 1.6, as NumPy and PyTorch): +inf
  // with spread, NaN without; a fractional ddof scales as NumPy's.
  CHECK(x.var(0, false, 2).to_vector<double>() == std::vector<double>{INFINITY, INFINITY});
  CHECK(std::isnan(bp::from_vector<double>({5}, {1}, d).var(0, false, 1).item<double>()));
  CHECK(x.var(BP_AXIS_ALL, false, 0.5).item<double>() == Approx(1.25 * 4 / 3.5));
  CHECK(bp::allclose(x, x + 1e-9));
  CHECK_FALSE(bp::allclose(x, x + 1e-3));
  const bp::Tensor nan = bp::from_vector<double>({NAN, 1}, {2}, d);
  CHECK_FALSE(bp::allclose(nan, nan));
  CHECK(bp::allclose(nan, nan, 1e-5, 1e-8, true));
  CHECK(bp::allclose(bp::from_vector<int64_t>({1, 2}, {2}, d), bp::from_vector<float>({1, 2}, {2}, d)));
}

TEST_CASE("random_integers draws one stream on every backend, from low up to but not including high") {
  const bp::Device d = bp_test::each_host_device();
  const int64_t shape[1] = {1000};
  bp_tensor h = BP_NO_TENSOR;
  REQUIRE(bp_random_integers(d.id(), BP_INT32, 1, shape, -3, 4, 7, &h) == BP_OK);
  const bp::Tensor x = bp::Tensor::adopt(h);
  CHECK(x.dtype() == BP_INT32);
  CHECK(x.min().item<int32_t>() == -3);
  CHECK(x.max().item<int32_t>() == 3);
  // The same seed on the reference gives the same integers.
  REQUIRE(bp_random_integers(bp::Device("reference:0").id(), BP_INT32, 1, shape, -3, 4, 7, &h) == BP_OK);
  CHECK(bp::Tensor::adopt(h).to_vector<int32_t>() == x.to_vector<int32_t>());
  bp_tensor out = BP_NO_TENSOR;
  CHECK(bp_random_integers(d.id(), BP_FLOAT32, 1, shape, 0, 2, 1, &out) == BP_ERR_DTYPE);
  CHECK(bp_random_integers(d.id(), BP_INT64, 1, shape, 2, 2, 1, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(last_error_mentions("bp_random_integers: low (2) must be below high (2)"));
  CHECK(bp_random_integers(d.id(), BP_INT64, 1, shape, 0, int64_t(1) << 60, 1, &out) == BP_ERR_INVALID_ARGUMENT);
  // Bounds beyond 2^53 are exact: every value stays inside the range.
  const int64_t low = (int64_t(1) << 60) + 1;
  REQUIRE(bp_random_integers(d.id(), BP_INT64, 1, shape, low, low + 2, 3, &h) == BP_OK);
  const bp::Tensor big = bp::Tensor::adopt(h);
  CHECK(big.min().item<int64_t>() >= low);
  CHECK(big.max().item<int64_t>() <= low + 1);
  // A range the dtype cannot hold is refused, not wrapped.
  CHECK(bp_random_integers(d.id(), BP_INT32, 1, shape, 0, int64_t(1) << 40, 1, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(last_error_mentions("does not fit int32"));
}
