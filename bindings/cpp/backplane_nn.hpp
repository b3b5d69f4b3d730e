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
//
// Since 1.6 the normalisation layers (LayerNorm, RMSNorm, GroupNorm,
// BatchNorm1d/2d) and train()/eval() on every Module.
#pragma once

#include <algorithm>
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
  // Training (the default) or evaluation mode, PyTorch's module->train()
  // and eval(): the layers that behave differently (Dropout, batch norm,
  // MultiheadAttention's dropout) read is_training(); a container passes it
  // on to its layers (since 1.6).
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

// PyTorch's Conv1d/2d/3d (R = 1, 2, 3; since 1.6): weight [out, in / groups,
// K...] and bias [out], drawn as PyTorch draws them by default
// (kaiming_uniform with a = sqrt(5): uniform in +-1/sqrt(fan_in), fan_in =
// in / groups * prod(K), the bias likewise). A kernel_size of one value
// stands for every spatial axis.
template <int R>
class ConvNd : public Module {
 public:
  ConvNd(int64_t in_channels, int64_t out_channels, std::vector<int64_t> kernel_size, ConvOptions options = {},
         bool with_bias = true, Device d = default_device(), uint64_t seed = next_seed())
      : options_(std::move(options)) {
    Shape shape{out_channels, in_channels / std::max<int32_t>(options_.groups, 1)};
    init(shape, kernel_size, d, seed, with_bias, out_channels);
  }
  Tensor forward(const Tensor &x) override { return conv(x, weight, bias, options_); }
  std::vector<Tensor> parameters() const override {
    if (bias.defined()) return {weight, bias};
    return {weight};
  }
  void to(Device d) override {
    weight = parameter_on(weight, d);
    if (bias.defined()) bias = parameter_on(bias, d);
  }

  Tensor weight, bias;

 protected:
  ConvNd() = default;
  // weight of `shape` + the kernel's extents; fan_in = shape[1] * prod(K).
  void init(Shape shape, const std::vector<int64_t> &kernel_size, Device d, uint64_t seed, bool with_bias,
            int64_t bias_size) {
    int64_t fan_in = shape[1];
    for (int i = 0; i < R; ++i) {
      const int64_t k = kernel_size.size() == 1 ? kernel_size[0] : kernel_size.at(size_t(i));
      shape.push_back(k);
      fan_in *= k;
    }
    const double bound = 1.0 / std::sqrt(double(fan_in > 0 ? fan_in : 1));
    weight = parameter_on(random_uniform(shape, -bound, bound, seed, f32, d), d);
    if (with_bias) bias = parameter_on(random_uniform({bias_size}, -bound, bound, seed + 1, f32, d), d);
  }
  ConvOptions options_;
};
using Conv1d = ConvNd<1>;
using Conv2d = ConvNd<2>;
using Conv3d = ConvNd<3>;

// PyTorch's ConvTranspose2d (since 1.6): weight [in, out / groups, K...],
// bias [out], PyTorch's default initialisation (fan_in = out / groups *
// prod(K)); options.output_padding adds to the result's extents.
class ConvTranspose2d : public ConvNd<2> {
 public:
  ConvTranspose2d(int64_t in_channels, int64_t out_channels, std::vector<int64_t> kernel_size,
                  ConvOptions options = {}, bool with_bias = true, Device d = default_device(),
                  uint64_t seed = next_seed()) {
    options_ = std::move(options);
    init({in_channels, out_channels / std::max<int32_t>(options_.groups, 1)}, kernel_size, d, seed, with_bias,
         out_channels);
  }
  Tensor forward(const Tensor &x) override { return conv_transpose(x, weight, bias, options_); }
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

// ---- normalisation (since 1.6) ----------------------------------------------

// What the normalisation layers share: an optional scale `weight` (ones)
// and shift `bias` (zeros) of one shape, learnable.
class AffineNorm : public Module {
 public:
  std::vector<Tensor> parameters() const override {
    std::vector<Tensor> out;
    for (const Tensor *t : {&weight, &bias})
      if (t->defined()) out.push_back(*t);
    return out;
  }
  void to(Device d) override {
    if (weight.defined()) weight = parameter_on(weight, d);
    if (bias.defined()) bias = parameter_on(bias, d);
  }

