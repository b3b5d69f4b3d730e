// backplane_nn.hpp's module state (Module::visit_state and what derives
// from it) on cpu:0 and reference:0: torch's names and order, save() and
// load() round trips, load_state_dict's checks (nothing written when one
// fails), and torch's own state_dicts of
// tests/data/cpp_state_dict_fixture.safetensors (written by
// tests/data/make_cpp_state_dict_fixture.py with torch 1.13) loaded into
// the same models, which then give torch's outputs: rtol 1e-5 (atol 1e-6
// for the values near 0), float32.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backplane_nn.hpp"
#include "runtime_fixture.hpp"
#include "scratch_dir.hpp"

namespace {

// torch.nn.Sequential(Linear(4, 6), BatchNorm1d(6), ReLU(), Linear(6, 3)).
std::shared_ptr<bp::nn::Sequential> make_mlp(const bp::Device &d, uint64_t seed) {
  auto net = std::make_shared<bp::nn::Sequential>();
  net->add(std::make_shared<bp::nn::Linear>(4, 6, d, seed));
  net->add(std::make_shared<bp::nn::BatchNorm1d>(6, 1e-5, 0.1, true, true, d));
  net->add(std::make_shared<bp::nn::ReLU>());
  net->add(std::make_shared<bp::nn::Linear>(6, 3, d, seed + 2));
  return net;
}

// torch.nn.TransformerEncoder(TransformerEncoderLayer(4, 2, 8, dropout 0,
// batch_first), 2, norm=LayerNorm(4)).
std::shared_ptr<bp::nn::TransformerEncoder> make_encoder(const bp::Device &d, uint64_t seed) {
  const bp::nn::TransformerEncoderLayer layer(4, 2, 8, 0.0, "relu", 1e-5, true, false, true, d, seed);
  return std::make_shared<bp::nn::TransformerEncoder>(layer, 2,
                                                      std::make_shared<bp::nn::LayerNorm>(bp::Shape{4}, 1e-5, true, true, d));
}

std::vector<std::string> names_of(const bp::NamedTensors &tensors) {
  std::vector<std::string> out;
  for (const auto &entry : tensors) out.push_back(entry.first);
  return out;
}

// torch's state_dict keys of one TransformerEncoderLayer, in its order.
const std::vector<std::string> kEncoderLayerKeys = {
    "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight", "self_attn.out_proj.bias",
    "linear1.weight",           "linear1.bias",           "linear2.weight",            "linear2.bias",
    "norm1.weight",             "norm1.bias",             "norm2.weight",              "norm2.bias"};

std::vector<std::string> encoder_keys() {
  std::vector<std::string> keys;
  for (const char *layer : {"layers.0.", "layers.1."})
    for (const std::string &k : kEncoderLayerKeys) keys.push_back(layer + k);
  keys.push_back("norm.weight");
  keys.push_back("norm.bias");
  return keys;
}

// The values of every tensor of the state, read to the host, by name.
std::map<std::string, std::vector<double>> values_of(const bp::nn::Module &m) {
  std::map<std::string, std::vector<double>> out;
  for (const auto &[name, t] : m.state_dict()) out[name] = t.astype(bp::f64).to_vector<double>();
  return out;
}

// The fixture's tensors of one model, on d: "<model>.state.<key>" as key.
std::map<std::string, bp::Tensor> fixture_state(const bp::SafetensorsFile &f, const std::string &model,
                                                const bp::Device &d) {
  const std::string prefix = model + ".state.";
  std::map<std::string, bp::Tensor> out;
  for (const auto &e : f.entries())
    if (e.name.compare(0, prefix.size(), prefix) == 0) out[e.name.substr(prefix.size())] = f.load(e.name, d);
  return out;
}

const bp::SafetensorsFile &fixture() {
  static const bp::SafetensorsFile f =
      bp::SafetensorsFile::open(std::string(BP_TEST_SOURCE_DIR) + "/tests/data/cpp_state_dict_fixture.safetensors");
  return f;
}

// The keys of the fixture's metadata "<model>.keys": torch's order.
std::vector<std::string> torch_keys(const std::string &model) {
  const std::string joined = fixture().metadata().at(model + ".keys");
  std::vector<std::string> keys;
  size_t start = 0;
  for (size_t comma; (comma = joined.find(',', start)) != std::string::npos; start = comma + 1)
    keys.push_back(joined.substr(start, comma - start));
  keys.push_back(joined.substr(start));
  return keys;
}

void check_close(const bp::Tensor &got, const bp::Tensor &want, const std::string &what) {
  INFO(what << " on " << got.device().name());
  REQUIRE(got.shape() == want.shape());
  const std::vector<float> g = got.to_vector<float>(), w = want.to_vector<float>();
  for (size_t i = 0; i < w.size(); ++i) {
    INFO("element " << i << ": got " << g[i] << ", want " << w[i]);
    CHECK(std::abs(double(g[i]) - double(w[i])) <= 1e-6 + 1e-5 * std::abs(double(w[i])));
  }
}

// Runs a few training batches through net so that batch norm's running
// statistics and num_batches_tracked move from their initial values.
void see_batches(bp::nn::Module &net, const bp::Device &d) {
  net.train();
  for (uint64_t i = 0; i < 3; ++i) net(bp::random_normal({5, 4}, 1, 2, 40 + i, bp::f32, d));
  net.eval();
}

// The other host device: loading from it copies across devices.
bp::Device other_than(const bp::Device &d) { return bp::Device(d.name() == "cpu:0" ? "reference:0" : "cpu:0"); }

}  // namespace

