// Writes into the directory argv[1] what tests/python/test_cpp_state_dict_torch.py
// loads into torch: mlp.safetensors and encoder.safetensors (Module::save of
// the C++ models of tests/data/make_cpp_state_dict_fixture.py's
// architectures on cpu:0, the mlp after three training batches so that its
// batch norm buffers have moved) and io.safetensors (each model's input and
// its output in evaluation mode, "<model>.input" and "<model>.output").
#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include "backplane_nn.hpp"

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIRECTORY\n", argv[0]);
    return 2;
  }
  try {
    const std::string dir = argv[1];
    const bp::Device d = bp::cpu();
    bp::nn::Sequential mlp;
    mlp.add(std::make_shared<bp::nn::Linear>(4, 6, d, 1));
    mlp.add(std::make_shared<bp::nn::BatchNorm1d>(6, 1e-5, 0.1, true, true, d));
    mlp.add(std::make_shared<bp::nn::ReLU>());
    mlp.add(std::make_shared<bp::nn::Linear>(6, 3, d, 3));
    for (uint64_t i = 0; i < 3; ++i) mlp(bp::random_normal({5, 4}, 1, 2, 10 + i, bp::f32, d));
    mlp.eval();
    const bp::Tensor mlp_input = bp::random_normal({5, 4}, 0, 1, 20, bp::f32, d);

    const bp::nn::TransformerEncoderLayer layer(4, 2, 8, 0.0, "relu", 1e-5, true, false, true, d, 5);
    bp::nn::TransformerEncoder encoder(layer, 2, std::make_shared<bp::nn::LayerNorm>(bp::Shape{4}, 1e-5, true, true, d));
    // The layers start as copies of one (as torch's): one step of AdamW on
    // a loss makes them differ, so a layer loaded as the other one shows.
    const bp::Tensor src = bp::random_normal({2, 3, 4}, 0, 1, 30, bp::f32, d);
    bp::nn::AdamW opt(encoder.parameters(), 0.1);
    encoder(src).square().sum().backward();
    opt.step();
    encoder.eval();

    mlp.save(dir + "/mlp.safetensors");
    encoder.save(dir + "/encoder.safetensors");
    bp::save_safetensors(dir + "/io.safetensors", {{"mlp.input", mlp_input},
                                                   {"mlp.output", mlp(mlp_input)},
                                                   {"encoder.input", src},
                                                   {"encoder.output", encoder(src)}});
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "cpp_state_dict_writer: %s\n", e.what());
    return 1;
  }
}