  Tensor weight, bias;

 protected:
  AffineNorm(const Shape &shape, bool with_weight, bool with_bias, Device d) {
    if (with_weight) weight = full(shape, 1.0, f32, d).requires_grad_();
    if (with_bias) bias = full(shape, 0.0, f32, d).requires_grad_();
  }
};

// PyTorch's LayerNorm: the last normalized_shape.size() axes, weight and
// bias of that shape when elementwise_affine (with_bias false: no bias).
class LayerNorm : public AffineNorm {
 public:
  explicit LayerNorm(const Shape &normalized_shape, double eps = 1e-5, bool elementwise_affine = true,
                     bool with_bias = true, Device d = default_device())
      : AffineNorm(normalized_shape, elementwise_affine, elementwise_affine && with_bias, d),
        axes_(int32_t(normalized_shape.size())),
        eps_(eps) {}
  Tensor forward(const Tensor &x) override { return layer_norm(x, axes_, weight, bias, eps_); }

 private:
  int32_t axes_;
  double eps_;
};

// PyTorch 2.4's RMSNorm: x / sqrt(mean(x^2) + eps) * weight over the last
// normalized_shape.size() axes; eps by default float32's machine epsilon
// (PyTorch's eps=None for float32 inputs).
class RMSNorm : public AffineNorm {
 public:
  explicit RMSNorm(const Shape &normalized_shape, double eps = 1.1920928955078125e-07,
                   bool elementwise_affine = true, Device d = default_device())
      : AffineNorm(normalized_shape, elementwise_affine, false, d), axes_(int32_t(normalized_shape.size())), eps_(eps) {}
  Tensor forward(const Tensor &x) override { return rms_norm(x, axes_, weight, eps_); }

 private:
  int32_t axes_;
  double eps_;
};

// PyTorch's GroupNorm: x [N, C, ...] in `groups` groups of channels, weight
// and bias per channel when affine.
class GroupNorm : public AffineNorm {
 public:
  GroupNorm(int64_t groups, int64_t channels, double eps = 1e-5, bool affine = true, Device d = default_device())
      : AffineNorm({channels}, affine, affine, d), groups_(groups), eps_(eps) {}
  Tensor forward(const Tensor &x) override { return group_norm(x, groups_, weight, bias, eps_); }

 private:
  int64_t groups_;
  double eps_;
};

// PyTorch's BatchNorm1d and BatchNorm2d: in training the batch's statistics
// per channel, moving running_mean and running_var (zeros and ones) by
// momentum (PyTorch's rule: running = (1 - momentum) running + momentum
// batch, the unbiased batch variance) and counting num_batches_tracked; in
// evaluation (eval()) the running statistics. The running statistics are
// no parameters: to() moves them.
class BatchNorm : public AffineNorm {
 public:
  explicit BatchNorm(int64_t num_features, double eps = 1e-5, double momentum = 0.1, bool affine = true,
                     bool track_running_stats = true, Device d = default_device())
      : AffineNorm({num_features}, affine, affine, d), eps_(eps), momentum_(momentum) {
    if (track_running_stats) {
      running_mean = zeros({num_features}, f32, d);
      running_var = ones({num_features}, f32, d);
    }
  }
  Tensor forward(const Tensor &x) override {
    if (is_training() && running_mean.defined()) ++num_batches_tracked;
    const bool batch_statistics = is_training() || !running_mean.defined();
    return batch_norm(x, running_mean, running_var, weight, bias, batch_statistics, momentum_, eps_);
  }
  void to(Device d) override {
    AffineNorm::to(d);
    if (running_mean.defined()) {
      running_mean = running_mean.to(d);
      running_var = running_var.to(d);
    }
  }

