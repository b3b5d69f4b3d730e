// backplane_nn.hpp's transformer kit (Embedding, GELU, SiLU, Softmax,
// LogSoftmax, TransformerEncoderLayer, TransformerEncoder, AdamW) against
// PyTorch's numbers on cpu:0, reference:0 and opencl:0: the weights,
// inputs, outputs and gradients of tests/data/cpp_transformer_fixture.safetensors
// (written by tests/data/make_cpp_transformer_fixture.py with torch 1.13),
// loaded by torch's state_dict names into the members of the same names.
//
// Tolerances, float32 throughout, |got - want| <= atol + rtol * |want| per
// element: outputs rtol 1e-5, atol 1e-6; gradients rtol 1e-4, atol 1e-5
// (backward sums over more terms, and a layer norm's gradient divides by
// the standard deviation); AdamW's parameters rtol 1e-5, atol 1e-6. The
// three devices differ from torch by at most about 2e-7 here (a few float32
// roundings of values near 0.1), so these leave a wide margin for other
// kernels' summation orders while still catching a wrong formula, mask or
// default.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backplane_nn.hpp"
#include "runtime_fixture.hpp"

namespace {

constexpr double kOutRtol = 1e-5, kOutAtol = 1e-6, kGradRtol = 1e-4, kGradAtol = 1e-5;

const bp::SafetensorsFile &fixture() {
  static const bp::SafetensorsFile f =
      bp::SafetensorsFile::open(std::string(BP_TEST_SOURCE_DIR) + "/tests/data/cpp_transformer_fixture.safetensors");
  return f;
}

bp::Tensor load(const std::string &name, const bp::Device &d) { return fixture().load(name, d); }

// A parameter of the fixture's: a leaf on d that requires gradients.
bp::Tensor load_parameter(const std::string &name, const bp::Device &d) {
  return bp::nn::parameter_on(load(name, d), d);
}

// Every element of got within atol + rtol * |want| of want's, the shapes equal.
void check_close(const bp::Tensor &got, const bp::Tensor &want, double rtol, double atol, const std::string &what) {
  INFO(what << " on " << got.device().name());
  REQUIRE(got.defined());
  REQUIRE(got.shape() == want.shape());
  const std::vector<float> g = got.astype(bp::f32).to_vector<float>(), w = want.to_vector<float>();
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    const double excess = std::abs(double(g[i]) - double(w[i])) - (atol + rtol * std::abs(double(w[i])));
    if (!(excess <= worst)) {  // NaN counts
      worst = std::isnan(excess) ? INFINITY : excess;
      at = i;
    }
  }
  INFO("worst element " << at << ": got " << (g.empty() ? 0.f : g[at]) << ", want " << (w.empty() ? 0.f : w[at]));
  CHECK(worst <= 0);
}

// The scalar loss of the fixture: sum(out * upstream).
bp::Tensor loss_of(const bp::Tensor &out, const std::string &prefix, const bp::Device &d) {
  return (out * load(prefix + ".upstream", d)).sum();
}

// The parameters of a layer by torch's state_dict names.
std::vector<std::pair<std::string, bp::Tensor *>> named(bp::nn::TransformerEncoderLayer &l) {
  return {{"self_attn.in_proj_weight", &l.self_attn.in_proj_weight},
          {"self_attn.in_proj_bias", &l.self_attn.in_proj_bias},
          {"self_attn.out_proj.weight", &l.self_attn.out_proj.weight},
          {"self_attn.out_proj.bias", &l.self_attn.out_proj.bias},
          {"linear1.weight", &l.linear1.weight},
          {"linear1.bias", &l.linear1.bias},
          {"linear2.weight", &l.linear2.weight},
          {"linear2.bias", &l.linear2.bias},
          {"norm1.weight", &l.norm1.weight},
          {"norm1.bias", &l.norm1.bias},
          {"norm2.weight", &l.norm2.weight},
          {"norm2.bias", &l.norm2.bias}};
}

std::vector<std::pair<std::string, bp::Tensor *>> named(bp::nn::TransformerEncoder &e, bp::nn::LayerNorm &norm) {
  std::vector<std::pair<std::string, bp::Tensor *>> all;
  for (size_t i = 0; i < e.layers.size(); ++i)
    for (auto &[name, p] : named(*e.layers[i])) all.push_back({"layers." + std::to_string(i) + "." + name, p});
  all.push_back({"norm.weight", &norm.weight});
  all.push_back({"norm.bias", &norm.bias});
  return all;
}

