// Operators through the core on both host backends, with hand-checked values:
// broadcasting, dtype rules, scalars, reductions, matmul, casts, _out forms.
#include <catch2/catch.hpp>

#include <cmath>

#include "runtime_fixture.hpp"

using bp_test::start;
using Catch::Matchers::Equals;

namespace {
bp::Device device_under_test() {
  static const char *names[] = {"cpu:0", "reference:0"};
  auto i = GENERATE(0, 1);
  return bp::Device(names[i]);
}
}  // namespace

TEST_CASE("binary operators broadcast like NumPy") {
  start(bp_test::kHostOnly);
  bp::Device d = device_under_test();
  bp::Tensor a = bp::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, d);
  bp::Tensor row = bp::from_vector<float>({10, 20, 30}, {3}, d);
  bp::Tensor col = bp::from_vector<float>({100, 200}, {2, 1}, d);
  CHECK_THAT((a + row).to_vector<float>(), Equals(std::vector<float>{11, 22, 33, 14, 25, 36}));
  CHECK_THAT((a - col).to_vector<float>(), Equals(std::vector<float>{-99, -98, -97, -196, -195, -194}));
  CHECK_THAT((row * col).to_vector<float>(), Equals(std::vector<float>{1000, 2000, 3000, 2000, 4000, 6000}));
  CHECK((row * col).shape() == bp::Shape{2, 3});
  CHECK_THAT((a / 2.0).to_vector<float>(), Equals(std::vector<float>{0.5, 1, 1.5, 2, 2.5, 3}));
  CHECK_THAT((1.0 - a).to_vector<float>(), Equals(std::vector<float>{0, -1, -2, -3, -4, -5}));
  CHECK_THAT(bp::pow(a, 2.0).to_vector<float>(), Equals(std::vector<float>{1, 4, 9, 16, 25, 36}));
  CHECK_THAT(bp::maximum(a, row / 5.0).to_vector<float>(), Equals(std::vector<float>{2, 4, 6, 4, 5, 6}));
  CHECK_THAT(bp::minimum(a, bp::full({}, 3, bp::f32, d)).to_vector<float>(), Equals(std::vector<float>{1, 2, 3, 3, 3, 3}));
  bp::Tensor bad = bp::from_vector<float>({1, 2}, {2}, d);
  try {
    (void)(a + bad);
    FAIL("shapes [2,3] and [2] must not broadcast");
  } catch (const bp::ShapeError &e) {
    CHECK(std::string(e.what()).find("add") != std::string::npos);
    CHECK(std::string(e.what()).find("[2]") != std::string::npos);
    CHECK(e.op() == "add");
  }
}

TEST_CASE("comparisons give bool and where selects") {
  start(bp_test::kHostOnly);
  bp::Device d = device_under_test();
  bp::Tensor a = bp::from_vector<int32_t>({1, 5, 3}, {3}, d);
  bp::Tensor b = bp::from_vector<int32_t>({2, 5, 1}, {3}, d);
  CHECK((a < b).dtype() == BP_BOOL);
  CHECK_THAT((a < b).to_vector<bool>(), Equals(std::vector<bool>{true, false, false}));
  CHECK_THAT((a == b).to_vector<bool>(), Equals(std::vector<bool>{false, true, false}));
  CHECK_THAT((a >= 3.0).to_vector<bool>(), Equals(std::vector<bool>{false, true, true}));
  CHECK_THAT((a != b).to_vector<bool>(), Equals(std::vector<bool>{true, false, true}));
  bp::Tensor w = bp::where(a > b, a, b * 10);
  CHECK_THAT(w.to_vector<int32_t>(), Equals(std::vector<int32_t>{20, 50, 3}));
  CHECK_THROWS_AS(bp::where(a, a, b), bp::DtypeError);
}

