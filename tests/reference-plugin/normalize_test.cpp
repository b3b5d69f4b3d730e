// VAR, LAYER_NORM and RMS_NORM (plugin.h): known values for every float
// dtype, the correction and n - correction <= 0, statistics of rows far from
// 0 (no cancellation), absent weight, bias and statistics, empty and
// constant rows, NaN, and the calls the SDK refuses. The reference is the
// oracle: these values are the specification.
#include <cmath>
#include <cstring>
#include <limits>

#include "backplane/half.h"
#include "reference_test.hpp"

using namespace ref_test;

namespace {

bp_plugin_tensor absent() {
  bp_plugin_tensor t;
  std::memset(&t, 0, sizeof t);
  return t;
}

bp_status run_normalize(Reference &ref, int32_t op, double eps, const std::vector<bp_plugin_tensor> &in,
                        const std::vector<bp_plugin_tensor> &out) {
  bp_op_attrs a = attrs_with(eps);
  return ref.api().execute(0, op, &a, in.data(), 3, out.data());
}

std::vector<double> var_of(Reference &ref, const bp_plugin_tensor &x, const Shape &out_shape, double correction,
                           bp_dtype dtype = BP_FLOAT64) {
  bp_plugin_tensor out = ref.empty(dtype, out_shape);
  ref.exec(BP_OP_VAR, {x}, out, attrs_with(correction));
  std::vector<double> r;
  if (dtype == BP_FLOAT64) return ref.values<double>(out);
  for (float v : ref.values<float>(out)) r.push_back(v);
  return r;
}

// The layer norm of one row in float64, as plugin.h defines it.
std::vector<double> layer_row(const std::vector<double> &x, const std::vector<double> &w,
                              const std::vector<double> &b, double eps, double *mean_out, double *rstd_out) {
  double mean = 0, var = 0;
  for (double v : x) mean += v;
  mean /= double(x.size());
  for (double v : x) var += (v - mean) * (v - mean);
  var /= double(x.size());
  const double rstd = 1 / std::sqrt(var + eps);
  std::vector<double> y;
  for (size_t j = 0; j < x.size(); ++j) y.push_back((x[j] - mean) * rstd * w[j] + b[j]);
  *mean_out = mean;
  *rstd_out = rstd;
  return y;
}

}  // namespace

TEST_CASE("var divides the squared deviations by n - correction", "[reduce][var]") {
  Reference ref;
  bp_plugin_tensor x = ref.tensor<double>({2, 4}, {1, 2, 3, 4, 2, 2, 2, 10});
  check_close(var_of(ref, x, {2, 1}, 0), {1.25, 12.0}, 1e-15);
  check_close(var_of(ref, x, {2, 1}, 1), {5.0 / 3, 16.0}, 1e-15);
  check_close(var_of(ref, x, {1, 4}, 1), {0.5, 0, 0.5, 18}, 1e-15);
  check_close(var_of(ref, x, {1, 1}, 0), {7.1875}, 1e-15);
  // n - correction <= 0 divides by 0: +inf with spread, NaN without (PyTorch's).
  check_close(var_of(ref, x, {2, 1}, 4), {kInf, kInf}, 0);
  check_close(var_of(ref, x, {2, 1}, 9), {kInf, kInf}, 0);
  bp_plugin_tensor one = ref.tensor<double>({1, 3}, {5, 6, 7});
  check_close(var_of(ref, one, {1, 3}, 1), {kNaN, kNaN, kNaN}, 0);
  bp_plugin_tensor none = dense_view(nullptr, BP_FLOAT64, {0, 2});
  check_close(var_of(ref, none, {1, 2}, 0), {kNaN, kNaN}, 0);
}

TEST_CASE("var is stable far from 0 and gives NaN for NaN or an infinity", "[reduce][var]") {
  Reference ref;
  // 1e9 + {1, 2, 3, 4}: sum(x^2) - sum(x)^2 / n loses every bit here in float64.
  bp_plugin_tensor far = ref.tensor<double>({4}, {1e9 + 1, 1e9 + 2, 1e9 + 3, 1e9 + 4});
  check_close(var_of(ref, far, {1}, 0), {1.25}, 1e-15);
  bp_plugin_tensor far32 = ref.tensor<float>({4}, {10001, 10002, 10003, 10004});
  check_close(var_of(ref, far32, {1}, 1, BP_FLOAT32), {5.0 / 3}, 1e-7);
  const double inf = std::numeric_limits<double>::infinity();
  bp_plugin_tensor special = ref.tensor<double>({3, 2}, {1, kNaN, inf, 1, inf, inf});
  check_close(var_of(ref, special, {3, 1}, 0), {kNaN, kNaN, kNaN}, 0);
}

