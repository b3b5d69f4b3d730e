// Figure "resnet": one training step (forward, backward, AdamW) of the
// ResNet-style network of examples/resnet_digits.py (training_shape.hpp)
// through autograd and backplane_nn.hpp, next to the same network and step
// in libtorch (bp-bench-torch: torch::nn's Conv2d, BatchNorm2d and Linear,
// torch::optim::AdamW) with the cpu plugin's thread count; other devices
// next to cpu:0's step.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backplane_nn.hpp"
#include "bench.hpp"
#include "training_shape.hpp"

namespace bptool::bench {

namespace {

bp::ConvOptions conv_options(int64_t stride, int64_t padding) {
  bp::ConvOptions o;
  o.stride = {stride};
  o.padding = {padding};
  return o;
}

// The book's residual block, as resnet_digits.py's Residual: a Module, so
// that a Sequential lists its parameters.
class Residual : public bp::nn::Module {
 public:
  Residual(int64_t in, int64_t out, bool use_1x1conv, int64_t stride, const bp::Device &d, uint64_t seed)
      : conv1(in, out, {3}, conv_options(stride, 1), true, d, seed),
        conv2(out, out, {3}, conv_options(1, 1), true, d, seed + 2),
        bn1(out, 1e-5, 0.1, true, true, d),
        bn2(out, 1e-5, 0.1, true, true, d) {
    if (use_1x1conv) conv3.emplace(in, out, std::vector<int64_t>{1}, conv_options(stride, 0), true, d, seed + 4);
  }

  bp::Tensor forward(const bp::Tensor &x) override {
    const bp::Tensor y = bn2(conv2(bn1(conv1(x)).relu()));
    return (y + (conv3 ? (*conv3)(x) : x)).relu();
  }

  void visit_state(const std::string &prefix, const bp::nn::StateVisitor &visit) override {
    visit_child(prefix, "conv1", conv1, visit);
    visit_child(prefix, "conv2", conv2, visit);
    if (conv3) visit_child(prefix, "conv3", *conv3, visit);
    visit_child(prefix, "bn1", bn1, visit);
    visit_child(prefix, "bn2", bn2, visit);
  }

 private:
  bp::nn::Conv2d conv1, conv2;
  std::optional<bp::nn::Conv2d> conv3;
  bp::nn::BatchNorm2d bn1, bn2;
};

// The network up to the pooled features [B, 2 kResNetWidth, 1, 1].
bp::nn::Sequential resnet_body(const bp::Device &d) {
  const int64_t w = kResNetWidth;
  bp::nn::Sequential body;
  body.add(std::make_shared<bp::nn::Conv2d>(1, w, std::vector<int64_t>{3}, conv_options(1, 1), true, d, 1));
  body.add(std::make_shared<bp::nn::BatchNorm2d>(w, 1e-5, 0.1, true, true, d));
  body.add(std::make_shared<bp::nn::ReLU>());
  body.add(std::make_shared<Residual>(w, w, false, 1, d, 10));
  body.add(std::make_shared<Residual>(w, w, false, 1, d, 20));
  body.add(std::make_shared<Residual>(w, 2 * w, true, 2, d, 30));
  body.add(std::make_shared<Residual>(2 * w, 2 * w, false, 1, d, 40));
  body.add(std::make_shared<bp::nn::AdaptiveAvgPool2d>(1, 1));
  return body;
}

struct ResNet {
  explicit ResNet(const bp::Device &d) : body(resnet_body(d)), head(2 * kResNetWidth, kResNetClasses, d, 3) {}

  std::vector<bp::Tensor> parameters() const {
    std::vector<bp::Tensor> all = body.parameters();
    for (bp::Tensor &p : head.parameters()) all.push_back(std::move(p));
    return all;
  }

  // The mean cross-entropy of the logits of images [B, 1, S, S] against labels [B].
  bp::Tensor loss(const bp::Tensor &images, const bp::Tensor &labels) {
    const bp::Tensor logits = head(body(images).reshape({kResNetBatch, 2 * kResNetWidth}));
    return bp::nn::cross_entropy(logits, labels);
  }

  bp::nn::Sequential body;
  bp::nn::Linear head;
};

Work resnet_step(ResNet &model, bp::nn::AdamW &opt, const bp::Tensor &images, const bp::Tensor &labels,
                 bp_device device) {
  return [&model, &opt, &images, &labels, device](int64_t k) {
    for (int64_t i = 0; i < k; ++i) {
      const bp::Tensor loss = model.loss(images, labels);
      opt.zero_grad();
      loss.backward();
      opt.step();
    }
    bp::check(bp_synchronize(device));
  };
}

bp::Tensor random_labels(const bp::Device &d) {
  bp_tensor h = BP_NO_TENSOR;
  const int64_t shape[1] = {kResNetBatch};
  bp::check(bp_random_integers(d.id(), BP_INT64, 1, shape, 0, kResNetClasses, 13, &h));
  return bp::Tensor::adopt(h);
}

}  // namespace

void figure_resnet(Context &ctx, Report &rep) {
  const int trials = ctx.quick ? 3 : 7;
  const double target = ctx.quick ? 0.05 : 0.3;
  const std::string w = std::to_string(kResNetWidth), w2 = std::to_string(2 * kResNetWidth),
                    s = std::to_string(kResNetSize);
  const std::string shape = "ResNet 1x" + s + "x" + s + ", batch " + std::to_string(kResNetBatch) + ", stem 3x3 " +
                            w + ", residual blocks " + w + ", " + w + ", " + w2 + "/2, " + w2 +
                            ", batch norm, cross-entropy, AdamW";
  const double cpu_ms = rows_against_cpu(
      ctx, rep, {"resnet", shape, "ms/step", "cpu:0 (the same step)", "resnet: a step"}, [&](const bp::Device &d) {
        ResNet model(d);
        bp::nn::AdamW opt(model.parameters());
        const bp::Tensor images =
            bp::random_uniform({kResNetBatch, 1, kResNetSize, kResNetSize}, 0, 1, 11, bp::f32, d);
        const bp::Tensor labels = random_labels(d);
        return measure(resnet_step(model, opt, images, labels, d.id()), trials, target) * 1e3;
      });

  add_torch_step_row(ctx, rep, "resnet", shape, cpu_ms, "resnet_train_step", trials, target);
}

}  // namespace bptool::bench
