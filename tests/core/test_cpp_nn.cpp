// backplane_nn.hpp: layers, losses and SGD over autograd, on every host
// device: the update rule against values computed by hand, a regression
// that trains, and parameters that move between devices.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "backplane_nn.hpp"
#include "mse_training.hpp"
#include "runtime_fixture.hpp"

TEST_CASE("Linear computes x W^T + b with parameters that require gradients on its device") {
  const bp::Device d = bp_test::each_host_device();
  bp::nn::Linear layer(3, 2, d, 5);
  CHECK(layer.weight.shape() == bp::Shape{2, 3});
  CHECK(layer.bias.shape() == bp::Shape{2});
  CHECK(layer.weight.device() == d);
  CHECK(layer.weight.requires_grad());
  CHECK(layer.weight.is_leaf());
  const std::vector<float> w = layer.weight.to_vector<float>(), b = layer.bias.to_vector<float>();
  for (float v : w) CHECK(std::abs(v) <= 1 / std::sqrt(3.0f));
  const bp::Tensor x = bp::from_vector<float>({1, 2, 3}, {1, 3}, d);
  const std::vector<float> y = layer(x).to_vector<float>();
  for (int o = 0; o < 2; ++o)
    CHECK(y[size_t(o)] == Approx(w[size_t(3 * o)] + 2 * w[size_t(3 * o + 1)] + 3 * w[size_t(3 * o + 2)] + b[size_t(o)]));
}

TEST_CASE("SGD with momentum and weight decay follows PyTorch's update rule") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor p = bp::from_vector<float>({1.0f, -2.0f}, {2}, d).requires_grad_();
  bp::nn::SGD opt({p}, 0.1, 0.9, 0.01);
  // loss = sum(p^2): gradient 2p.
  double expected[2] = {1.0, -2.0}, velocity[2] = {0, 0};
  for (int step = 0; step < 3; ++step) {
    opt.zero_grad();
    (p * p).sum().backward();
    opt.step();
    for (int i = 0; i < 2; ++i) {
      const double g = 2 * expected[i] + 0.01 * expected[i];
      velocity[i] = step == 0 ? g : 0.9 * velocity[i] + g;
      expected[i] -= 0.1 * velocity[i];
    }
  }
  const std::vector<float> got = p.to_vector<float>();
  CHECK(got[0] == Approx(expected[0]).epsilon(1e-5));
  CHECK(got[1] == Approx(expected[1]).epsilon(1e-5));
}

TEST_CASE("a network trains on its device and moves with to()") {
  const bp::Device d = bp_test::each_host_device();
  bp::nn::Sequential net;
  net.add(std::make_shared<bp::nn::Linear>(2, 8, d, 1));
  net.add(std::make_shared<bp::nn::ReLU>());
  net.add(std::make_shared<bp::nn::Linear>(8, 1, d, 3));
  CHECK(net.parameters().size() == 4);
  const bp::Tensor x = bp::random_uniform({64, 2}, -1, 1, 9, bp::f32, d);
  const bp::Tensor y = (x.slice(1, 0, 1) * 2.0 - x.slice(1, 1, 2)).contiguous();
  bp::nn::SGD opt(net.parameters(), 0.1, 0.9);
  const auto [first, last] = bp_test::train_mse(net, opt, x, y, 60);
  CHECK(last < first / 20);
  const bp::Device other(d.name() == "cpu:0" ? "reference:0" : "cpu:0");
  net.to(other);
  for (const bp::Tensor &p : net.parameters()) {
    CHECK(p.device() == other);
    CHECK(p.requires_grad());
  }
  CHECK(net(x.to(other)).device() == other);
  // An optimiser built after the move trains the moved parameters.
  bp::nn::SGD moved(net.parameters(), 0.05);
  const bp::Tensor xo = x.to(other), yo = y.to(other);
  const float before = bp::nn::mse_loss(net(xo), yo).item<float>();
  for (int step = 0; step < 5; ++step) {
    const bp::Tensor loss = bp::nn::mse_loss(net(xo), yo);
    moved.zero_grad();
    loss.backward();
    moved.step();
  }
  CHECK(bp::nn::mse_loss(net(xo), yo).item<float>() < before);
}

