// Figure "resnet": one training step (forward, backward, AdamW) of the
// ResNet-style network of examples/resnet_digits.py (training_shape.hpp)
// through autograd and backplane_nn.hpp, next to the same network and step
// in libtorch (bp-bench-torch: torch::nn's Conv2d, BatchNorm2d and Linear,
// torch::optim::AdamW) with the cpu plugin's thread count; other devices
// next to cpu:0's step.
#include <memory>
#include <optional>

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

// The book's residual block, as resnet_digits.py's Residual.
struct Residual {
  Residual(int64_t in, int64_t out, bool use_1x1conv, int64_t stride, const bp::Device &d, uint64_t seed)
      : conv1(in, out, {3}, conv_options(stride, 1), true, d, seed),
        conv2(out, out, {3}, conv_options(1, 1), true, d, seed + 2),
        bn1(out, 1e-5, 0.1, true, true, d),
        bn2(out, 1e-5, 0.1, true, true, d) {
    if (use_1x1conv) conv3.emplace(in, out, std::vector<int64_t>{1}, conv_options(stride, 0), true, d, seed + 4);
  }

  bp::Tensor forward(const bp::Tensor &x) {
    const bp::Tensor y = bn2(conv2(bn1(conv1(x)).relu()));
    return (y + (conv3 ? (*conv3)(x) : x)).relu();
  }

  void add_parameters(std::vector<bp::Tensor> &all) const {
    for (const bp::nn::Module *m : std::initializer_list<const bp::nn::Module *>{&conv1, &bn1, &conv2, &bn2})
      for (bp::Tensor &p : m->parameters()) all.push_back(std::move(p));
    if (conv3)
      for (bp::Tensor &p : conv3->parameters()) all.push_back(std::move(p));
  }

  bp::nn::Conv2d conv1, conv2;
  std::optional<bp::nn::Conv2d> conv3;
  bp::nn::BatchNorm2d bn1, bn2;
};

struct ResNet {
  explicit ResNet(const bp::Device &d)
      : stem(1, kResNetWidth, {3}, conv_options(1, 1), true, d, 1),
        stem_bn(kResNetWidth, 1e-5, 0.1, true, true, d),
        pool(1, 1),
        head(2 * kResNetWidth, kResNetClasses, d, 3) {
    const int64_t w = kResNetWidth;
    blocks.emplace_back(std::make_unique<Residual>(w, w, false, 1, d, 10));
    blocks.emplace_back(std::make_unique<Residual>(w, w, false, 1, d, 20));
    blocks.emplace_back(std::make_unique<Residual>(w, 2 * w, true, 2, d, 30));
    blocks.emplace_back(std::make_unique<Residual>(2 * w, 2 * w, false, 1, d, 40));
  }

  std::vector<bp::Tensor> parameters() const {
    std::vector<bp::Tensor> all = stem.parameters();
    for (bp::Tensor &p : stem_bn.parameters()) all.push_back(std::move(p));
    for (const auto &b : blocks) b->add_parameters(all);
    for (bp::Tensor &p : head.parameters()) all.push_back(std::move(p));
    return all;
  }

  // The mean cross-entropy of the logits of images [B, 1, S, S] against labels [B].
  bp::Tensor loss(const bp::Tensor &images, const bp::Tensor &labels) {
    bp::Tensor x = stem_bn(stem(images)).relu();
    for (const auto &b : blocks) x = b->forward(x);
    const bp::Tensor logits = head(pool(x).reshape({kResNetBatch, 2 * kResNetWidth}));
    return bp::nn::cross_entropy(logits, labels);
  }

  bp::nn::Conv2d stem;
  bp::nn::BatchNorm2d stem_bn;
  std::vector<std::unique_ptr<Residual>> blocks;
  bp::nn::AdaptiveAvgPool2d pool;
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
  double cpu_ms = kNaN;

  for (const bp::Device &d : bp::devices()) {
    const std::string dev = d.name();
    // The reference backend is the oracle, naive on purpose: not timed.
    if (dev.rfind("reference:", 0) == 0) continue;
    ctx.progress("resnet: a step on " + dev);
    try {
      ResNet model(d);
      bp::nn::AdamW opt(model.parameters());
      const bp::Tensor images = bp::random_uniform({kResNetBatch, 1, kResNetSize, kResNetSize}, 0, 1, 11, bp::f32, d);
      const bp::Tensor labels = random_labels(d);
      Row r{"resnet", shape, dev, "ms/step"};
      r.higher_is_better = false;
      r.backplane = measure(resnet_step(model, opt, images, labels, d.id()), trials, target) * 1e3;
      if (dev == "cpu:0") {
        cpu_ms = r.backplane;
        continue;  // its row comes with the libtorch baseline below
      }
      r.baseline_name = "cpu:0 (the same step)";
      r.baseline = cpu_ms;
      rep.add(r);
    } catch (const bp::Error &e) {
      rep.skip("resnet", shape, dev, "ms/step", "cpu:0 (the same step)", std::string("failed: ") + e.what());
    }
  }

  add_torch_step_row(ctx, rep, "resnet", shape, cpu_ms, "resnet_train_step", trials, target);
}

}  // namespace bptool::bench
