// bp_attention through the C API and the C++ header (bp::attention,
// bp::nn::MultiheadAttention): values against softmax(q k^T s + mask) v
// computed here in float64, on every host device and OpenCL; the fused
// entry against the composite on cpu:0 and reference:0 (the routing trace
// says which ran); OpenCL on the composite; dropout's mask the same on
// every device; the options struct and the errors. Gradients by finite
// differences are in test_autograd.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "backplane_nn.hpp"
#include "runtime_fixture.hpp"

using bp_test::last_error_mentions;
using bp_test::count_lines_starting;

namespace {

std::vector<double> ramp(size_t n, double phase) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(0.7 * double(i) + phase);
  return v;
}

// softmax(q k^T * scale + mask) v for q [B, Lq, D], k [B, Lk, D], v [B, Lk, Dv]
// and a mask [Lq, Lk] (empty: none; -inf hides).
std::vector<double> expected(const std::vector<double> &q, const std::vector<double> &k, const std::vector<double> &v,
                             int64_t b, int64_t lq, int64_t lk, int64_t d, int64_t dv, double scale,
                             const std::vector<double> &mask, bool causal) {
  std::vector<double> out(size_t(b * lq * dv), 0.0), w(static_cast<size_t>(lk));
  for (int64_t n = 0; n < b; ++n)
    for (int64_t i = 0; i < lq; ++i) {
      double m = -INFINITY, total = 0;
      for (int64_t j = 0; j < lk; ++j) {
        double s = 0;
        for (int64_t x = 0; x < d; ++x) s += q[size_t((n * lq + i) * d + x)] * k[size_t((n * lk + j) * d + x)];
        s = s * scale + (mask.empty() ? 0 : mask[size_t(i * lk + j)]);
        if (causal && j > i) s = -INFINITY;
        w[size_t(j)] = s;
        m = std::max(m, s);
      }
      for (int64_t j = 0; j < lk; ++j) total += w[size_t(j)] = std::exp(w[size_t(j)] - m);
      for (int64_t c = 0; c < dv; ++c)
        for (int64_t j = 0; j < lk; ++j)
          out[size_t((n * lq + i) * dv + c)] += w[size_t(j)] / total * v[size_t((n * lk + j) * dv + c)];
    }
  return out;
}

void check_close(const std::vector<double> &got, const std::vector<double> &want, double tolerance) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(std::abs(got[i] - want[i]) <= tolerance * (1 + std::abs(want[i])));
  }
}

struct Problem {
  int64_t b = 2, lq = 9, lk = 13, d = 5, dv = 4;
  std::vector<double> q = ramp(size_t(b * lq * d), 0.1), k = ramp(size_t(b * lk * d), 1.3),
                      v = ramp(size_t(b * lk * dv), 2.9);
  std::vector<double> mask = [&] {
    std::vector<double> m = ramp(size_t(lq * lk), 0.4);
    for (size_t i = 0; i < m.size(); i += 5) m[i] = -INFINITY;
    return m;
  }();
};

}  // namespace

