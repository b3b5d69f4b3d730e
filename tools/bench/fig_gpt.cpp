// Figure "gpt": one training step (forward, backward, AdamW) of a small
// GPT-style model (training_shape.hpp: token and position Embedding, two
// post-norm TransformerEncoderLayers with a GELU MLP under a causal mask,
// a Linear head, cross-entropy) through autograd and backplane_nn.hpp, next
// to the same model and step in libtorch (bp-bench-torch: torch::nn's
// Embedding, TransformerEncoder and Linear, torch::optim::AdamW) with the
// cpu plugin's thread count; other devices next to cpu:0's step.
#include <algorithm>
#include <cstdlib>
#include <memory>

#include "backplane_nn.hpp"
#include "bench.hpp"
#include "training_shape.hpp"

namespace bptool::bench {

namespace {

// The model on device d, initialised as torch initialises its own.
struct Gpt {
  explicit Gpt(const bp::Device &d)
      : tok(kGptVocab, kGptModel, std::nullopt, d, 1),
        pos(kGptSeq, kGptModel, std::nullopt, d, 3),
        encoder(bp::nn::TransformerEncoderLayer(kGptModel, kGptHeads, kGptFeedForward, 0.0, "gelu", 1e-5, true,
                                                false, true, d, 5),
                kGptLayers),
        head(kGptModel, kGptVocab, d, 7),
        positions(bp::arange(0, double(kGptSeq), 1, bp::i64, d)) {}

  std::vector<bp::Tensor> parameters() const {
    std::vector<bp::Tensor> all{tok.weight, pos.weight};
    for (bp::Tensor &p : encoder.parameters()) all.push_back(std::move(p));
    for (bp::Tensor &p : head.parameters()) all.push_back(std::move(p));
    return all;
  }

  // The mean cross-entropy of predicting targets [B, T] from tokens [B, T].
  bp::Tensor loss(const bp::Tensor &tokens, const bp::Tensor &targets) {
    const bp::Tensor x = tok(tokens) + pos(positions);  // [B, T, D]
    const bp::Tensor h = encoder.forward(x, bp::Tensor(), bp::Tensor(), /*is_causal=*/true);
    const bp::Tensor logits = head(h).reshape({kGptBatch * kGptSeq, kGptVocab});
    return bp::nn::cross_entropy(logits, targets.reshape({kGptBatch * kGptSeq}));
  }

  bp::nn::Embedding tok, pos;
  bp::nn::TransformerEncoder encoder;
  bp::nn::Linear head;
  bp::Tensor positions;
};

// The step on device d, timed as one Work.
Work gpt_step(Gpt &model, bp::nn::AdamW &opt, const bp::Tensor &tokens, const bp::Tensor &targets,
              bp_device device) {
  return [&model, &opt, &tokens, &targets, device](int64_t k) {
    for (int64_t i = 0; i < k; ++i) {
      const bp::Tensor loss = model.loss(tokens, targets);
      opt.zero_grad();
      loss.backward();
      opt.step();
    }
    bp::check(bp_synchronize(device));
  };
}

bp::Tensor random_tokens(const bp::Device &d, uint64_t seed) {
  bp_tensor h = BP_NO_TENSOR;
  const int64_t shape[2] = {kGptBatch, kGptSeq};
  bp::check(bp_random_integers(d.id(), BP_INT64, 2, shape, 0, kGptVocab, seed, &h));
  return bp::Tensor::adopt(h);
}

}  // namespace

void figure_gpt(Context &ctx, Report &rep) {
  const int trials = ctx.quick ? 3 : 7;
  const double target = ctx.quick ? 0.05 : 0.3;
  const std::string shape = "GPT vocab " + std::to_string(kGptVocab) + ", d_model " + std::to_string(kGptModel) +
                            ", " + std::to_string(kGptLayers) + " post-norm layers, " + std::to_string(kGptHeads) +
                            " heads, GELU MLP " + std::to_string(kGptFeedForward) + ", seq " +
                            std::to_string(kGptSeq) + ", batch " + std::to_string(kGptBatch) +
                            ", causal, cross-entropy, AdamW";
  const double cpu_ms = rows_against_cpu(
      ctx, rep, {"gpt", shape, "ms/step", "cpu:0 (the same step)", "gpt: a step"}, [&](const bp::Device &d) {
        Gpt model(d);
        bp::nn::AdamW opt(model.parameters());
        const bp::Tensor tokens = random_tokens(d, 11), targets = random_tokens(d, 13);
        return measure(gpt_step(model, opt, tokens, targets, d.id()), trials, target) * 1e3;
      });

  add_torch_step_row(ctx, rep, "gpt", shape, cpu_ms, "gpt_train_step", trials, target);
}

}  // namespace bptool::bench
