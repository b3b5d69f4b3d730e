// bp_softmax, bp_log_softmax and their _out forms (the SOFTMAX family, ABI
// 1.6), and the unary predicates bp_unary(ISNAN / ISINF), through the C API
// and the C++ header on every host device: values, the axis moved last,
// dtypes (integers compute in float64), in place, and the errors that name
// the operator.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "runtime_fixture.hpp"

using bp_test::last_error_mentions;

namespace {

// softmax of each row of x [rows, n] in float64.
std::vector<double> expected_softmax(const std::vector<double> &x, size_t n, bool log) {
  std::vector<double> y(x.size());
  for (size_t r = 0; r < x.size() / n; ++r) {
    double m = -INFINITY, s = 0;
    for (size_t j = 0; j < n; ++j) m = std::max(m, x[r * n + j]);
    for (size_t j = 0; j < n; ++j) s += std::exp(x[r * n + j] - m);
    for (size_t j = 0; j < n; ++j) y[r * n + j] = log ? x[r * n + j] - m - std::log(s) : std::exp(x[r * n + j] - m) / s;
  }
  return y;
}

void check_close(const std::vector<double> &got, const std::vector<double> &want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": " << got[i] << " vs " << want[i]);
    CHECK(std::fabs(got[i] - want[i]) <= tol * (1 + std::fabs(want[i])));
  }
}

}  // namespace

TEST_CASE("softmax and log_softmax along each axis, negative axes counting from the end") {
  const bp::Device d = bp_test::each_host_device();
  const std::vector<double> v = {0.5, -1.25, 2.0, 0.75, -0.3, 1.5};
  const bp::Tensor x = bp::from_vector<double>(v, {2, 3}, d);
  check_close(x.softmax(1).to_vector<double>(), expected_softmax(v, 3, false), 1e-15);
  check_close(x.log_softmax(-1).to_vector<double>(), expected_softmax(v, 3, true), 1e-15);
  // Along axis 0: the rows of the transpose.
  const std::vector<double> t = {0.5, 0.75, -1.25, -0.3, 2.0, 1.5};
  const std::vector<double> s0 = x.softmax(0).T().contiguous().to_vector<double>();
  check_close(s0, expected_softmax(t, 2, false), 1e-15);
  check_close(x.log_softmax(-2).T().contiguous().to_vector<double>(), expected_softmax(t, 2, true), 1e-15);
  CHECK(x.softmax(1).shape() == bp::Shape{2, 3});
  CHECK(bp::softmax(x, 1).dtype() == BP_FLOAT64);
}

TEST_CASE("softmax does not overflow near the float maximum and gives PyTorch's special rows") {
  const bp::Device d = bp_test::each_host_device();
  const float big = std::numeric_limits<float>::max(), inf = INFINITY;
  const bp::Tensor x = bp::from_vector<float>({big, big, -inf, -inf, -inf, 0, 1, inf}, {4, 2}, d);
  const std::vector<float> s = x.softmax(1).to_vector<float>();
  CHECK(s[0] == 0.5f);
  CHECK(s[1] == 0.5f);
  CHECK(std::isnan(s[2]));  // nothing but -inf
  CHECK(std::isnan(s[3]));
  CHECK(s[4] == 0);
  CHECK(s[5] == 1);
  CHECK(std::isnan(s[6]));  // a +inf
  CHECK(std::isnan(s[7]));
  const std::vector<float> l = x.log_softmax(1).to_vector<float>();
  CHECK(l[4] == -inf);
  CHECK(l[5] == 0);
}

TEST_CASE("a rank-0 tensor is one row of one element, an empty axis gives an empty result") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor s = bp::from_vector<double>({3.5}, {}, d);
  CHECK(s.softmax(0).shape() == bp::Shape{});
  CHECK(s.softmax(0).item<double>() == 1);
  CHECK(s.log_softmax(-1).item<double>() == 0);
  const bp::Tensor e = bp::zeros({3, 0}, bp::f32, d);
  CHECK(e.softmax(1).shape() == bp::Shape{3, 0});
  CHECK(e.log_softmax(0).shape() == bp::Shape{3, 0});
}

TEST_CASE("integer and bool inputs compute in float64, as exp does") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor i = bp::from_vector<int32_t>({0, 0, 1, 1}, {2, 2}, d);
  const bp::Tensor s = i.softmax(1);  // rows of equal values
  CHECK(s.dtype() == BP_FLOAT64);
  CHECK(s.to_vector<double>() == std::vector<double>{0.5, 0.5, 0.5, 0.5});
  const bp::Tensor b = bp::from_vector<bool>({true, false}, {2}, d);
  check_close(b.log_softmax().to_vector<double>(), expected_softmax({1, 0}, 2, true), 1e-15);
}