TEST_CASE("bp_attention matches softmax(q k^T s + mask) v on every device, masks, causal and scales") {
  const bp::Device dev = bp_test::each_host_or_opencl_device();
  const Problem p;
  for (bp_dtype dtype : {BP_FLOAT32, BP_FLOAT64}) {
    const double tolerance = dtype == BP_FLOAT32 ? 2e-6 : 1e-12;
    const bp::Tensor q = bp::from_vector<double>(p.q, {p.b, p.lq, p.d}, dev).astype(dtype);
    const bp::Tensor k = bp::from_vector<double>(p.k, {p.b, p.lk, p.d}, dev).astype(dtype);
    const bp::Tensor v = bp::from_vector<double>(p.v, {p.b, p.lk, p.dv}, dev).astype(dtype);
    const bp::Tensor mask = bp::from_vector<double>(p.mask, {p.lq, p.lk}, dev).astype(dtype);
    std::vector<double> hides(p.mask.size());
    for (size_t i = 0; i < hides.size(); ++i) hides[i] = std::isinf(p.mask[i]) ? -INFINITY : 0.0;
    const bp::Tensor keep = bp::from_vector<double>(hides, {p.lq, p.lk}, dev) == 0.0;  // bool: true takes part
    const double s = 1 / std::sqrt(double(p.d));
    INFO(bp_dtype_name(dtype));
    SECTION("plain, default scale") {
      check_close(bp::attention(q, k, v).astype(BP_FLOAT64).to_vector<double>(),
                  expected(p.q, p.k, p.v, p.b, p.lq, p.lk, p.d, p.dv, s, {}, false), tolerance);
    }
    SECTION("float mask, scale") {
      bp::AttentionOptions o;
      o.mask = mask;
      o.scale = -0.8;
      check_close(bp::attention(q, k, v, o).astype(BP_FLOAT64).to_vector<double>(),
                  expected(p.q, p.k, p.v, p.b, p.lq, p.lk, p.d, p.dv, -0.8, p.mask, false), tolerance);
    }
    SECTION("bool mask and causal together") {
      bp::AttentionOptions o;
      o.mask = keep;
      o.causal = true;
      // Row 0 sees key 0 only, which the mask hides: NaN (every key hidden).
      const std::vector<double> want = expected(p.q, p.k, p.v, p.b, p.lq, p.lk, p.d, p.dv, s, hides, true);
      const std::vector<double> got = bp::attention(q, k, v, o).astype(BP_FLOAT64).to_vector<double>();
      for (size_t i = 0; i < got.size(); ++i) {
        INFO("element " << i);
        if (std::isnan(want[i]))
          CHECK(std::isnan(got[i]));
        else
          CHECK(std::abs(got[i] - want[i]) <= tolerance * (1 + std::abs(want[i])));
      }
      CHECK(std::isnan(got[0]));
    }
  }
}

TEST_CASE("the fused entry runs when nothing records a gradient, and equals the composite") {
  const bp::Device dev = bp_test::each_host_device();  // cpu-openblas and the reference offer it
  const Problem p;
  const bp::Tensor q = bp::from_vector<double>(p.q, {p.b, p.lq, p.d}, dev).astype(BP_FLOAT32);
  const bp::Tensor k = bp::from_vector<double>(p.k, {p.b, p.lk, p.d}, dev).astype(BP_FLOAT32);
  const bp::Tensor v = bp::from_vector<double>(p.v, {p.b, p.lk, p.dv}, dev).astype(BP_FLOAT32);
  bp::AttentionOptions o;
  o.mask = bp::from_vector<double>(p.mask, {p.lq, p.lk}, dev).astype(BP_FLOAT32);
  o.causal = true;
  REQUIRE(bp_trace_enable(1) == BP_OK);
  bp_trace_clear();
  const std::vector<float> fused = bp::attention(q, k, v, o).to_vector<float>();
  CHECK(count_lines_starting(bp_test::trace_lines(), "attention float32 [2, 9, 4]") == 1);
  bp_trace_clear();
  const bp::Tensor qg = q.detach().requires_grad_();
  const bp::Tensor composite = bp::attention(qg, k, v, o);
  std::vector<std::string> lines = bp_test::trace_lines();
  CHECK(count_lines_starting(lines, "attention") == 0);
  CHECK(count_lines_starting(lines, "matmul") == 2);
  CHECK(composite.requires_grad());
  bp_trace_clear();
  o.dropout = 0.5;  // dropout: the composite, even without gradients
  bp::attention(q, k, v, o);
  CHECK(count_lines_starting(bp_test::trace_lines(), "attention") == 0);
  bp_trace_enable(0);
  const std::vector<float> c = composite.detach().to_vector<float>();
  REQUIRE(c.size() == fused.size());
  for (size_t i = 0; i < c.size(); ++i) {
    INFO("element " << i);
    if (std::isnan(c[i]))
      CHECK(std::isnan(fused[i]));
    else
      CHECK(std::abs(c[i] - fused[i]) <= 2e-6f * (1 + std::abs(c[i])));
  }
}