TEST_CASE("cross_entropy is the mean of logsumexp minus the label's logit") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor logits = bp::from_vector<double>({1, 2, 3, 0.5, 0.5, -1}, {2, 3}, d).requires_grad_();
  const bp::Tensor labels = bp::from_vector<int64_t>({2, 0}, {2}, d);
  const bp::Tensor loss = bp::nn::cross_entropy(logits, labels);
  const double row0 = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)) - 3;
  const double row1 = std::log(2 * std::exp(0.5) + std::exp(-1.0)) - 0.5;
  CHECK(loss.item<double>() == Approx((row0 + row1) / 2));
  loss.backward();
  // d/dlogits = (softmax - onehot) / N
  const std::vector<double> g = logits.grad().to_vector<double>();
  const double z0 = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  CHECK(g[2] == Approx((std::exp(3.0) / z0 - 1) / 2));
  CHECK(g[0] == Approx(std::exp(1.0) / z0 / 2));
}

TEST_CASE("the normalisation layers: LayerNorm, RMSNorm, GroupNorm and BatchNorm in training and evaluation") {
  const bp::Device d = bp_test::each_host_device();
  const std::vector<float> xs = {1, 2, 3, 4, -1, 0, 5, 2, 0.5f, -2, 1, 3, 2, 2, -4, 1};
  const bp::Tensor x = bp::from_vector<float>(xs, {2, 2, 4}, d);
  bp::nn::LayerNorm ln({4}, 1e-5, true, true, d);
  CHECK(ln.parameters().size() == 2);
  CHECK(ln.weight.device() == d);
  const std::vector<float> y = ln(x).to_vector<float>();
  for (int r = 0; r < 4; ++r) {
    double mean = 0, var = 0;
    for (int j = 0; j < 4; ++j) mean += xs[size_t(r * 4 + j)] / 4.0;
    for (int j = 0; j < 4; ++j) var += (xs[size_t(r * 4 + j)] - mean) * (xs[size_t(r * 4 + j)] - mean) / 4.0;
    for (int j = 0; j < 4; ++j)
      CHECK(y[size_t(r * 4 + j)] == Approx((xs[size_t(r * 4 + j)] - mean) / std::sqrt(var + 1e-5)).margin(1e-5));
  }
  CHECK(bp::nn::LayerNorm({2, 4}, 1e-5, false).parameters().empty());
  bp::nn::RMSNorm rms({4}, 1e-6, true, d);
  CHECK(rms.parameters().size() == 1);
  const std::vector<float> r = rms(x).to_vector<float>();
  const double rs = 1 / std::sqrt((1 + 4 + 9 + 16) / 4.0 + 1e-6);
  CHECK(r[3] == Approx(4 * rs));
  bp::nn::GroupNorm gn(1, 2, 1e-5, true, d);
  CHECK(gn(x).shape() == bp::Shape{2, 2, 4});
  // BatchNorm over [N 2, C 2, L 4]: training moves the running statistics, evaluation uses them.
  bp::nn::BatchNorm1d bn(2, 1e-5, 0.1, true, true, d);
  CHECK(bn.is_training());
  const bp::Tensor yb = bn(x);
  CHECK(bn.num_batches_tracked.item<int64_t>() == 1);
  double mean0 = 0;
  for (int n = 0; n < 2; ++n)
    for (int l = 0; l < 4; ++l) mean0 += xs[size_t(n * 8 + l)] / 8.0;
  CHECK(bn.running_mean.to_vector<float>()[0] == Approx(0.1 * mean0));
  bn.eval();
  const std::vector<float> before = bn.running_mean.to_vector<float>();
  const std::vector<float> e = bn(x).to_vector<float>();
  CHECK(bn.running_mean.to_vector<float>() == before);
  CHECK(bn.num_batches_tracked.item<int64_t>() == 1);
  const float rv0 = bn.running_var.to_vector<float>()[0];
  CHECK(e[0] == Approx((1 - before[0]) / std::sqrt(rv0 + 1e-5)));
  // Sequential passes train() and eval() to its layers.
  bp::nn::Sequential net;
  auto inner = std::make_shared<bp::nn::BatchNorm>(2, 1e-5, 0.1, true, true, d);
  net.add(inner);
  net.eval();
  CHECK_FALSE(inner->is_training());
  net.train();
  CHECK(inner->is_training());
  // Gradients reach x and the affine parameters.
  const bp::Tensor leaf = x.detach().requires_grad_();
  (bn(leaf) * bn(leaf)).sum().backward();
  CHECK(leaf.grad().defined());
  CHECK(bn.weight.grad().defined());
}