TEST_CASE("var of float16 and bfloat16 accumulates wider and rounds once", "[reduce][var]") {
  Reference ref;
  // 1024 + {0, 1, 2, 3} are float16 values; their sum, 4102, is not one.
  const std::vector<uint16_t> bits = {bp_f16_from_f32(1024), bp_f16_from_f32(1025), bp_f16_from_f32(1026),
                                      bp_f16_from_f32(1027)};
  bp_plugin_tensor x = dense_view(ref.buffer(bits), BP_FLOAT16, {4});
  bp_plugin_tensor out = ref.empty(BP_FLOAT16, {1});
  ref.exec(BP_OP_VAR, {x}, out, attrs_with(0));
  CHECK(ref.values<uint16_t>(out) == std::vector<uint16_t>{bp_f16_from_f64(1.25)});
  const std::vector<uint16_t> b16 = {bp_bf16_from_f32(1), bp_bf16_from_f32(2), bp_bf16_from_f32(3)};
  bp_plugin_tensor y = dense_view(ref.buffer(b16), BP_BFLOAT16, {3});
  bp_plugin_tensor bout = ref.empty(BP_BFLOAT16, {1});
  ref.exec(BP_OP_VAR, {y}, bout, attrs_with(1));
  CHECK(ref.values<uint16_t>(bout) == std::vector<uint16_t>{bp_bf16_from_f64(1.0)});
}

TEMPLATE_TEST_CASE("layer_norm and rms_norm give plugin.h's values", "[normalize]", float, double) {
  Reference ref;
  using T = TestType;
  const bp_dtype dt = dtype_of<T>::value;
  const std::vector<double> r0 = {1, 2, 3, 4}, r1 = {-3, 0.5, 8, 2}, w = {1, 2, 0.5, -1}, b = {0, 1, 0, 0.5};
  std::vector<T> xs;
  for (double v : r0) xs.push_back(T(v));
  for (double v : r1) xs.push_back(T(v));
  bp_plugin_tensor x = ref.tensor<T>({2, 4}, xs);
  bp_plugin_tensor wt = ref.tensor<T>({4}, {T(1), T(2), T(0.5), T(-1)});
  bp_plugin_tensor bt = ref.tensor<T>({4}, {T(0), T(1), T(0), T(0.5)});
  const double eps = 1e-5;
  const double tol = table_tolerance(TestBound::libm_rounded_once, dt).rtol;
  SECTION("layer_norm with weight, bias, mean and rstd") {
    bp_plugin_tensor y = ref.empty(dt, {2, 4}), mean = ref.empty(dt, {2, 1}), rstd = ref.empty(dt, {2, 1});
    REQUIRE(run_normalize(ref, BP_OP_LAYER_NORM, eps, {x, wt, bt}, {y, mean, rstd}) == BP_OK);
    double m0, s0, m1, s1;
    std::vector<double> expect = layer_row(r0, w, b, eps, &m0, &s0), second = layer_row(r1, w, b, eps, &m1, &s1);
    expect.insert(expect.end(), second.begin(), second.end());
    check_close(ref.values<T>(y), expect, tol);
    check_close(ref.values<T>(mean), {m0, m1}, tol);
    check_close(ref.values<T>(rstd), {s0, s1}, tol);
  }
  SECTION("layer_norm without weight, bias or statistics (inference)") {
    bp_plugin_tensor y = ref.empty(dt, {2, 4});
    REQUIRE(run_normalize(ref, BP_OP_LAYER_NORM, eps, {x, absent(), absent()}, {y, absent(), absent()}) == BP_OK);
    const std::vector<double> ones = {1, 1, 1, 1}, zeros = {0, 0, 0, 0};
    double m, s;
    std::vector<double> expect = layer_row(r0, ones, zeros, eps, &m, &s), second = layer_row(r1, ones, zeros, eps, &m, &s);
    expect.insert(expect.end(), second.begin(), second.end());
    check_close(ref.values<T>(y), expect, tol);
  }
  SECTION("rms_norm: x * rstd * weight + bias, rstd from the mean of the squares") {
    bp_plugin_tensor y = ref.empty(dt, {2, 4}), rstd = ref.empty(dt, {2, 1});
    REQUIRE(run_normalize(ref, BP_OP_RMS_NORM, eps, {x, wt, absent()}, {y, absent(), rstd}) == BP_OK);
    std::vector<double> expect, rs;
    for (const std::vector<double> *row : {&r0, &r1}) {
      double squares = 0;
      for (double v : *row) squares += v * v;
      const double s = 1 / std::sqrt(squares / 4 + eps);
      rs.push_back(s);
      for (size_t j = 0; j < 4; ++j) expect.push_back((*row)[j] * s * w[j]);
    }
    check_close(ref.values<T>(y), expect, tol);
    check_close(ref.values<T>(rstd), rs, tol);
  }
  SECTION("in place: y the very view of x") {
    bp_plugin_tensor mean = ref.empty(dt, {2, 1});
    REQUIRE(run_normalize(ref, BP_OP_LAYER_NORM, eps, {x, absent(), bt}, {x, mean, absent()}) == BP_OK);
    double m, s;
    const std::vector<double> ones = {1, 1, 1, 1};
    std::vector<double> expect = layer_row(r0, ones, b, eps, &m, &s), second = layer_row(r1, ones, b, eps, &m, &s);
    expect.insert(expect.end(), second.begin(), second.end());
    check_close(ref.values<T>(x), expect, tol);
    check_close(ref.values<T>(mean), {2.5, 1.875}, tol);
  }
}