TEST_CASE("OpenCL devices offer no fused entry: bp_attention runs the composite there") {
  bp_test::start(bp_test::kHostAndOpenCL);
  bp_device id;
  if (bp_device_get("opencl:0", &id) != BP_OK) {
    WARN("skipped: no opencl:0 (" << bp_last_error() << ")");
    return;
  }
  const bp::Device dev("opencl:0");
  const Problem p;
  const bp::Tensor q = bp::from_vector<double>(p.q, {p.b, p.lq, p.d}, dev).astype(BP_FLOAT32);
  const bp::Tensor k = bp::from_vector<double>(p.k, {p.b, p.lk, p.d}, dev).astype(BP_FLOAT32);
  const bp::Tensor v = bp::from_vector<double>(p.v, {p.b, p.lk, p.dv}, dev).astype(BP_FLOAT32);
  REQUIRE(bp_trace_enable(1) == BP_OK);
  bp_trace_clear();
  const bp::Tensor out = bp::attention(q, k, v);
  std::vector<std::string> lines = bp_test::trace_lines();
  bp_trace_enable(0);
  CHECK(count_lines_starting(lines, "attention") == 0);
  CHECK(count_lines_starting(lines, "matmul float32") == 2);
  check_close(out.astype(BP_FLOAT64).to_vector<double>(),
              expected(p.q, p.k, p.v, p.b, p.lq, p.lk, p.d, p.dv, 1 / std::sqrt(5.0), {}, false), 2e-6);
}

TEST_CASE("dropout keeps the same weights on every device for one seed, scaled by 1 / (1 - p)") {
  bp_test::start(bp_test::kHostAndOpenCL);
  std::vector<std::string> names = {"cpu:0", "reference:0"};
  bp_device id;
  if (bp_device_get("opencl:0", &id) == BP_OK) names.push_back("opencl:0");
  const Problem p;
  std::vector<std::vector<float>> results;
  for (const std::string &name : names) {
    const bp::Device dev(name);
    bp::AttentionOptions o;
    o.dropout = 0.3;
    o.seed = 1234;
    const bp::Tensor q = bp::from_vector<double>(p.q, {p.b, p.lq, p.d}, dev).astype(BP_FLOAT32);
    const bp::Tensor k = bp::from_vector<double>(p.k, {p.b, p.lk, p.d}, dev).astype(BP_FLOAT32);
    // v = I: the output is the weights themselves.
    std::vector<double> eye(size_t(p.b * p.lk * p.lk), 0.0);
    for (int64_t n = 0; n < p.b; ++n)
      for (int64_t j = 0; j < p.lk; ++j) eye[size_t((n * p.lk + j) * p.lk + j)] = 1;
    const bp::Tensor v = bp::from_vector<double>(eye, {p.b, p.lk, p.lk}, dev).astype(BP_FLOAT32);
    results.push_back(bp::attention(q, k, v, o).to_vector<float>());
    // Each weight is 0 where the float32 uniform stream of the seed is below p.
    const std::vector<float> u = bp::random_uniform({p.b, p.lq, p.lk}, 0, 1, 1234, bp::f32, dev).to_vector<float>();
    const std::vector<float> plain = bp::attention(q, k, v).to_vector<float>();
    for (size_t i = 0; i < u.size(); ++i) {
      INFO(name << " weight " << i);
      CHECK(results.back()[i] == Approx(u[i] >= 0.3f ? plain[i] / 0.7f : 0.0f).epsilon(1e-5).margin(1e-7));
    }
  }
  for (size_t i = 1; i < results.size(); ++i) {
    REQUIRE(results[i].size() == results[0].size());
    for (size_t j = 0; j < results[0].size(); ++j) CHECK((results[i][j] == 0) == (results[0][j] == 0));
  }
}

