// Training a module of backplane_nn.hpp down a mean squared error, as the
// tests of the C++ layers do to show that gradients reach its parameters.
#pragma once

#include "backplane_nn.hpp"

namespace bp_test {

// The loss before the first step and before the last.
struct Losses {
  float first = 0, last = 0;
};

// `steps` steps of `opt` on mse_loss(model(x), y).
template <class Model>
Losses train_mse(Model &model, bp::nn::SGD &opt, const bp::Tensor &x, const bp::Tensor &y, int steps) {
  Losses l;
  for (int step = 0; step < steps; ++step) {
    const bp::Tensor loss = bp::nn::mse_loss(model(x), y);
    if (step == 0) l.first = loss.item<float>();
    l.last = loss.item<float>();
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
  return l;
}

}  // namespace bp_test