void load_all(const std::vector<std::pair<std::string, bp::Tensor *>> &params, const std::string &prefix,
              const bp::Device &d) {
  for (const auto &[name, p] : params) *p = load_parameter(prefix + "." + name, d);
}

void check_grads(const std::vector<std::pair<std::string, bp::Tensor *>> &params, const std::string &prefix,
                 const bp::Device &d) {
  for (const auto &[name, p] : params)
    check_close(p->grad(), load(prefix + ".grad." + name, d), kGradRtol, kGradAtol, prefix + " grad of " + name);
}

// A layer of the fixture's configuration (d_model 8, 2 heads, 16 wide).
bp::nn::TransformerEncoderLayer fixture_layer(const std::string &activation, bool norm_first, const bp::Device &d,
                                              double dropout = 0) {
  return bp::nn::TransformerEncoderLayer(8, 2, 16, dropout, activation, 1e-5, true, norm_first, true, d);
}

}  // namespace

TEST_CASE("C++ Embedding matches torch's rows and its weight's gradient, repeated indices adding up") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  bp::nn::Embedding emb(10, 6, std::nullopt, d);
  CHECK(emb.weight.shape() == bp::Shape{10, 6});
  CHECK(emb.weight.requires_grad());
  emb.weight = load_parameter("embedding.weight", d);
  const bp::Tensor out = emb(load("embedding.indices", d));
  check_close(out, load("embedding.out", d), kOutRtol, kOutAtol, "embedding out");
  loss_of(out, "embedding", d).backward();
  check_close(emb.weight.grad(), load("embedding.grad.weight", d), kGradRtol, kGradAtol, "embedding weight grad");
  // int32 indices name the same rows.
  check_close(emb(load("embedding.indices", d).astype(bp::i32)), load("embedding.out", d), 0, 0, "int32 indices");
}

TEST_CASE("C++ Embedding: N(0, 1) initialisation, padding_idx and the errors name the Embedding") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  bp::nn::Embedding big(1000, 16, std::nullopt, d, 7);
  const double mean = big.weight.mean().item(), stddev = big.weight.std().item();
  CHECK(std::abs(mean) < 0.02);
  CHECK(std::abs(stddev - 1) < 0.02);

  bp::nn::Embedding padded(5, 3, -1, d, 11);  // row 4
  REQUIRE(padded.padding_idx == 4);
  CHECK(padded.weight.slice(0, 4, 5).abs().max().item() == 0);
  const bp::Tensor idx = bp::from_vector<int64_t>({4, 1, 4, 0}, {2, 2}, d);
  padded(idx).sum().backward();
  const std::vector<float> g = padded.weight.grad().to_vector<float>();
  for (int c = 0; c < 3; ++c) {
    CHECK(g[size_t(4 * 3 + c)] == 0);  // the padding row gets none
    CHECK(g[size_t(1 * 3 + c)] == 1);
    CHECK(g[size_t(0 * 3 + c)] == 1);
    CHECK(g[size_t(2 * 3 + c)] == 0);
  }

  bp::nn::Embedding emb(5, 3, std::nullopt, d, 3);
  for (int64_t bad : {5, -1}) {
    INFO("index " << bad);
    try {
      emb(bp::from_vector<int64_t>({0, bad}, {2}, d));
      FAIL("no error");
    } catch (const bp::IndexError &e) {
      const std::string message = e.what();
      INFO(message);
      CHECK(message.find("Embedding: index out of range in self") != std::string::npos);
      CHECK(message.find("[0, 5)") != std::string::npos);
    }
  }
  CHECK_THROWS_AS(emb(bp::from_vector<float>({0, 1}, {2}, d)), bp::DtypeError);
  CHECK_THROWS_AS(bp::nn::Embedding(5, 3, 5, d), bp::InvalidArgumentError);
}