TEST_CASE("bp_attention's options, empty problems and errors that name the operator") {
  const bp::Device dev = bp_test::each_host_device();
  const bp::Tensor q = bp::ones({2, 3, 4}, bp::f32, dev), k = bp::ones({2, 5, 4}, bp::f32, dev);
  const bp::Tensor v = bp::ones({2, 5, 6}, bp::f32, dev);
  bp_tensor out = BP_NO_TENSOR;
  SECTION("NULL options: the defaults; integers compute in float64") {
    REQUIRE(bp_attention(q.handle(), k.handle(), v.handle(), nullptr, &out) == BP_OK);
    const bp::Tensor t = bp::Tensor::adopt(out);
    CHECK(t.shape() == bp::Shape{2, 3, 6});
    CHECK(t.dtype() == BP_FLOAT32);
    const bp::Tensor i = bp::attention(q.astype(BP_INT32), k.astype(BP_INT32), v.astype(BP_INT32));
    CHECK(i.dtype() == BP_FLOAT64);
    CHECK(i.to_vector<double>() == std::vector<double>(36, 1.0));
  }
  SECTION("a shorter struct than 1.6's is refused; a longer one is read as far as 1.6 knows") {
    struct Longer {
      bp_attention_options o;
      double future;
    } longer{};
    longer.o.struct_size = sizeof longer;
    longer.o.causal = 1;
    longer.future = 42;
    CHECK(bp_attention(q.handle(), k.handle(), v.handle(), &longer.o, &out) == BP_OK);
    bp_tensor_release(out);
    bp_attention_options o{};
    o.struct_size = 8;
    CHECK(bp_attention(q.handle(), k.handle(), v.handle(), &o, &out) == BP_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("bp_attention: struct_size 8"));
  }
  SECTION("no keys gives zeros, no queries an empty result") {
    CHECK(bp::attention(q, bp::ones({2, 0, 4}, bp::f32, dev), bp::ones({2, 0, 6}, bp::f32, dev)).to_vector<float>() ==
          std::vector<float>(36, 0.0f));
    CHECK(bp::attention(bp::ones({2, 0, 4}, bp::f32, dev), k, v).shape() == bp::Shape{2, 0, 6});
  }
  SECTION("shapes") {
    const bp::Tensor bad_k = bp::ones({2, 5, 3}, bp::f32, dev);
    CHECK(bp_attention(q.handle(), bad_k.handle(), v.handle(), nullptr, &out) == BP_ERR_SHAPE);
    CHECK(std::string(bp_last_error_op()) == "attention");
    CHECK(last_error_mentions("bp_attention: q [2, 3, 4] and k [2, 5, 3] differ in their last extent (D: 4 vs 3)"));
    const bp::Tensor bad_v = bp::ones({2, 4, 6}, bp::f32, dev);
    CHECK(bp_attention(q.handle(), k.handle(), bad_v.handle(), nullptr, &out) == BP_ERR_SHAPE);
    CHECK(last_error_mentions("(Lk: 5 vs 4)"));
    const bp::Tensor batch3 = bp::ones({3, 5, 4}, bp::f32, dev);
    CHECK(bp_attention(q.handle(), batch3.handle(), v.handle(), nullptr, &out) == BP_ERR_SHAPE);
    CHECK(last_error_mentions("do not broadcast"));
    const bp::Tensor vector = bp::ones({4}, bp::f32, dev);
    CHECK(bp_attention(vector.handle(), k.handle(), v.handle(), nullptr, &out) == BP_ERR_SHAPE);
    CHECK(last_error_mentions("q has shape [4]: q, k and v need rank >= 2"));
    bp_attention_options o{};
    o.struct_size = sizeof o;
    const bp::Tensor wide = bp::ones({4, 3, 5}, bp::f32, dev);  // a batch axis the scores do not have
    o.mask = wide.handle();
    CHECK(bp_attention(q.handle(), k.handle(), v.handle(), &o, &out) == BP_ERR_SHAPE);
    CHECK(std::string(bp_last_error_op()) == "attention");
    CHECK(last_error_mentions("the mask of shape [4, 3, 5] does not broadcast to the scores' shape [2, 3, 5]"));
  }
  SECTION("arguments") {
    bp_attention_options o{};
    o.struct_size = sizeof o;
    const bp::Tensor int_mask = bp::ones({3, 5}, bp::i32, dev);
    o.mask = int_mask.handle();
    CHECK(bp_attention(q.handle(), k.handle(), v.handle(), &o, &out) == BP_ERR_DTYPE);
    CHECK(last_error_mentions("the mask must be bool"));
    o.mask = BP_NO_TENSOR;
    o.scale = NAN;
    CHECK(bp_attention(q.handle(), k.handle(), v.handle(), &o, &out) == BP_ERR_INVALID_ARGUMENT);
    o.scale = 0;
    o.dropout = -0.1;
    CHECK(bp_attention(q.handle(), k.handle(), v.handle(), &o, &out) == BP_ERR_INVALID_ARGUMENT);
    CHECK(last_error_mentions("dropout probability must be in [0, 1]"));
    o.dropout = 0;
    o.mask = 12345;  // never issued
    CHECK(bp_attention(q.handle(), k.handle(), v.handle(), &o, &out) == BP_ERR_INVALID_HANDLE);
    CHECK(last_error_mentions("bp_attention: the mask is not a live tensor"));
    CHECK(bp_attention(q.handle(), k.handle(), v.handle(), nullptr, nullptr) == BP_ERR_INVALID_ARGUMENT);
    CHECK(bp_attention(BP_NO_TENSOR, k.handle(), v.handle(), nullptr, &out) == BP_ERR_INVALID_HANDLE);
    CHECK(last_error_mentions("bp_attention: q is a null tensor handle"));
  }
}