TEST_CASE("dtype rules: promotion, true division, bool arithmetic, scalars") {
  start(bp_test::kHostOnly);
  bp::Device d = device_under_test();
  bp::Tensor i = bp::from_vector<int32_t>({1, 2, 3}, {3}, d);
  bp::Tensor l = bp::from_vector<int64_t>({10, 20, 30}, {3}, d);
  bp::Tensor f = bp::from_vector<float>({0.5f, 0.5f, 0.5f}, {3}, d);
  CHECK((i + l).dtype() == BP_INT64);
  CHECK((i + f).dtype() == BP_FLOAT32);
  CHECK((l + f).dtype() == BP_FLOAT32);
  CHECK((i / i).dtype() == BP_FLOAT64);
  CHECK_THAT((i / 2.0).to_vector<double>(), Equals(std::vector<double>{0.5, 1, 1.5}));
  CHECK((i * 2).dtype() == BP_INT32);     // an int scalar keeps the dtype
  CHECK((i * 2.0).dtype() == BP_FLOAT64); // a float scalar computes in float64, by its kind
  CHECK((i * 2.5).dtype() == BP_FLOAT64);
  CHECK((f * 2.0).dtype() == BP_FLOAT32);
  bp::Tensor t = bp::ones({2}, bp::boolean, d);
  CHECK((t + t).dtype() == BP_INT32);
  CHECK_THAT((t + t).to_vector<int32_t>(), Equals(std::vector<int32_t>{2, 2}));
  CHECK_THAT(bp::pow(i, 2).to_vector<int32_t>(), Equals(std::vector<int32_t>{1, 4, 9}));
}

TEST_CASE("unary operators") {
  start(bp_test::kHostOnly);
  bp::Device d = device_under_test();
  bp::Tensor x = bp::from_vector<double>({-1, 0, 2}, {3}, d);
  CHECK_THAT((-x).to_vector<double>(), Equals(std::vector<double>{1, 0, -2}));
  CHECK_THAT(x.abs().to_vector<double>(), Equals(std::vector<double>{1, 0, 2}));
  CHECK_THAT(x.relu().to_vector<double>(), Equals(std::vector<double>{0, 0, 2}));
  auto e = x.exp().to_vector<double>();
  CHECK(e[0] == Approx(std::exp(-1.0)));
  CHECK(e[2] == Approx(std::exp(2.0)));
  CHECK(x.sigmoid().to_vector<double>()[1] == Approx(0.5));
  CHECK(x.tanh().to_vector<double>()[2] == Approx(std::tanh(2.0)));
  CHECK(bp::from_vector<double>({4, 9}, {2}, d).sqrt().to_vector<double>() == std::vector<double>{2, 3});
  bp::Tensor ints = bp::from_vector<int32_t>({1, 4}, {2}, d);
  CHECK(ints.sqrt().dtype() == BP_FLOAT64);
  CHECK(std::isnan(bp::full({1}, -1, bp::f32, d).log().to_vector<float>()[0]));
}

TEST_CASE("reductions over all axes or one, with keepdims") {
  start(bp_test::kHostOnly);
  bp::Device d = device_under_test();
  bp::Tensor a = bp::from_vector<float>({1, 5, 3, 4, 2, 6}, {2, 3}, d);
  CHECK(a.sum().item() == 21);
  CHECK(a.sum().rank() == 0);
  CHECK_THAT(a.sum(0).to_vector<float>(), Equals(std::vector<float>{5, 7, 9}));
  CHECK_THAT(a.sum(1, true).to_vector<float>(), Equals(std::vector<float>{9, 12}));
  CHECK(a.sum(1, true).shape() == bp::Shape{2, 1});
  CHECK(a.sum(-1).shape() == bp::Shape{2});
  CHECK(a.mean().item() == Approx(3.5));
  CHECK_THAT(a.max(0).to_vector<float>(), Equals(std::vector<float>{4, 5, 6}));
  CHECK_THAT(a.min(1).to_vector<float>(), Equals(std::vector<float>{1, 2}));
  CHECK(a.argmax().item() == 5);
  CHECK_THAT(a.argmax(1).to_vector<int64_t>(), Equals(std::vector<int64_t>{1, 2}));
  CHECK(a.argmax(1).dtype() == BP_INT64);
  CHECK(a.norm().item() == Approx(std::sqrt(91.0)));
  bp::Tensor ints = bp::from_vector<int32_t>({1, 2, 3}, {3}, d);
  CHECK(ints.sum().dtype() == BP_INT64);
  CHECK(ints.mean().dtype() == BP_FLOAT64);
  CHECK(ints.mean().item() == 2);
  CHECK(bp::ones({4}, bp::boolean, d).sum().item() == 4);
  CHECK_THROWS_AS(a.sum(2), bp::ShapeError);
  CHECK_THROWS_AS(bp::zeros({0}, bp::f32, d).max(), bp::ShapeError);
  CHECK(bp::zeros({0}, bp::f32, d).sum().item() == 0);
  // Reducing a strided view.
  CHECK_THAT(a.T().sum(1).to_vector<float>(), Equals(std::vector<float>{5, 7, 9}));
}