TEST_CASE("C++ GELU (none, tanh), SiLU, Softmax and LogSoftmax match torch, values and gradients") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  std::vector<std::pair<std::string, std::shared_ptr<bp::nn::Module>>> layers = {
      {"gelu", std::make_shared<bp::nn::GELU>()},
      {"gelu_tanh", std::make_shared<bp::nn::GELU>("tanh")},
      {"silu", std::make_shared<bp::nn::SiLU>()},
      {"softmax", std::make_shared<bp::nn::Softmax>(1)},
      {"log_softmax", std::make_shared<bp::nn::LogSoftmax>(-1)}};
  for (auto &[name, layer] : layers) {
    const bp::Tensor x = load("act.x", d).requires_grad_();
    const bp::Tensor out = (*layer)(x);
    check_close(out, load(name + ".out", d), kOutRtol, kOutAtol, name + " out");
    loss_of(out, name, d).backward();
    check_close(x.grad(), load(name + ".x_grad", d), kGradRtol, kGradAtol, name + " x grad");
  }
  CHECK_THROWS_AS(bp::nn::GELU("erf"), bp::InvalidArgumentError);
  CHECK_THROWS_AS(bp::nn::gelu(load("act.x", d), "fast"), bp::InvalidArgumentError);
}

TEST_CASE("C++ TransformerEncoderLayer, post-norm with relu, matches torch: output and every gradient") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  bp::nn::TransformerEncoderLayer layer = fixture_layer("relu", false, d);
  CHECK(layer.parameters().size() == 12);
  load_all(named(layer), "post", d);
  const bp::Tensor src = load("post.src", d).requires_grad_();
  const bp::Tensor out = layer(src);
  check_close(out, load("post.out", d), kOutRtol, kOutAtol, "post out");
  loss_of(out, "post", d).backward();
  check_close(src.grad(), load("post.src_grad", d), kGradRtol, kGradAtol, "post src grad");
  check_grads(named(layer), "post", d);
}

TEST_CASE("C++ TransformerEncoderLayer, pre-norm with gelu, is_causal and a key padding mask, matches torch") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  bp::nn::TransformerEncoderLayer layer = fixture_layer("gelu", true, d);
  load_all(named(layer), "pre", d);
  const bp::Tensor src = load("pre.src", d).requires_grad_();
  // The fixture keeps 1 where a key takes part: bp_attention's convention.
  const bp::Tensor keep = load("pre.keep", d) != 0;
  const bp::Tensor out = layer.forward(src, bp::Tensor(), keep, true);
  check_close(out, load("pre.out", d), kOutRtol, kOutAtol, "pre out");
  loss_of(out, "pre", d).backward();
  check_close(src.grad(), load("pre.src_grad", d), kGradRtol, kGradAtol, "pre src grad");
  check_grads(named(layer), "pre", d);

  // The same causal triangle as a bool src_mask, combined with the padding.
  const bp::Tensor rows = bp::arange(0, 5, 1, bp::i64, d).reshape({5, 1}),
                   cols = bp::arange(0, 5, 1, bp::i64, d).reshape({1, 5});
  const bp::Tensor causal = cols <= rows;
  check_close(layer.forward(src, causal, keep), load("pre.out", d), kOutRtol, kOutAtol, "pre out, bool src_mask");
  // ... and as torch's float mask (0 and -inf), combined with the bool padding.
  check_close(layer.forward(src, load("encoder.mask", d), keep), load("pre.out", d), kOutRtol, kOutAtol,
              "pre out, float src_mask");
}

TEST_CASE("C++ TransformerEncoder: two layers and a final LayerNorm under a float causal mask match torch") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  auto norm = std::make_shared<bp::nn::LayerNorm>(bp::Shape{8}, 1e-5, true, true, d);
  bp::nn::TransformerEncoder encoder(fixture_layer("gelu", false, d), 2, norm);
  REQUIRE(encoder.layers.size() == 2);
  CHECK(encoder.parameters().size() == 2 * 12 + 2);
  load_all(named(encoder, *norm), "encoder", d);
  const bp::Tensor src = load("encoder.src", d).requires_grad_();
  const bp::Tensor out = encoder.forward(src, load("encoder.mask", d));
  check_close(out, load("encoder.out", d), kOutRtol, kOutAtol, "encoder out");
  loss_of(out, "encoder", d).backward();
  check_close(src.grad(), load("encoder.src_grad", d), kGradRtol, kGradAtol, "encoder src grad");
  check_grads(named(encoder, *norm), "encoder", d);
}