TEST_CASE("C++ state_dict, named_parameters and named_buffers have torch's names in torch's order") {
  const bp::Device d = bp_test::each_host_device();
  const auto mlp = make_mlp(d, 1);
  const std::vector<std::string> mlp_keys = {"0.weight",          "0.bias",        "1.weight",
                                             "1.bias",            "1.running_mean", "1.running_var",
                                             "1.num_batches_tracked", "3.weight",   "3.bias"};
  CHECK(names_of(mlp->state_dict()) == mlp_keys);
  CHECK(names_of(mlp->state_dict()) == torch_keys("mlp"));
  CHECK(names_of(mlp->named_parameters()) ==
        std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias", "3.weight", "3.bias"});
  CHECK(names_of(mlp->named_buffers()) ==
        std::vector<std::string>{"1.running_mean", "1.running_var", "1.num_batches_tracked"});
  const bp::Tensor tracked = mlp->named_buffers().at(2).second;
  CHECK(tracked.dtype() == bp::i64);
  CHECK(tracked.shape().empty());
  CHECK(tracked.device() == d);

  // parameters() is named_parameters()'s tensors themselves, in its order.
  const bp::NamedTensors named = mlp->named_parameters();
  const std::vector<bp::Tensor> params = mlp->parameters();
  REQUIRE(params.size() == named.size());
  for (size_t i = 0; i < params.size(); ++i) CHECK(params[i].is(named[i].second));
  auto &first = dynamic_cast<bp::nn::Linear &>((*mlp)[0]);
  CHECK(params[0].is(first.weight));

  const auto encoder = make_encoder(d, 5);
  CHECK(names_of(encoder->state_dict()) == encoder_keys());
  CHECK(names_of(encoder->state_dict()) == torch_keys("encoder"));
  CHECK(names_of(encoder->named_parameters()) == encoder_keys());
  CHECK(encoder->named_buffers().empty());
  CHECK(encoder->parameters().size() == 26);
  CHECK(encoder->state_dict().at(0).second.shape() == bp::Shape{12, 4});

  // A layer reached twice is in state_dict() under both names, as in torch,
  // and among the parameters once, so that an optimiser steps it once.
  bp::nn::Sequential shared;
  const auto linear = std::make_shared<bp::nn::Linear>(2, 2, d, 3);
  shared.add(linear).add(std::make_shared<bp::nn::ReLU>()).add(linear);
  CHECK(names_of(shared.state_dict()) == std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"});
  CHECK(names_of(shared.named_parameters()) == std::vector<std::string>{"0.weight", "0.bias"});
  CHECK(shared.parameters().size() == 2);
  // Without a bias or affine parameters, no key stands for them.
  bp::nn::Sequential bare;
  bare.add(std::make_shared<bp::nn::Linear>(2, 2, d, 3, false));
  bare.add(std::make_shared<bp::nn::BatchNorm1d>(2, 1e-5, 0.1, false, false, d));
  CHECK(names_of(bare.state_dict()) == std::vector<std::string>{"0.weight"});
}

TEST_CASE("C++ modules load torch's state_dicts and give torch's outputs") {
  const bp::Device d = bp_test::each_host_device();
  const auto mlp = make_mlp(d, 7);
  const bp::nn::LoadResult r = mlp->load_state_dict(fixture_state(fixture(), "mlp", d));
  CHECK(r.missing_keys.empty());
  CHECK(r.unexpected_keys.empty());
  auto &bn = dynamic_cast<bp::nn::BatchNorm &>((*mlp)[1]);
  CHECK(bn.num_batches_tracked.item<int64_t>() == 3);
  mlp->eval();
  check_close((*mlp)(fixture().load("mlp.input", d)), fixture().load("mlp.output", d), "mlp output");

  const auto encoder = make_encoder(d, 9);
  encoder->load_state_dict(fixture_state(fixture(), "encoder", d));
  encoder->eval();
  check_close((*encoder)(fixture().load("encoder.input", d)), fixture().load("encoder.output", d),
              "encoder output");
  // The values may come from another device: they are copied to d.
  const auto moved = make_encoder(d, 11);
  moved->load_state_dict(fixture_state(fixture(), "encoder", other_than(d)));
  moved->eval();
  check_close((*moved)(fixture().load("encoder.input", d)), fixture().load("encoder.output", d),
              "encoder loaded from " + other_than(d).name());
}

TEST_CASE("C++ save then load into another module gives identical outputs, buffers included, in place") {
  const bp::Device d = bp_test::each_host_device();
  bp_test::ScratchDir dir("bp-cpp-state-dict");
  const auto a = make_mlp(d, 13);
  see_batches(*a, d);
  a->save(dir.path() + "/mlp.safetensors", {{"note", "from C++"}});
  CHECK(bp::SafetensorsFile::open(dir.path() + "/mlp.safetensors").metadata().at("note") == "from C++");

  // b differs from a in every value.
  const auto b = make_mlp(d, 17);
  const std::vector<bp::Tensor> before = b->parameters();
  bp::nn::AdamW opt(b->parameters(), 0.01);
  REQUIRE(values_of(*a) != values_of(*b));
  const bp::nn::LoadResult r = b->load(dir.path() + "/mlp.safetensors");
  CHECK(r.missing_keys.empty());
  CHECK(r.unexpected_keys.empty());
  CHECK(values_of(*b) == values_of(*a));
  // In place: the same tensors, still leaves that learn.
  const std::vector<bp::Tensor> after = b->parameters();
  REQUIRE(after.size() == before.size());
  for (size_t i = 0; i < after.size(); ++i) {
    CHECK(after[i].is(before[i]));
    CHECK(after[i].requires_grad());
  }
  b->eval();
  const bp::Tensor x = bp::random_normal({5, 4}, 0, 1, 99, bp::f32, d);
  CHECK((*b)(x).to_vector<float>() == (*a)(x).to_vector<float>());
  // The optimiser built before the load trains what was loaded.
  b->train();
  const bp::Tensor loss = (*b)(x).square().mean();
  opt.zero_grad();
  loss.backward();
  opt.step();
  CHECK(values_of(*b) != values_of(*a));

  // A module on the other host device gets the same values, on its device.
  const bp::Device e = other_than(d);
  const auto c = make_mlp(e, 41);
  c->load(dir.path() + "/mlp.safetensors");
  CHECK(values_of(*c) == values_of(*a));
  for (const auto &[name, t] : c->state_dict()) {
    INFO(name);
    CHECK(t.device() == e);
  }

  // A module's own state_dict loads into another directly.
  const auto enc_a = make_encoder(d, 19), enc_b = make_encoder(d, 23);
  enc_b->load_state_dict(enc_a->state_dict());
  CHECK(values_of(*enc_b) == values_of(*enc_a));
  enc_a->eval();
  enc_b->eval();
  const bp::Tensor src = bp::random_normal({2, 3, 4}, 0, 1, 5, bp::f32, d);
  CHECK((*enc_b)(src).to_vector<float>() == (*enc_a)(src).to_vector<float>());

  // to() moves the buffers with the parameters.
  a->to(e);
  for (const auto &[name, t] : a->state_dict()) {
    INFO(name);
    CHECK(t.device() == e);
  }
}

TEST_CASE("C++ load_state_dict checks every key, shape and dtype first and writes nothing on an error") {
  const bp::Device d = bp_test::each_host_device();
  const auto target = make_mlp(d, 29);
  const auto source = make_mlp(d, 31);
  see_batches(*source, d);
  const std::map<std::string, std::vector<double>> original = values_of(*target);
  const auto good = [&] {
    std::map<std::string, bp::Tensor> state;
    for (const auto &[name, t] : source->state_dict()) state[name] = t;
    return state;
  };
  // Each fault is in a key loaded after the others would be, so a load
  // that wrote as it went would have changed "0.weight" by then.
  const auto refused = [&](const std::map<std::string, bp::Tensor> &state, const std::vector<std::string> &parts) {
    try {
      target->load_state_dict(state);
      FAIL("no error");
    } catch (const bp::Error &e) {
      const std::string message = e.what();
      INFO(message);
      for (const std::string &part : parts) CHECK(message.find(part) != std::string::npos);
      CHECK(values_of(*target) == original);
      return e.status();
    }
    return BP_OK;
  };

  std::map<std::string, bp::Tensor> missing = good();
  missing.erase("3.bias");
  CHECK(refused(missing, {"missing keys ['3.bias']", "unexpected keys []"}) == BP_ERR_INVALID_ARGUMENT);

  std::map<std::string, bp::Tensor> unexpected = good();
  unexpected["4.weight"] = bp::zeros({1}, bp::f32, d);
  CHECK(refused(unexpected, {"missing keys []", "unexpected keys ['4.weight']"}) == BP_ERR_INVALID_ARGUMENT);

  std::map<std::string, bp::Tensor> wrong_shape = good();
  wrong_shape["3.weight"] = bp::zeros({6, 3}, bp::f32, d);
  CHECK(refused(wrong_shape, {"3.weight", "[3, 6]", "[6, 3]"}) == BP_ERR_SHAPE);

  std::map<std::string, bp::Tensor> wrong_dtype = good();
  wrong_dtype["1.num_batches_tracked"] = bp::zeros({}, bp::f32, d);
  CHECK(refused(wrong_dtype, {"1.num_batches_tracked", "int64", "float32"}) == BP_ERR_DTYPE);

  std::map<std::string, bp::Tensor> undefined = good();
  undefined["3.bias"] = bp::Tensor();
  CHECK(refused(undefined, {"3.bias", "undefined"}) == BP_ERR_INVALID_ARGUMENT);

  // Not strict: the keys that match load, the others are reported.
  std::map<std::string, bp::Tensor> partial = good();
  partial.erase("0.bias");
  partial["extra"] = bp::zeros({1}, bp::f32, d);
  const bp::nn::LoadResult r = target->load_state_dict(partial, false);
  CHECK(r.missing_keys == std::vector<std::string>{"0.bias"});
  CHECK(r.unexpected_keys == std::vector<std::string>{"extra"});
  const std::map<std::string, std::vector<double>> loaded = values_of(*target), wanted = values_of(*source);
  for (const auto &[name, v] : loaded) {
    INFO(name);
    CHECK(v == (name == "0.bias" ? original.at(name) : wanted.at(name)));
  }
  // A shape is checked without strict too.
  wrong_shape.erase("0.bias");
  CHECK_THROWS_AS(target->load_state_dict(wrong_shape, false), bp::ShapeError);
  // A file's keys are checked as a dict's.
  bp_test::ScratchDir dir("bp-cpp-state-dict");
  make_encoder(d, 37)->save(dir.path() + "/encoder.safetensors");
  CHECK_THROWS_AS(target->load(dir.path() + "/encoder.safetensors"), bp::InvalidArgumentError);
  CHECK_THROWS_AS(target->load(dir.path() + "/absent.safetensors"), bp::IoError);
}