TEST_CASE("matmul: 2-D, transposes, batches with broadcasting, vectors") {
  start(bp_test::kHostOnly);
  bp::Device d = device_under_test();
  bp::Tensor a = bp::from_vector<double>({1, 2, 3, 4, 5, 6}, {2, 3}, d);
  bp::Tensor b = bp::from_vector<double>({1, 0, 0, 1, 1, 1}, {3, 2}, d);
  CHECK_THAT(bp::matmul(a, b).to_vector<double>(), Equals(std::vector<double>{4, 5, 10, 11}));
  CHECK_THAT(bp::matmul(b, a, true, true).to_vector<double>(), Equals(std::vector<double>{4, 10, 5, 11}));
  CHECK_THAT(bp::matmul(a.T(), a).to_vector<double>(),
             Equals(std::vector<double>{17, 22, 27, 22, 29, 36, 27, 36, 45}));
  bp::Tensor stack = bp::from_vector<double>({1, 2, 3, 4, 5, 6, 1, 1, 1, 1, 1, 1}, {2, 2, 3}, d);
  bp::Tensor batched = bp::matmul(stack, b);  // b broadcast over the batch
  CHECK(batched.shape() == bp::Shape{2, 2, 2});
  CHECK_THAT(batched.to_vector<double>(), Equals(std::vector<double>{4, 5, 10, 11, 2, 2, 2, 2}));
  bp::Tensor v = bp::from_vector<double>({1, 1, 1}, {3}, d);
  CHECK(bp::matmul(a, v).shape() == bp::Shape{2});
  CHECK_THAT(bp::matmul(a, v).to_vector<double>(), Equals(std::vector<double>{6, 15}));
  CHECK(bp::matmul(v, b).shape() == bp::Shape{2});
  CHECK(bp::matmul(v, v).rank() == 0);
  CHECK(bp::matmul(v, v).item() == 3);
  bp::Tensor i = bp::from_vector<int32_t>({1, 2, 3, 4}, {2, 2}, d);
  CHECK_THAT(bp::matmul(i, i).to_vector<int32_t>(), Equals(std::vector<int32_t>{7, 10, 15, 22}));
  try {
    bp::matmul(a, a);
    FAIL("inner extents differ");
  } catch (const bp::ShapeError &e) {
    CHECK(std::string(e.what()).find("3 vs 2") != std::string::npos);
  }
  CHECK_THROWS_AS(bp::matmul(bp::ones({2, 2}, bp::boolean, d), bp::ones({2, 2}, bp::boolean, d)), bp::DtypeError);
}