TEST_CASE("the _out forms write into a tensor of the result's shape and dtype, or in place") {
  const bp::Device d = bp_test::each_host_device();
  const std::vector<double> v = {1, 2, 3, 4, 5, 7};
  const bp::Tensor x = bp::from_vector<double>(v, {2, 3}, d);
  bp::Tensor out = bp::zeros({2, 3}, bp::f64, d);
  REQUIRE(bp_softmax_out(x.handle(), 1, out.handle()) == BP_OK);
  check_close(out.to_vector<double>(), expected_softmax(v, 3, false), 1e-15);
  REQUIRE(bp_log_softmax_out(x.handle(), -1, out.handle()) == BP_OK);
  check_close(out.to_vector<double>(), expected_softmax(v, 3, true), 1e-15);
  // In place: the output is the input.
  bp::Tensor y = bp::from_vector<double>(v, {2, 3}, d);
  REQUIRE(bp_softmax_out(y.handle(), 1, y.handle()) == BP_OK);
  check_close(y.to_vector<double>(), expected_softmax(v, 3, false), 1e-15);
  // A view of the input that is not the input itself overlaps it.
  const bp::Tensor z = bp::from_vector<double>({1, 2, 3, 4}, {4}, d);
  const bp::Tensor head = z.slice(0, 0, 2), tail = z.slice(0, 1, 3);
  CHECK(bp_softmax_out(head.handle(), 0, tail.handle()) == BP_ERR_INVALID_ARGUMENT);
  CHECK(last_error_mentions("softmax: the output overlaps input 0"));
  CHECK(bp_softmax_out(x.handle(), 1, bp::zeros({2, 3}, bp::f32, d).handle()) == BP_ERR_DTYPE);
  CHECK(bp_log_softmax_out(x.handle(), 1, bp::zeros({3, 2}, bp::f64, d).handle()) == BP_ERR_SHAPE);
}

TEST_CASE("a bad axis is BP_ERR_SHAPE naming the operator, and bad handles name it too") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::zeros({2, 3}, bp::f32, d);
  bp_tensor out = BP_NO_TENSOR;
  CHECK(bp_softmax(x.handle(), 2, &out) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("softmax: axis 2 is out of range for a tensor of rank 2"));
  CHECK(std::string(bp_last_error_op()) == "softmax");
  CHECK(bp_log_softmax(x.handle(), -3, &out) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("log_softmax: axis -3"));
  CHECK(bp_softmax(bp::from_vector<float>({1}, {}, d).handle(), 1, &out) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("axes -1 and 0"));
  CHECK(bp_log_softmax(BP_NO_TENSOR, 0, &out) == BP_ERR_INVALID_HANDLE);
  CHECK(last_error_mentions("log_softmax: input 0 is a null tensor handle"));
  CHECK(bp_softmax(x.handle(), 0, nullptr) == BP_ERR_INVALID_ARGUMENT);
}

TEST_CASE("softmax with its output on another device is a device mismatch naming both") {
  bp_test::each_host_device();
  const bp::Tensor a = bp::zeros({2}, bp::f32, bp::Device("cpu:0"));
  const bp::Tensor o = bp::zeros({2}, bp::f32, bp::Device("reference:0"));
  CHECK(bp_softmax_out(a.handle(), 0, o.handle()) == BP_ERR_DEVICE_MISMATCH);
  CHECK(last_error_mentions("softmax"));
  CHECK(last_error_mentions("reference:0"));
}

TEST_CASE("isnan and isinf give bool, and integers are never NaN nor infinite") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::from_vector<float>({0, -INFINITY, NAN, 3, INFINITY}, {5}, d);
  CHECK(x.isnan().dtype() == BP_BOOL);
  CHECK(x.isnan().to_vector<bool>() == std::vector<bool>{false, false, true, false, false});
  CHECK(x.isinf().to_vector<bool>() == std::vector<bool>{false, true, false, false, true});
  const bp::Tensor h = x.astype(BP_FLOAT16);
  CHECK(h.isinf().to_vector<bool>() == std::vector<bool>{false, true, false, false, true});
  const bp::Tensor i = bp::from_vector<int64_t>({std::numeric_limits<int64_t>::max(), 0}, {2}, d);
  CHECK(i.isnan().to_vector<bool>() == std::vector<bool>{false, false});
  CHECK(i.isinf().to_vector<bool>() == std::vector<bool>{false, false});
  // Not differentiable: a bool result records nothing.
  const bp::Tensor g = bp::from_vector<double>({1, 2}, {2}, d).requires_grad_();
  CHECK_FALSE(g.isnan().requires_grad());
}
