// Figure "training": one training step (forward, backward, SGD) of a
// 784-256-10 MLP on a batch of 256, through autograd and backplane_nn.hpp,
// next to the same step in libtorch (bp-bench-torch) with the cpu plugin's
// thread count; and what recording costs: a 1-element add whose input
// requires gradients, next to the same add without.
#include <algorithm>
#include <cstdlib>

#include "backplane_nn.hpp"
#include "bench.hpp"
#include "training_shape.hpp"

namespace bptool::bench {

namespace {

// The step on device d, timed as one Work.
Work training_step(bp::nn::Sequential &net, bp::nn::SGD &opt, const bp::Tensor &x, const bp::Tensor &labels,
                   bp_device device) {
  return [&net, &opt, &x, &labels, device](int64_t k) {
    for (int64_t i = 0; i < k; ++i) {
      const bp::Tensor loss = bp::nn::cross_entropy(net(x), labels);
      opt.zero_grad();
      loss.backward();
      opt.step();
    }
    bp::check(bp_synchronize(device));
  };
}

}  // namespace

void figure_training(Context &ctx, Report &rep) {
  const int trials = ctx.quick ? 3 : 7;
  const double target = ctx.quick ? 0.05 : 0.3;
  const std::string shape = "MLP 784-256-10, batch 256, cross-entropy, SGD";
  const double cpu_ms = rows_against_cpu(
      ctx, rep, {"training", shape, "ms/step", "cpu:0 (the same step)", "training: a step"}, [&](const bp::Device &d) {
        bp::nn::Sequential net;
        net.add(std::make_shared<bp::nn::Linear>(kTrainInputs, kTrainHidden, d, 1));
        net.add(std::make_shared<bp::nn::ReLU>());
        net.add(std::make_shared<bp::nn::Linear>(kTrainHidden, kTrainClasses, d, 3));
        bp::nn::SGD opt(net.parameters(), 0.01);
        const bp::Tensor x = bp::random_normal({kTrainBatch, kTrainInputs}, 0, 1, 5, bp::f32, d);
        bp_tensor labels_h = BP_NO_TENSOR;
        const int64_t batch[1] = {kTrainBatch};
        bp::check(bp_random_integers(d.id(), BP_INT64, 1, batch, 0, kTrainClasses, 6, &labels_h));
        const bp::Tensor labels = bp::Tensor::adopt(labels_h);
        return measure(training_step(net, opt, x, labels, d.id()), trials, target) * 1e3;
      });

  add_torch_step_row(ctx, rep, "training", shape, cpu_ms, "train_step", trials, target);

  // Recording: the same 1-element add, its input requiring gradients or not.
  const bp::Device cpu = bp::cpu();
  const bp::Tensor plain = bp::ones({1}, bp::f32, cpu), leaf = bp::ones({1}, bp::f32, cpu).requires_grad_();
  const Work recorded = [&](int64_t k) {
    for (int64_t i = 0; i < k; ++i) (void)(leaf + leaf);
  };
  const Work unrecorded = [&](int64_t k) {
    for (int64_t i = 0; i < k; ++i) (void)(plain + plain);
  };
  ctx.progress("training: recording cost of a 1-element add");
  const Pair p = compare(recorded, unrecorded, ctx.quick ? 7 : 21, ctx.quick ? 0.005 : 0.03);
  Row a{"training", "add float32[1], input requires gradients (recorded)", "cpu:0", "ns/op"};
  set_times(a, p, 1e9);
  a.baseline_name = "the same add, not recorded";
  a.note = "recording adds " + std::to_string(int(a.backplane - a.baseline)) + " ns";
  rep.add(a);
}

}  // namespace bptool::bench