// A batch sharing a 2-D b (a Linear layer's weight) reaches the backend as
// one product of the batch's rows, forward and for b's gradient, where the
// rows are evenly spaced across the batch; an a stored transposed (its
// rows are columns), or rows with a gap between the batch items, stay a
// batch. The values are exact either way.
TEST_CASE("matmul: a batch sharing a 2-D b is one product of the batch's rows") {
  start(bp_test::kHostOnly);
  bp::Device d = device_under_test();
  std::vector<double> xs(3 * 3 * 4), ws(4 * 5);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = double(int(i * 7 % 11) - 5);
  for (size_t i = 0; i < ws.size(); ++i) ws[i] = double(int(i * 5 % 7) - 3);
  const bp::Tensor whole = bp::from_vector<double>(xs, {3, 3, 4}, d), w = bp::from_vector<double>(ws, {4, 5}, d);
  auto by_item = [&](const bp::Tensor &x, const bp::Tensor &b, bool tb) {
    std::vector<double> out;
    for (int64_t i = 0; i < x.shape()[0]; ++i) {
      const std::vector<double> one = bp::matmul(x[i], b, false, tb).to_vector<double>();
      out.insert(out.end(), one.begin(), one.end());
    }
    return out;
  };
  auto product_lines = [](const std::string &shape) {
    return bp_test::count_lines_starting(bp_test::trace_lines(), "matmul float64 " + shape);
  };
  REQUIRE(bp_trace_enable(1) == BP_OK);
  const bp::Tensor &x = whole;                     // [3, 3, 4], dense
  const bp::Tensor gapped = whole.slice(1, 0, 2);  // [3, 2, 4]: a row's gap after each item
  bp_trace_clear();
  CHECK_THAT(bp::matmul(x, w).to_vector<double>(), Equals(by_item(x, w, false)));
  bp_trace_clear();
  const bp::Tensor y = bp::matmul(x, w);
  CHECK(y.shape() == bp::Shape{3, 3, 5});
  CHECK(product_lines("[9, 5]") == 1);
  bp_trace_clear();
  const bp::Tensor wt = w.T().contiguous();
  CHECK_THAT(bp::matmul(x, wt, false, true).to_vector<double>(), Equals(by_item(x, wt, true)));
  CHECK(product_lines("[9, 5]") == 1);
  bp_trace_clear();
  CHECK_THAT(bp::matmul(gapped, w).to_vector<double>(), Equals(by_item(gapped, w, false)));
  CHECK(product_lines("[3, 2, 5]") == 1);
  bp_trace_clear();
  const bp::Tensor stored_transposed = x.permute({0, 2, 1}).contiguous();  // [3, 4, 3]: A's rows are its columns
  CHECK_THAT(bp::matmul(stored_transposed, w, true, false).to_vector<double>(), Equals(by_item(x, w, false)));
  CHECK(product_lines("[3, 3, 5]") == 1);

  // dW = the sum over the batch of x_i^T g_i, here with g = 1.
  for (bool tb : {false, true}) {
    INFO("b transposed: " << tb);
    const bp::Tensor xg = x.detach().requires_grad_(), wg = (tb ? wt : w).detach().requires_grad_();
    bp_trace_clear();
    bp::matmul(xg, wg, false, tb).sum().backward();
    CHECK(product_lines(tb ? "[5, 4]" : "[4, 5]") == 1);
    std::vector<double> want(20, 0.0);
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t m = 0; m < 3; ++m)
        for (int64_t k = 0; k < 4; ++k)
          for (int64_t n = 0; n < 5; ++n) want[size_t(tb ? n * 4 + k : k * 5 + n)] += xs[size_t((i * 3 + m) * 4 + k)];
    CHECK_THAT(wg.grad().to_vector<double>(), Equals(want));
  }
  REQUIRE(bp_trace_enable(0) == BP_OK);
}

TEST_CASE("cast and assign convert between dtypes") {
  start(bp_test::kHostOnly);
  bp::Device d = device_under_test();
  bp::Tensor f = bp::from_vector<float>({-1.5f, 0, 2.7f}, {3}, d);
  CHECK_THAT(f.astype(BP_INT32).to_vector<int32_t>(), Equals(std::vector<int32_t>{-1, 0, 2}));
  CHECK_THAT(f.astype(BP_BOOL).to_vector<bool>(), Equals(std::vector<bool>{true, false, true}));
  CHECK(f.astype(BP_FLOAT32).is(f) == false);  // always a new tensor
  bp::Tensor dst = bp::zeros({2, 3}, bp::f64, d);
  dst.assign(f);  // broadcast [3] into [2,3], float32 -> float64
  CHECK(dst.to_vector<double>()[5] == Approx(2.7));
  CHECK_THROWS_AS(f.assign(dst), bp::ShapeError);
}

