// backplane_nn.hpp: layers, losses and SGD over autograd, on every host
// device: the update rule against values computed by hand, a regression
// that trains, and parameters that move between devices.
#include <catch2/catch.hpp>

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
