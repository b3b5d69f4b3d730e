// The normalisations of backplane.h (since 1.6) through the C API and the
// C++ header on every host device: bp_var_axes, bp_layer_norm and
// bp_rms_norm (the normalised trailing axes flattened, by a view or a copy
// of a strided x, the statistics' shapes and dtypes), bp_group_norm and
// bp_batch_norm (training with its running statistics, evaluation), against
// float64 values computed here; and the errors that name the function.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "runtime_fixture.hpp"

using bp_test::last_error_mentions;

namespace {

// Rows of `n` in C order: (x - mean) / sqrt(var + eps) * w + b (biased var).
std::vector<double> layer_norm_rows(const std::vector<double> &x, size_t n, const std::vector<double> &w,
                                    const std::vector<double> &b, double eps, std::vector<double> *means = nullptr,
                                    std::vector<double> *rstds = nullptr) {
  std::vector<double> y(x.size());
  for (size_t r = 0; r * n < x.size(); ++r) {
    double mean = 0, var = 0;
    for (size_t j = 0; j < n; ++j) mean += x[r * n + j];
    mean /= double(n);
    for (size_t j = 0; j < n; ++j) var += (x[r * n + j] - mean) * (x[r * n + j] - mean);
    const double rstd = 1 / std::sqrt(var / double(n) + eps);
    for (size_t j = 0; j < n; ++j)
      y[r * n + j] = (x[r * n + j] - mean) * rstd * (w.empty() ? 1 : w[j]) + (b.empty() ? 0 : b[j]);
    if (means) means->push_back(mean);
    if (rstds) rstds->push_back(rstd);
  }
  return y;
}

void check_near(const std::vector<double> &got, const std::vector<double> &want, double tol = 1e-12) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": " << got[i] << " vs " << want[i]);
    CHECK(std::abs(got[i] - want[i]) <= tol * (1 + std::abs(want[i])));
  }
}

const std::vector<double> kX = {0.5, -1.25, 2.0, 0.75, -0.3, 1.5, 0.2, -0.7, 1.1, 0.9, -2.0, 0.4,
                                3.0, 1.0,   -1.5, 2.5, 0.1,  0.0, 1.2, 1.4,  -0.6, 0.8, 2.2, -1.0};

// The statistics of a reduction over the first and last axes of kX viewed
// as [outer, middle, inner], at middle index m: the mean of its values, and
// the sum of their squared deviations from it.
struct Moments {
  double mean = 0, m2 = 0;
};
Moments moments_at(int outer, int middle, int inner, int m) {
  std::vector<double> v;
  for (int a = 0; a < outer; ++a)
    for (int c = 0; c < inner; ++c) v.push_back(kX[size_t((a * middle + m) * inner + c)]);
  Moments s;
  for (double e : v) s.mean += e / double(v.size());
  for (double e : v) s.m2 += (e - s.mean) * (e - s.mean);
  return s;
}

}  // namespace

TEST_CASE("layer_norm over the last axes, with the statistics PyTorch's native_layer_norm returns") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::from_vector<double>(kX, {2, 3, 4}, d);
  const std::vector<double> w = {1.5, -0.5, 0.8, 1.2, 0.3, -1.1, 2.0, 0.5, 1.0, -0.2, 0.7, 0.9};
  const std::vector<double> b = {0.1, -0.2, 0.3, 0.0, 0.5, -0.4, 0.2, 0.1, -0.3, 0.6, 0.0, 0.25};
  const bp::Tensor wt = bp::from_vector<double>(w, {3, 4}, d), bt = bp::from_vector<double>(b, {3, 4}, d);
  bp_tensor y = BP_NO_TENSOR, mean = BP_NO_TENSOR, rstd = BP_NO_TENSOR;
  REQUIRE(bp_layer_norm(x.handle(), wt.handle(), bt.handle(), 2, 1e-5, &y, &mean, &rstd) == BP_OK);
  const bp::Tensor Y = bp::Tensor::adopt(y), M = bp::Tensor::adopt(mean), R = bp::Tensor::adopt(rstd);
  std::vector<double> means, rstds;
  check_near(Y.to_vector<double>(), layer_norm_rows(kX, 12, w, b, 1e-5, &means, &rstds));
  CHECK(Y.shape() == bp::Shape{2, 3, 4});
  CHECK(M.shape() == bp::Shape{2, 1, 1});
  CHECK(R.dtype() == BP_FLOAT64);
  check_near(M.to_vector<double>(), means);
  check_near(R.to_vector<double>(), rstds);
  // One axis, no affine; a transposed x is copied before its rows are read.
  check_near(bp::layer_norm(x, 1).to_vector<double>(), layer_norm_rows(kX, 4, {}, {}, 1e-5));
  const bp::Tensor xt = bp::from_vector<double>(kX, {4, 6}, d).T();
  std::vector<double> dense;
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 4; ++j) dense.push_back(kX[size_t(j * 6 + i)]);
  check_near(bp::layer_norm(xt, 1).to_vector<double>(), layer_norm_rows(dense, 4, {}, {}, 1e-5));
  // float32 statistics for float16 and float32 input; y keeps x's dtype.
  const bp::Tensor h = x.astype(BP_FLOAT16);
  bp_tensor hy = BP_NO_TENSOR, hm = BP_NO_TENSOR;
  REQUIRE(bp_layer_norm(h.handle(), 0, 0, 1, 1e-5, &hy, &hm, nullptr) == BP_OK);
  CHECK(bp::Tensor::adopt(hy).dtype() == BP_FLOAT16);
  CHECK(bp::Tensor::adopt(hm).dtype() == BP_FLOAT32);
  // Integers compute in float64, as MEAN does.
  CHECK(bp::layer_norm(bp::from_vector<int32_t>({1, 2, 3, 4}, {1, 4}, d), 1).dtype() == BP_FLOAT64);
}

