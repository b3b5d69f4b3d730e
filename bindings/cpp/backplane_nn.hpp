// backplane_nn.hpp — layers, losses and SGD for C++ over backplane.hpp
// (since 1.1), shaped like PyTorch's C++ frontend: a Module has parameters
// on one device, forward() is made of recorded operators, so backward()
// on a loss fills every parameter's gradient there, and SGD updates the
// parameters in place with grad mode off.
//
//   bp::nn::Sequential net;
//   net.add(std::make_shared<bp::nn::Linear>(2, 1, device));
//   bp::nn::SGD opt(net.parameters(), 0.03);
//   bp::Tensor loss = bp::nn::mse_loss(net(X), y);
//   opt.zero_grad(); loss.backward(); opt.step();
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "backplane.hpp"
#include "backplane_spatial.hpp"

namespace bp::nn {

// A layer or a network: forward(x) and the tensors it learns.
class Module {
 public:
  virtual ~Module() = default;
  virtual Tensor forward(const Tensor &x) = 0;
  Tensor operator()(const Tensor &x) { return forward(x); }
  // The learnable tensors (leaves that require gradients), in a fixed order.
  virtual std::vector<Tensor> parameters() const { return {}; }
  // Moves the parameters to `d`: new leaves there, gradients start anew, so
  // build optimisers after moving (one built before holds the old tensors).
  // Parameters already on `d` stay the same tensors.
  virtual void to(Device) {}
  void zero_grad() const {
    for (const Tensor &p : parameters()) p.clear_grad();
  }
  // Training mode (the default) or evaluation mode, for layers that differ
  // (Dropout); a container passes it on to its layers (since 1.6).
  virtual void train(bool on = true) { training_ = on; }
  void eval() { train(false); }
  bool is_training() const { return training_; }

 private:
  bool training_ = true;
};

// Seeds for initialisers not given one: distinct and reproducible in a
// process (the n-th layer made gets the n-th seed).
inline uint64_t next_seed() {
  static std::atomic<uint64_t> count{0};
  return 0x5eed0000u + 2 * count.fetch_add(1);
}

// A moved or new parameter: a leaf on `d` that requires gradients.
inline Tensor parameter_on(const Tensor &t, Device d) {
  if (t.device() == d && t.requires_grad() && t.is_leaf()) return t;
  Tensor p = t.device() == d ? t.detach() : t.to(d).detach();
  p.requires_grad_();
  return p;
}

// y = x W^T + b, W of shape [out, in] and b of [out] (PyTorch's Linear),
// both drawn uniformly from +-1/sqrt(in) as PyTorch does by default.
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, Device d = default_device(), uint64_t seed = next_seed(),
         bool with_bias = true) {
    const double bound = 1.0 / std::sqrt(double(in_features > 0 ? in_features : 1));
    weight = parameter_on(random_uniform({out_features, in_features}, -bound, bound, seed, f32, d), d);
    if (with_bias) bias = parameter_on(random_uniform({out_features}, -bound, bound, seed + 1, f32, d), d);
  }
  Tensor forward(const Tensor &x) override {
    Tensor y = matmul(x, weight, false, true);
    return bias.defined() ? y + bias : y;
  }
  std::vector<Tensor> parameters() const override {
    if (bias.defined()) return {weight, bias};
    return {weight};
  }
  void to(Device d) override {
    weight = parameter_on(weight, d);
    if (bias.defined()) bias = parameter_on(bias, d);
  }

  Tensor weight, bias;
};

class ReLU : public Module {
 public:
  Tensor forward(const Tensor &x) override { return x.relu(); }
};

class Sigmoid : public Module {
 public:
  Tensor forward(const Tensor &x) override { return x.sigmoid(); }
};

// Modules applied in order; net[i] is the i-th.
class Sequential : public Module {
 public:
  Sequential &add(std::shared_ptr<Module> m) {
    layers_.push_back(std::move(m));
    return *this;
  }
  Module &operator[](size_t i) const { return *layers_.at(i); }
  size_t size() const { return layers_.size(); }
  Tensor forward(const Tensor &x) override {
    Tensor y = x;
    for (const auto &m : layers_) y = m->forward(y);
    return y;
  }
  std::vector<Tensor> parameters() const override {
    std::vector<Tensor> all;
    for (const auto &m : layers_)
      for (Tensor &p : m->parameters()) all.push_back(std::move(p));
    return all;
  }
  void to(Device d) override {
    for (const auto &m : layers_) m->to(d);
  }
  void train(bool on = true) override {
    Module::train(on);
    for (const auto &m : layers_) m->train(on);
  }

 private:
  std::vector<std::shared_ptr<Module>> layers_;
};