TEST_CASE("layer_norm of constant, empty and NaN rows", "[normalize][zero-size]") {
  Reference ref;
  // A constant row has no spread: y is the bias and rstd 1 / sqrt(eps).
  bp_plugin_tensor x = ref.tensor<float>({2, 3}, {7, 7, 7, 1, float(kNaN), 2});
  bp_plugin_tensor bias = ref.tensor<float>({3}, {1, 2, 3});
  bp_plugin_tensor y = ref.empty(BP_FLOAT32, {2, 3}), mean = ref.empty(BP_FLOAT32, {2, 1}),
                   rstd = ref.empty(BP_FLOAT32, {2, 1});
  REQUIRE(run_normalize(ref, BP_OP_LAYER_NORM, 0.25, {x, absent(), bias}, {y, mean, rstd}) == BP_OK);
  check_values(ref.values<float>(y), std::vector<float>{1, 2, 3, float(kNaN), float(kNaN), float(kNaN)});
  check_values(ref.values<float>(mean), std::vector<float>{7, float(kNaN)});
  check_values(ref.values<float>(rstd), std::vector<float>{2, float(kNaN)});
  // Rows of no elements: NaN statistics, nothing else written.
  bp_plugin_tensor empty = dense_view(nullptr, BP_FLOAT32, {3, 0});
  bp_plugin_tensor m3 = ref.empty(BP_FLOAT32, {3, 1}), s3 = ref.empty(BP_FLOAT32, {3, 1});
  bp_plugin_tensor no_weight = dense_view(nullptr, BP_FLOAT32, {0});
  REQUIRE(run_normalize(ref, BP_OP_LAYER_NORM, 1e-5, {empty, no_weight, absent()}, {empty, m3, s3}) == BP_OK);
  check_values(ref.values<float>(m3), std::vector<float>(3, float(kNaN)));
  check_values(ref.values<float>(s3), std::vector<float>(3, float(kNaN)));
}