TEST_CASE("bp_attention of tensors on two devices is a device mismatch naming the operator") {
  bp_test::each_host_device();
  const bp::Tensor q = bp::ones({3, 4}, bp::f32, bp::Device("cpu:0"));
  const bp::Tensor k = bp::ones({5, 4}, bp::f32, bp::Device("reference:0"));
  bp_tensor out = BP_NO_TENSOR;
  CHECK(bp_attention(q.handle(), k.handle(), k.handle(), nullptr, &out) == BP_ERR_DEVICE_MISMATCH);
  CHECK(std::string(bp_last_error_op()) == "attention");
  CHECK(bp_last_error_input() == 1);
}

TEST_CASE("nn::MultiheadAttention: torch's parameter layout, heads through bp::attention, gradients to every parameter") {
  const bp::Device dev = bp_test::each_host_device();
  bp::nn::MultiheadAttention mha(8, 2, dev, 77);
  const std::vector<bp::Tensor> params = mha.parameters();
  REQUIRE(params.size() == 4);
  CHECK(params[0].shape() == bp::Shape{24, 8});
  CHECK(params[1].to_vector<float>() == std::vector<float>(24, 0.0f));  // zero biases, as torch
  CHECK(params[2].shape() == bp::Shape{8, 8});
  const bp::Tensor x = bp::from_vector<double>(ramp(2 * 5 * 8, 0.3), {2, 5, 8}, dev).astype(BP_FLOAT32);
  const bp::Tensor y = mha(x);
  CHECK(y.shape() == bp::Shape{2, 5, 8});
  // The same by hand: per head, softmax(q k^T / sqrt(4)) v, joined, projected.
  const bp::Tensor w = params[0], b = params[1];
  auto split = [&](int64_t first) {
    const bp::Tensor t = bp::matmul(x, w.slice(0, first, first + 8), false, true) + b.slice(0, first, first + 8);
    return t.reshape({2, 5, 2, 4}).permute({0, 2, 1, 3});
  };
  const bp::Tensor qh = split(0), kh = split(8), vh = split(16);
  const bp::Tensor weights = (bp::matmul(qh, kh, false, true) * 0.5).softmax(-1);
  const bp::Tensor joined = bp::matmul(weights, vh).permute({0, 2, 1, 3}).reshape({2, 5, 8});
  const bp::Tensor by_hand = bp::matmul(joined, params[2], false, true) + params[3];
  const std::vector<float> got = y.to_vector<float>(), want = by_hand.to_vector<float>();
  for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-5).margin(1e-6));
  y.square().sum().backward();
  for (const bp::Tensor &param : mha.parameters()) {
    REQUIRE(param.grad().defined());
    CHECK(param.grad().abs().sum().item<float>() > 0);
  }
  CHECK_THROWS_AS(bp::nn::MultiheadAttention(10, 3, dev), bp::InvalidArgumentError);
}