  Tensor running_mean, running_var;
  int64_t num_batches_tracked = 0;

 private:
  double eps_, momentum_;
};
using BatchNorm1d = BatchNorm;
using BatchNorm2d = BatchNorm;

// Multi-head attention over [N, L, E] inputs (PyTorch's MultiheadAttention
// with batch_first = true and kdim = vdim = embed_dim), with its parameters
// in its order and layout: in_proj_weight [3E, E] and in_proj_bias [3E]
// (the query, key and value projections stacked), out_proj [E, E] and its
// bias; initialised as PyTorch does (Xavier-uniform in_proj_weight, zero
// biases, out_proj's weight as Linear's). forward(x) is self-attention;
// forward(q, k, v, options) attends q to k and v head by head through
// bp::attention (options.mask in its convention, broadcasting to
// [N, num_heads, L, S]; options.dropout applied only in training mode).
class MultiheadAttention : public Module {
 public:
  MultiheadAttention(int64_t embed_dim, int64_t num_heads, Device d = default_device(), uint64_t seed = next_seed(),
                     bool with_bias = true)
      : embed_dim(embed_dim), num_heads(num_heads), out_proj(embed_dim, embed_dim, d, seed + 1, with_bias) {
    if (embed_dim <= 0 || num_heads <= 0 || embed_dim % num_heads != 0)
      throw InvalidArgumentError(BP_ERR_INVALID_ARGUMENT,
                                 "MultiheadAttention: embed_dim must be a positive multiple of num_heads",
                                 "", -1, {});
    const double bound = std::sqrt(6.0 / double(4 * embed_dim));  // xavier_uniform_ of [3E, E]
    in_proj_weight = parameter_on(random_uniform({3 * embed_dim, embed_dim}, -bound, bound, seed, f32, d), d);
    if (with_bias) {
      in_proj_bias = parameter_on(zeros({3 * embed_dim}, f32, d), d);
      out_proj.bias = parameter_on(zeros({embed_dim}, f32, d), d);
    }
  }
  Tensor forward(const Tensor &x) override { return forward(x, x, x); }
  Tensor forward(const Tensor &query, const Tensor &key, const Tensor &value, AttentionOptions options = {}) {
    const int64_t e = embed_dim;
    if (!is_training()) options.dropout = 0;
    const Tensor q = project(query, 0), k = project(key, e), v = project(value, 2 * e);
    const Tensor heads = attention(q, k, v, options);  // [N, H, L, E / H]
    const Shape s = query.shape();
    return out_proj(heads.permute({0, 2, 1, 3}).reshape({s.at(0), s.at(1), e}));
  }
  std::vector<Tensor> parameters() const override {
    std::vector<Tensor> all{in_proj_weight};
    if (in_proj_bias.defined()) all.push_back(in_proj_bias);
    for (Tensor &p : out_proj.parameters()) all.push_back(std::move(p));
    return all;
  }
  void to(Device d) override {
    in_proj_weight = parameter_on(in_proj_weight, d);
    if (in_proj_bias.defined()) in_proj_bias = parameter_on(in_proj_bias, d);
    out_proj.to(d);
  }

  int64_t embed_dim, num_heads;
  Tensor in_proj_weight, in_proj_bias;
  Linear out_proj;

 private:
  // x [N, L, E] through rows [first, first + E) of the projection, split
  // into heads: [N, H, L, E / H].
  Tensor project(const Tensor &x, int64_t first) const {
    Tensor y = matmul(x, in_proj_weight.slice(0, first, first + embed_dim), false, true);
    if (in_proj_bias.defined()) y = y + in_proj_bias.slice(0, first, first + embed_dim);
    const Shape s = x.shape();
    return y.reshape({s.at(0), s.at(1), num_heads, embed_dim / num_heads}).permute({0, 2, 1, 3});
  }
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