TEST_CASE("C++ TransformerEncoder copies its layer: equal values at the start, tensors of their own") {
  const bp::Device d = bp_test::each_host_device();
  bp::nn::TransformerEncoderLayer layer = fixture_layer("relu", false, d);
  bp::nn::TransformerEncoder encoder(layer, 3);
  const std::vector<bp::Tensor> original = layer.parameters();
  for (const auto &copy : encoder.layers) {
    const std::vector<bp::Tensor> ps = copy->parameters();
    REQUIRE(ps.size() == original.size());
    for (size_t i = 0; i < ps.size(); ++i) {
      CHECK_FALSE(ps[i].is(original[i]));
      CHECK(ps[i].requires_grad());
      CHECK(bp::allclose(ps[i], original[i], 0, 0));
    }
  }
  {
    bp::NoGradGuard no_grad;
    encoder.layers[0]->linear1.weight.assign(bp::zeros({16, 8}, bp::f32, d));
  }
  CHECK(layer.linear1.weight.abs().max().item() > 0);
  CHECK(encoder.layers[1]->linear1.weight.abs().max().item() > 0);
  // Moving the encoder moves every copy.
  const bp::Device other(d.name() == "cpu:0" ? "reference:0" : "cpu:0");
  encoder.to(other);
  for (const bp::Tensor &p : encoder.parameters()) CHECK(p.device() == other);
}

TEST_CASE("C++ TransformerEncoderLayer: dropout in training only, train()/eval() reach every layer") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  bp::nn::TransformerEncoderLayer deterministic = fixture_layer("gelu", false, d, 0.0);
  bp::nn::TransformerEncoderLayer dropping = fixture_layer("gelu", false, d, 0.5);
  load_all(named(deterministic), "post", d);
  load_all(named(dropping), "post", d);
  const bp::Tensor src = load("post.src", d);
  const bp::Tensor expected = deterministic(src);
  CHECK(dropping.is_training());
  const bp::Tensor a = dropping(src), b = dropping(src);
  CHECK_FALSE(bp::allclose(a, expected, 1e-3, 1e-3));
  CHECK_FALSE(bp::allclose(a, b, 1e-3, 1e-3));  // a fresh mask per call
  dropping.eval();
  CHECK_FALSE(dropping.dropout.is_training());
  CHECK_FALSE(dropping.self_attn.is_training());
  check_close(dropping(src), expected, 1e-6, 1e-6, "eval output");
  dropping.train();
  CHECK(dropping.dropout2.is_training());
  CHECK_FALSE(bp::allclose(dropping(src), expected, 1e-3, 1e-3));

  bp::nn::TransformerEncoder encoder(dropping, 2);
  encoder.eval();
  for (const auto &layer : encoder.layers) CHECK_FALSE(layer->dropout1.is_training());
  const bp::Tensor once = encoder(src), twice = encoder(src);
  check_close(once, twice, 0, 0, "encoder in eval");
}

TEST_CASE("C++ TransformerEncoderLayer and MultiheadAttention refuse bad configurations with clear errors") {
  const bp::Device d = bp_test::each_host_device();
  try {
    bp::nn::TransformerEncoderLayer(8, 3, 16, 0.0, "relu", 1e-5, true, false, true, d);
    FAIL("no error");
  } catch (const bp::InvalidArgumentError &e) {
    CHECK(std::string(e.what()).find("embed_dim must be a positive multiple of num_heads") != std::string::npos);
  }
  CHECK_THROWS_AS(bp::nn::TransformerEncoderLayer(8, 0, 16, 0.0, "relu", 1e-5, true, false, true, d),
                  bp::InvalidArgumentError);
  CHECK_THROWS_WITH(bp::nn::TransformerEncoderLayer(8, 2, 16, 0.0, "tanh", 1e-5, true, false, true, d),
                    Catch::Contains("activation should be \"relu\" or \"gelu\""));
  CHECK_THROWS_WITH(bp::nn::TransformerEncoderLayer(8, 2, 16, 0.0, "relu", 1e-5, false, false, true, d),
                    Catch::Contains("batch_first = false"));
  CHECK_THROWS_AS(bp::nn::TransformerEncoderLayer(8, 2, 16, 1.5, "relu", 1e-5, true, false, true, d),
                  bp::InvalidArgumentError);
  CHECK_THROWS_AS(bp::nn::TransformerEncoder(fixture_layer("relu", false, d), -1), bp::InvalidArgumentError);
  // An input of the wrong width is the projection's shape error.
  bp::nn::TransformerEncoderLayer layer = fixture_layer("relu", false, d);
  CHECK_THROWS_AS(layer(bp::zeros({2, 5, 6}, bp::f32, d)), bp::ShapeError);
}