TEST_CASE("_out forms check device, shape and dtype and allocate nothing") {
  start(bp_test::kHostOnly);
  bp::Device d = device_under_test();
  bp::Tensor a = bp::ones({4}, bp::f32, d), b = bp::full({4}, 2, bp::f32, d);
  bp::Tensor out = bp::empty({4}, bp::f32, d);
  int64_t live = bp_live_tensor_count();
  for (int k = 0; k < 10; ++k) REQUIRE(bp_binary_out(BP_OP_ADD, a.handle(), b.handle(), out.handle()) == BP_OK);
  CHECK(bp_live_tensor_count() == live);
  CHECK_THAT(out.to_vector<float>(), Equals(std::vector<float>{3, 3, 3, 3}));
  // In place: the output is the very same view as an input.
  REQUIRE(bp_binary_out(BP_OP_ADD, a.handle(), b.handle(), a.handle()) == BP_OK);
  CHECK(a.to_vector<float>()[0] == 3);
  bp::Tensor wrong_shape = bp::empty({5}, bp::f32, d);
  CHECK(bp_binary_out(BP_OP_ADD, a.handle(), b.handle(), wrong_shape.handle()) == BP_ERR_SHAPE);
  bp::Tensor wrong_dtype = bp::empty({4}, bp::f64, d);
  CHECK(bp_binary_out(BP_OP_ADD, a.handle(), b.handle(), wrong_dtype.handle()) == BP_ERR_DTYPE);
  // A partially overlapping output is refused.
  bp::Tensor base = bp::arange(0, 8, 1, bp::f32, d);
  bp::Tensor lo = base.slice(0, 0, 4), hi = base.slice(0, 2, 6);
  CHECK(bp_binary_out(BP_OP_ADD, lo.handle(), lo.handle(), hi.handle()) == BP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(bp_last_error()).find("overlaps input 0") != std::string::npos);
  // A log kept on the device: one norm per step written into a view.
  bp::Tensor log = bp::zeros({3}, bp::f32, d);
  for (int step = 0; step < 3; ++step) {
    bp::Tensor x = bp::full({2, 2}, step + 1, bp::f32, d);
    bp::norm_out(x, log[step]);
  }
  CHECK_THAT(log.to_vector<float>(), Equals(std::vector<float>{2, 4, 6}));
  bp::Tensor m = bp::empty({2, 2}, bp::f32, d);
  bp::matmul_out(bp::ones({2, 3}, bp::f32, d), bp::ones({3, 2}, bp::f32, d), m);
  CHECK_THAT(m.to_vector<float>(), Equals(std::vector<float>{3, 3, 3, 3}));
  CHECK(bp_matmul_out(m.handle(), m.handle(), 0, 0, m.handle()) == BP_ERR_INVALID_ARGUMENT);
}

TEST_CASE("a scalar outside an integer tensor's range computes in float64") {
  start(bp_test::kHostOnly);
  bp::Device d = device_under_test();
  bp::Tensor i = bp::from_vector<int32_t>({1, 2}, {2}, d);
  CHECK_THAT((i < 3e9).to_vector<bool>(), Equals(std::vector<bool>{true, true}));
  CHECK((i + 3e9).dtype() == BP_FLOAT64);
  CHECK((i + 3e9).to_vector<double>()[1] == 3000000002.0);
  // bp_binary_scalar's value-based rule (1.0): an integral scalar keeps the dtype.
  CHECK(bp::binary(BP_OP_ADD, i, 7.0).dtype() == BP_INT32);
}