TEST_CASE("AdamW with amsgrad divides by the running maximum of the second moment, as torch's") {
  const bp::Device d = bp_test::each_host_device();
  // loss = scale * sum(p^2) with a shrinking scale: the gradients fall, so
  // v falls below its maximum and amsgrad's steps differ from Adam's.
  // beta2 0.5 lets v follow the gradients down within a few steps.
  const double lr = 0.1, b1 = 0.9, b2 = 0.5, eps = 1e-8, wd = 0.01, scales[3] = {1, 0.1, 0.01};
  const auto reference = [&](bool amsgrad) {
    std::vector<double> p = {1.0, -2.0}, m(2, 0), v(2, 0), vmax(2, 0);
    for (int t = 1; t <= 3; ++t)
      for (size_t i = 0; i < 2; ++i) {
        const double g = 2 * scales[t - 1] * p[i];
        p[i] *= 1 - lr * wd;
        m[i] = b1 * m[i] + (1 - b1) * g;
        v[i] = b2 * v[i] + (1 - b2) * g * g;
        vmax[i] = std::max(vmax[i], v[i]);
        const double second = amsgrad ? vmax[i] : v[i];
        p[i] -= lr / (1 - std::pow(b1, t)) * m[i] / (std::sqrt(second) / std::sqrt(1 - std::pow(b2, t)) + eps);
      }
    return p;
  };
  const std::vector<double> adam = reference(false), ams = reference(true);
  REQUIRE(std::abs(adam[0] - ams[0]) > 1e-3);
  for (bool amsgrad : {false, true}) {
    INFO("amsgrad " << amsgrad);
    const bp::Tensor p = bp::from_vector<float>({1.0f, -2.0f}, {2}, d).requires_grad_();
    bp::nn::AdamW opt({p}, lr, {b1, b2}, eps, wd, amsgrad);
    for (double scale : scales) {
      opt.zero_grad();
      ((p * p).sum() * scale).backward();
      opt.step();
    }
    const std::vector<float> got = p.to_vector<float>();
    const std::vector<double> &want = amsgrad ? ams : adam;
    for (size_t i = 0; i < 2; ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-5));
  }
}

TEST_CASE("Embedding with max_norm renormalises the rows it reads in place, in each norm_type") {
  const bp::Device d = bp_test::each_host_device();
  // Rows of 2-norm 5, 0.5 and 10 (1-norm 7, 0.7, 14; largest magnitude 4, 0.4, 8).
  const std::vector<float> rows = {3, 4, 0.3f, 0.4f, 6, 8};
  for (const double norm_type : {2.0, 1.0, double(INFINITY), 3.0}) {
    INFO("norm_type " << norm_type);
    bp::nn::Embedding emb(3, 2, std::nullopt, d, 1, 1.0, norm_type);
    emb.weight = bp::nn::parameter_on(bp::from_vector<float>(rows, {3, 2}, d), d);
    const bp::Tensor out = emb(bp::from_vector<int64_t>({0, 1, 0}, {3}, d));
    const double norm0 = norm_type == 2 ? 5 : norm_type == 1 ? 7 : std::isinf(norm_type) ? 4 : std::cbrt(27.0 + 64.0);
    const double scale = 1.0 / (norm0 + 1e-7);
    const std::vector<float> w = emb.weight.to_vector<float>(), o = out.to_vector<float>();
    CHECK(w[0] == Approx(3 * scale).epsilon(1e-6));
    CHECK(w[1] == Approx(4 * scale).epsilon(1e-6));
    CHECK(w[2] == 0.3f);  // under max_norm
    CHECK(w[3] == 0.4f);
    CHECK(w[4] == 6);  // not read
    CHECK(w[5] == 8);
    CHECK(o == std::vector<float>{w[0], w[1], w[2], w[3], w[0], w[1]});
    // The lookup after the renormalisation still records its gradient.
    out.sum().backward();
    CHECK(emb.weight.grad().to_vector<float>() == std::vector<float>{2, 2, 1, 1, 0, 0});
  }
  // An index out of range is refused before a row is written.
  bp::nn::Embedding emb(3, 2, std::nullopt, d, 1, 1.0);
  emb.weight = bp::nn::parameter_on(bp::from_vector<float>(rows, {3, 2}, d), d);
  CHECK_THROWS_AS(emb(bp::from_vector<int64_t>({0, 3}, {2}, d)), bp::IndexError);
  CHECK(emb.weight.to_vector<float>() == rows);
  CHECK_THROWS_AS(bp::nn::Embedding(3, 2, std::nullopt, d, 1, 1.0, 0.0), bp::InvalidArgumentError);
}