TEST_CASE("C++ AdamW follows torch's trajectory, chosen hyperparameters and torch's defaults") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  for (const auto &[prefix, steps] : {std::pair<std::string, int>{"adamw", 5}, {"adamw_default", 3}}) {
    bp::nn::Linear lin(4, 3, d);
    lin.weight = load_parameter(prefix + ".start.weight", d);
    lin.bias = load_parameter(prefix + ".start.bias", d);
    std::unique_ptr<bp::nn::AdamW> opt =
        prefix == "adamw" ? std::make_unique<bp::nn::AdamW>(lin.parameters(), 0.05, std::pair{0.8, 0.99}, 1e-6, 0.1)
                          : std::make_unique<bp::nn::AdamW>(lin.parameters());
    const bp::Tensor x = load(prefix + ".x", d), y = load(prefix + ".y", d);
    for (int step = 1; step <= steps; ++step) {
      opt->zero_grad();
      bp::nn::mse_loss(lin(x), y).backward();
      opt->step();
      const std::string at = prefix + ".step" + std::to_string(step) + ".";
      check_close(lin.weight, load(at + "weight", d), 1e-5, 1e-6, at + "weight");
      check_close(lin.bias, load(at + "bias", d), 1e-5, 1e-6, at + "bias");
    }
  }
  // A parameter without a gradient is left alone, its steps not counted.
  const bp::Tensor p = bp::ones({2}, bp::f32, d).requires_grad_(), q = bp::ones({2}, bp::f32, d).requires_grad_();
  bp::nn::AdamW opt({p, q});
  (p * 2.0).sum().backward();
  opt.step();
  CHECK(q.to_vector<float>() == std::vector<float>{1, 1});
  CHECK(p.to_vector<float>()[0] < 1);
  CHECK_THROWS_AS(bp::nn::AdamW({p}, 1e-3, {1.0, 0.999}), bp::InvalidArgumentError);
}

TEST_CASE("C++ a tiny GPT made of the kit learns to continue a sequence with AdamW") {
  const bp::Device d = bp_test::each_host_device();
  constexpr int64_t vocab = 12, dim = 16, seq = 8, batch = 4;
  bp::nn::Embedding tok(vocab, dim, std::nullopt, d, 1), pos(seq, dim, std::nullopt, d, 3);
  bp::nn::TransformerEncoder encoder(
      bp::nn::TransformerEncoderLayer(dim, 2, 32, 0.0, "gelu", 1e-5, true, true, true, d, 5), 1,
      std::make_shared<bp::nn::LayerNorm>(bp::Shape{dim}, 1e-5, true, true, d));
  bp::nn::Linear head(dim, vocab, d, 7);
  std::vector<bp::Tensor> params{tok.weight, pos.weight};
  for (bp::Tensor &p : encoder.parameters()) params.push_back(p);
  for (bp::Tensor &p : head.parameters()) params.push_back(p);
  // Each sequence counts up from its own start: the next token is the
  // current one plus 1 (mod vocab), learnable only through the embeddings.
  std::vector<int64_t> tokens, targets;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t t = 0; t < seq; ++t) {
      tokens.push_back((3 * b + t) % vocab);
      targets.push_back((3 * b + t + 1) % vocab);
    }
  const bp::Tensor x = bp::from_vector<int64_t>(tokens, {batch, seq}, d);
  const bp::Tensor y = bp::from_vector<int64_t>(targets, {batch * seq}, d);
  const bp::Tensor positions = bp::arange(0, double(seq), 1, bp::i64, d);
  bp::nn::AdamW opt(params, 1e-2);
  float first = 0, last = 0;
  for (int step = 0; step < 40; ++step) {
    const bp::Tensor h = encoder.forward(tok(x) + pos(positions), bp::Tensor(), bp::Tensor(), true);
    const bp::Tensor loss = bp::nn::cross_entropy(head(h).reshape({batch * seq, vocab}), y);
    (step == 0 ? first : last) = loss.item<float>();
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
  INFO("loss " << first << " -> " << last);
  CHECK(first > 2.0f);  // about log(12) at the start
  CHECK(last < first / 4);
}