TEST_CASE("rms_norm divides by the root mean square, its rstd only on request") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::from_vector<double>(kX, {6, 4}, d);
  const std::vector<double> w = {1.5, -0.5, 0.8, 1.2};
  bp_tensor y = BP_NO_TENSOR, rstd = BP_NO_TENSOR;
  REQUIRE(bp_rms_norm(x.handle(), bp::from_vector<double>(w, {4}, d).handle(), 0, 1, 1e-6, &y, &rstd) == BP_OK);
  const bp::Tensor Y = bp::Tensor::adopt(y), R = bp::Tensor::adopt(rstd);
  std::vector<double> want, rs;
  for (size_t r = 0; r < 6; ++r) {
    double sq = 0;
    for (size_t j = 0; j < 4; ++j) sq += kX[r * 4 + j] * kX[r * 4 + j];
    rs.push_back(1 / std::sqrt(sq / 4 + 1e-6));
    for (size_t j = 0; j < 4; ++j) want.push_back(kX[r * 4 + j] * rs.back() * w[j]);
  }
  check_near(Y.to_vector<double>(), want);
  check_near(R.to_vector<double>(), rs);
  CHECK(R.shape() == bp::Shape{6, 1});
}

TEST_CASE("var over a set of axes at once, with a correction") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::from_vector<double>(kX, {2, 3, 4}, d);
  // Over axes 0 and 2: each of the 3 middle indices pools 8 values.
  std::vector<double> want;
  for (int m = 0; m < 3; ++m) want.push_back(moments_at(2, 3, 4, m).m2 / 7);
  check_near(bp::var(x, {0, -1}, 1).to_vector<double>(), want);
  CHECK(bp::var(x, {2, 0}, 1, true).shape() == bp::Shape{1, 3, 1});
  const int32_t twice[2] = {1, -2};
  bp_tensor out = BP_NO_TENSOR;
  CHECK(bp_var_axes(x.handle(), twice, 2, 0, 1, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(last_error_mentions("bp_var_axes: axis -2 is given twice"));
  const int32_t far[1] = {3};
  CHECK(bp_var_axes(x.handle(), far, 1, 0, 1, &out) == BP_ERR_SHAPE);
  const int32_t one[1] = {0};
  CHECK(bp_var_axes(x.handle(), one, 1, 0, 0.5, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(last_error_mentions("correction must be a non-negative integer"));
  CHECK(bp_var_axes(x.handle(), one, 1, 0, -1, &out) == BP_ERR_INVALID_ARGUMENT);
  // bp_reduce(VAR) is the population variance; integers give float64.
  const bp::Tensor i = bp::from_vector<int32_t>({1, 2, 3, 4}, {4}, d);
  const bp::Tensor v = i.reduce(BP_OP_VAR, 0);
  CHECK(v.dtype() == BP_FLOAT64);
  CHECK(v.item<double>() == 1.25);
}

TEST_CASE("group_norm normalises each group of channels of each sample") {
  const bp::Device d = bp_test::each_host_device();
  // [N 2, C 4, L 3]: 2 groups of 2 channels, 6 values each.
  const bp::Tensor x = bp::from_vector<double>(kX, {2, 4, 3}, d);
  const std::vector<double> w = {1.5, -0.5, 0.8, 1.2}, b = {0.1, -0.2, 0.3, 0.0};
  std::vector<double> want = layer_norm_rows(kX, 6, {}, {}, 1e-5);
  for (size_t k = 0; k < want.size(); ++k) {
    const size_t c = (k / 3) % 4;
    want[k] = want[k] * w[c] + b[c];
  }
  check_near(bp::group_norm(x, 2, bp::from_vector<double>(w, {4}, d), bp::from_vector<double>(b, {4}, d))
                 .to_vector<double>(),
             want);
  bp_tensor out = BP_NO_TENSOR;
  CHECK(bp_group_norm(x.handle(), 3, 0, 0, 1e-5, &out) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("bp_group_norm: 3 groups do not divide the 4 channels"));
  CHECK(bp_group_norm(bp::zeros({4}, bp::f32, d).handle(), 1, 0, 0, 1e-5, &out) == BP_ERR_SHAPE);
  CHECK(bp_group_norm(x.handle(), 2, bp::zeros({3}, bp::f64, d).handle(), 0, 1e-5, &out) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("the weight has shape [3], not [4]"));
}

TEST_CASE("batch_norm trains with the batch's statistics and moves the running ones as PyTorch does") {
  const bp::Device d = bp_test::each_host_device();
  // [N 3, C 2, L 4]: each channel pools 12 values.
  const bp::Tensor x = bp::from_vector<double>(kX, {3, 2, 4}, d);
  const bp::Tensor rm = bp::zeros({2}, bp::f64, d), rv = bp::ones({2}, bp::f64, d);
  const bp::Tensor y = bp::batch_norm(x, rm, rv, {}, {}, true, 0.1, 1e-5);
  std::vector<double> means, vars;
  for (int c = 0; c < 2; ++c) {
    const Moments s = moments_at(3, 2, 4, c);
    means.push_back(s.mean);
    vars.push_back(s.m2 / 12);
  }
  std::vector<double> want(kX.size());
  for (size_t k = 0; k < kX.size(); ++k) {
    const size_t c = (k / 4) % 2;
    want[k] = (kX[k] - means[c]) / std::sqrt(vars[c] + 1e-5);
  }
  check_near(y.to_vector<double>(), want);
  // running = 0.9 running + 0.1 batch, with the unbiased batch variance.
  check_near(rm.to_vector<double>(), {0.1 * means[0], 0.1 * means[1]});
  check_near(rv.to_vector<double>(), {0.9 + 0.1 * vars[0] * 12 / 11, 0.9 + 0.1 * vars[1] * 12 / 11});
  // Evaluation normalises with the running statistics and leaves them alone.
  const std::vector<double> rm_now = rm.to_vector<double>(), rv_now = rv.to_vector<double>();
  const bp::Tensor e = bp::batch_norm(x, rm, rv, {}, {}, false);
  for (size_t k = 0; k < kX.size(); ++k) {
    const size_t c = (k / 4) % 2;
    want[k] = (kX[k] - rm_now[c]) / std::sqrt(rv_now[c] + 1e-5);
  }
  check_near(e.to_vector<double>(), want);
  check_near(rm.to_vector<double>(), rm_now);
  bp_tensor out = BP_NO_TENSOR;
  CHECK(bp_batch_norm(x.handle(), 0, 0, 0, 0, 0, 0.1, 1e-5, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(last_error_mentions("evaluation (training 0) needs running_mean and running_var"));
  CHECK(bp_batch_norm(x.handle(), rm.handle(), 0, 0, 0, 1, 0.1, 1e-5, &out) == BP_ERR_INVALID_ARGUMENT);
  const bp::Tensor single = bp::zeros({1, 2}, bp::f64, d);
  CHECK(bp_batch_norm(single.handle(), 0, 0, 0, 0, 1, 0.1, 1e-5, &out) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("more than one value per channel"));
}

TEST_CASE("the normalisations refuse bad axes, eps, shapes, handles and devices, naming the function") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::from_vector<double>(kX, {2, 3, 4}, d);
  bp_tensor out = BP_NO_TENSOR;
  CHECK(bp_layer_norm(x.handle(), 0, 0, 0, 1e-5, &out, nullptr, nullptr) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("bp_layer_norm: normalises the last 0 axes of x [2, 3, 4] (1..3 allowed)"));
  CHECK(bp_layer_norm(x.handle(), 0, 0, 4, 1e-5, &out, nullptr, nullptr) == BP_ERR_SHAPE);
  CHECK(bp_layer_norm(x.handle(), 0, 0, 1, -1, &out, nullptr, nullptr) == BP_ERR_INVALID_ARGUMENT);
  CHECK(last_error_mentions("bp_layer_norm: eps is -1; it must be finite and >= 0"));
  CHECK(bp_rms_norm(x.handle(), 0, 0, 1, NAN, &out, nullptr) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_layer_norm(x.handle(), 0, 0, 1, INFINITY, &out, nullptr, nullptr) == BP_ERR_INVALID_ARGUMENT);
  const bp::Tensor w = bp::ones({3}, bp::f64, d);
  CHECK(bp_layer_norm(x.handle(), w.handle(), 0, 1, 1e-5, &out, nullptr, nullptr) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("bp_layer_norm: the weight has shape [3], not the normalised shape [4]"));
  CHECK(bp_last_error_input() == 1);
  CHECK(bp_layer_norm(x.handle(), 0, w.handle(), 1, 1e-5, &out, nullptr, nullptr) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("the bias"));
  CHECK(bp_layer_norm(0, 0, 0, 1, 1e-5, &out, nullptr, nullptr) == BP_ERR_INVALID_HANDLE);
  CHECK(last_error_mentions("bp_layer_norm: x is a null tensor handle"));
  CHECK(bp_layer_norm(x.handle(), 0, 0, 1, 1e-5, nullptr, nullptr, nullptr) == BP_ERR_INVALID_ARGUMENT);
  const bp::Tensor elsewhere = bp::ones({4}, bp::f64, bp::Device(d.name() == "cpu:0" ? "reference:0" : "cpu:0"));
  CHECK(bp_layer_norm(x.handle(), elsewhere.handle(), 0, 1, 1e-5, &out, nullptr, nullptr) == BP_ERR_DEVICE_MISMATCH);
  CHECK(last_error_mentions("cpu:0"));
  CHECK(last_error_mentions("reference:0"));
}

TEST_CASE("layer_norm's y records for x, weight and bias, its mean and rstd record nothing") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::from_vector<double>(kX, {6, 4}, d).requires_grad_();
  const bp::Tensor w = bp::ones({4}, bp::f64, d).requires_grad_();
  bp_tensor y = BP_NO_TENSOR, mean = BP_NO_TENSOR, rstd = BP_NO_TENSOR;
  REQUIRE(bp_layer_norm(x.handle(), w.handle(), 0, 1, 1e-5, &y, &mean, &rstd) == BP_OK);
  const bp::Tensor Y = bp::Tensor::adopt(y), M = bp::Tensor::adopt(mean), R = bp::Tensor::adopt(rstd);
  CHECK(Y.requires_grad());
  CHECK_FALSE(M.requires_grad());
  CHECK_FALSE(R.requires_grad());
  (Y * Y).sum().backward();
  CHECK(x.grad().defined());
  CHECK(w.grad().defined());
}

TEST_CASE("bp_var and bp_std keep working on a plugin older than VAR, as the same two passes") {
  // The Eigen-like plugin of the compatibility suite: ABI 1.0, the 1.0 operators only.
  bp_test::start(bp_test::with_plugins_in(BP_TEST_EIGENLIKE_PLUGIN_DIR));
  const bp::Device d("eigenlike:0");
  const bp::Tensor x = bp::from_vector<double>({1, 2, 3, 4}, {2, 2}, d).requires_grad_();
  CHECK(x.var().item<double>() == 1.25);
  CHECK(x.var(0, false, 1).to_vector<double>() == std::vector<double>{2, 2});
  CHECK(x.std(1).to_vector<double>() == std::vector<double>{0.5, 0.5});
  CHECK(bp::var(x, {0, 1}, 1).item<double>() == Approx(5.0 / 3));
  CHECK(x.var(0, false, 2).to_vector<double>() == std::vector<double>{INFINITY, INFINITY});
  x.var().backward();  // d var / dx = 2 (x - mean) / n
  CHECK(x.grad().to_vector<double>() == std::vector<double>{-0.75, -0.25, 0.25, 0.75});
  // The operator itself is one the plugin was never asked about.
  bp_tensor out = BP_NO_TENSOR;
  CHECK(bp_reduce(BP_OP_VAR, x.handle(), 0, 0, &out) == BP_ERR_UNSUPPORTED);
  CHECK(last_error_mentions("eigenlike"));
}