TEST_CASE("layer_norm of float16 and bfloat16 computes in float32 or wider and rounds once", "[normalize]") {
  Reference ref;
  for (bp_dtype dt : {BP_FLOAT16, BP_BFLOAT16}) {
    INFO(dtype_name(dt));
    auto half = [&](double v) { return dt == BP_FLOAT16 ? bp_f16_from_f64(v) : bp_bf16_from_f64(v); };
    const std::vector<double> row = {1000, 1001, 1002, 1005};
    std::vector<uint16_t> bits;
    std::vector<double> held;
    for (double v : row) {
      bits.push_back(half(v));
      held.push_back(dt == BP_FLOAT16 ? bp_f32_from_f16(bits.back()) : bp_f32_from_bf16(bits.back()));
    }
    bp_plugin_tensor x = dense_view(ref.buffer(bits), dt, {1, 4});
    bp_plugin_tensor y = ref.empty(dt, {1, 4}), mean = ref.empty(BP_FLOAT32, {1, 1}), rstd = ref.empty(BP_FLOAT32, {1, 1});
    REQUIRE(run_normalize(ref, BP_OP_LAYER_NORM, 1e-5, {x, absent(), absent()}, {y, mean, rstd}) == BP_OK);
    double m, s;
    const std::vector<double> expect = layer_row(held, {1, 1, 1, 1}, {0, 0, 0, 0}, 1e-5, &m, &s);
    std::vector<uint16_t> expect_bits;
    for (double v : expect) expect_bits.push_back(half(v));
    CHECK(ref.values<uint16_t>(y) == expect_bits);
    check_close(ref.values<float>(mean), {m}, 1e-7);
    check_close(ref.values<float>(rstd), {s}, 1e-7);
  }
}

TEST_CASE("the SDK refuses what plugin.h forbids for var and the normalisations", "[normalize][errors]") {
  Reference ref;
  bp_plugin_tensor x = ref.tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  bp_plugin_tensor y = ref.empty(BP_FLOAT32, {2, 3}), stat = ref.empty(BP_FLOAT32, {2, 1});
  check_error(ref, ref.run(BP_OP_VAR, {x}, ref.empty(BP_FLOAT32, {2, 1}), attrs_with(0.5)), BP_ERR_INVALID_ARGUMENT,
              {"var", "correction", "integer"});
  check_error(ref, ref.run(BP_OP_VAR, {x}, ref.empty(BP_FLOAT32, {2, 1}), attrs_with(-1)), BP_ERR_INVALID_ARGUMENT,
              {"var", "correction"});
  check_error(ref, run_normalize(ref, BP_OP_LAYER_NORM, -1e-5, {x, absent(), absent()}, {y, absent(), absent()}),
              BP_ERR_INVALID_ARGUMENT, {"layer_norm", "eps"});
  check_error(ref, run_normalize(ref, BP_OP_RMS_NORM, 1e-5, {x, absent(), absent()}, {y, stat, absent()}),
              BP_ERR_INVALID_ARGUMENT, {"rms_norm", "mean", "absent"});
  bp_plugin_tensor w2 = ref.tensor<float>({2}, {1, 1});
  check_error(ref, run_normalize(ref, BP_OP_LAYER_NORM, 1e-5, {x, w2, absent()}, {y, absent(), absent()}),
              BP_ERR_SHAPE, {"layer_norm", "weight"});
  bp_plugin_tensor wd = ref.tensor<double>({3}, {1, 1, 1});
  check_error(ref, run_normalize(ref, BP_OP_LAYER_NORM, 1e-5, {x, wd, absent()}, {y, absent(), absent()}),
              BP_ERR_DTYPE, {"layer_norm", "weight", "float64"});
  bp_plugin_tensor stat64 = ref.empty(BP_FLOAT64, {2, 1});
  check_error(ref, run_normalize(ref, BP_OP_LAYER_NORM, 1e-5, {x, absent(), absent()}, {y, absent(), stat64}),
              BP_ERR_DTYPE, {"layer_norm", "rstd", "float32"});
  bp_plugin_tensor wrong = ref.empty(BP_FLOAT32, {1, 1});
  check_error(ref, run_normalize(ref, BP_OP_LAYER_NORM, 1e-5, {x, absent(), absent()}, {y, wrong, absent()}),
              BP_ERR_SHAPE, {"layer_norm", "mean"});
  check_error(ref, run_normalize(ref, BP_OP_LAYER_NORM, 1e-5, {absent(), absent(), absent()}, {y, absent(), absent()}),
              BP_ERR_INVALID_ARGUMENT, {"layer_norm", "input 0", "absent"});
}