// 2-d pooling layers over [N, C, H, W] (since 1.6), PyTorch's defaults:
// stride = kernel, no padding; AvgPool2d counts the padding in its divisor
// (count_include_pad) as PyTorch's does.
class MaxPool2d : public Module {
 public:
  MaxPool2d(int64_t kernel, int64_t stride = 0, int64_t padding = 0, int64_t dilation = 1, bool ceil_mode = false)
      : options_(pool_options({kernel, kernel}, {stride, stride}, {padding, padding}, {dilation, dilation})
                     .ceil_mode(ceil_mode)) {}
  Tensor forward(const Tensor &x) override { return max_pool(x, options_); }

 private:
  PoolOptions options_;
};

class AvgPool2d : public Module {
 public:
  AvgPool2d(int64_t kernel, int64_t stride = 0, int64_t padding = 0, bool ceil_mode = false,
            bool count_include_pad = true)
      : options_(pool_options({kernel, kernel}, {stride, stride}, {padding, padding})
                     .ceil_mode(ceil_mode)
                     .include_pad(count_include_pad)) {}
  Tensor forward(const Tensor &x) override { return avg_pool(x, options_); }

 private:
  PoolOptions options_;
};

// Average pooling to a fixed [oh, ow] whatever the input's extents.
class AdaptiveAvgPool2d : public Module {
 public:
  AdaptiveAvgPool2d(int64_t oh, int64_t ow) : size_{oh, ow} {}
  Tensor forward(const Tensor &x) override { return adaptive_avg_pool(x, size_); }

 private:
  std::vector<int64_t> size_;
};

// In training mode x * keep / (1 - p), a fresh mask per call (seeds from
// `seed` on); the identity in evaluation mode.
class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5, uint64_t seed = next_seed()) : p_(p), seed_(seed) {}
  Tensor forward(const Tensor &x) override { return is_training() ? dropout(x, p_, seed_ + calls_++) : x; }

 private:
  double p_;
  uint64_t seed_, calls_ = 0;
};

// mean((prediction - target)^2)
inline Tensor mse_loss(const Tensor &prediction, const Tensor &target) {
  return (prediction - target).square().mean();
}

// mean over the batch of -log softmax(logits)[label]: logits [N, C], labels
// [N] of class indices (integers), on the logits' device. A negative label
// counts from the end (as every index does here); one outside [-C, C) is
// bp::IndexError.
inline Tensor cross_entropy(const Tensor &logits, const Tensor &labels) {
  const int64_t n = logits.shape().at(0);
  const Tensor rows = arange(0, double(n), 1, i64, logits.device());
  const Tensor picked = logits.gather_nd(stack({rows, labels.astype(i64)}, 1));
  return (logits.reduce(BP_OP_LOGSUMEXP, 1) - picked).mean();
}

// Stochastic gradient descent with optional momentum and weight decay
// (PyTorch's update rule). step() writes into the parameters with _out
// operators under NoGradGuard and allocates nothing after the first step.
class SGD {
 public:
  SGD(std::vector<Tensor> params, double lr, double momentum = 0, double weight_decay = 0)
      : params_(std::move(params)), lr_(lr), momentum_(momentum), weight_decay_(weight_decay) {}

  void zero_grad() const {
    for (const Tensor &p : params_) p.clear_grad();
  }

  void step() {
    NoGradGuard no_grad;
    if (scratch_.empty())
      for (const Tensor &p : params_) {
        scratch_.push_back(zeros(p.shape(), p.dtype(), p.device()));
        velocity_.push_back(momentum_ != 0 ? zeros(p.shape(), p.dtype(), p.device()) : Tensor());
        decay_.push_back(weight_decay_ != 0 ? zeros(p.shape(), p.dtype(), p.device()) : Tensor());
      }
    for (size_t i = 0; i < params_.size(); ++i) {
      const Tensor &p = params_[i];
      const Tensor g = p.grad();
      if (!g.defined()) continue;
      const Tensor *d = &g;
      if (weight_decay_ != 0) {  // d = g + weight_decay * p
        check(bp_binary_scalar_out(BP_OP_MUL, p.handle(), weight_decay_, 0, decay_[i].handle()));
        binary_out(BP_OP_ADD, decay_[i], g, decay_[i]);
        d = &decay_[i];
      }
      if (momentum_ != 0) {  // v = momentum * v + d
        check(bp_binary_scalar_out(BP_OP_MUL, velocity_[i].handle(), momentum_, 0, velocity_[i].handle()));
        binary_out(BP_OP_ADD, velocity_[i], *d, velocity_[i]);
        d = &velocity_[i];
      }
      // p += -lr * d
      check(bp_binary_scalar_out(BP_OP_MUL, d->handle(), -lr_, 0, scratch_[i].handle()));
      binary_out(BP_OP_ADD, p, scratch_[i], p);
    }
  }

 private:
  std::vector<Tensor> params_;
  double lr_, momentum_, weight_decay_;
  std::vector<Tensor> scratch_, velocity_, decay_;
};

}  // namespace bp::nn
