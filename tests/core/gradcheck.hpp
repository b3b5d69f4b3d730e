// Gradients against central finite differences in float64, shared by the
// core's autograd tests (test_autograd.cpp, test_spatial.cpp).
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <vector>

#include "backplane.hpp"

namespace bp_test {

using Fn = std::function<bp::Tensor(const std::vector<bp::Tensor> &)>;

struct Input {
  std::vector<double> values;
  bp::Shape shape;
};

// sum(f(inputs) * w) for fixed weights w of f's shape: a scalar whose
// gradient exercises every output element with a different weight.
inline double weighted(const Fn &f, const std::vector<bp::Tensor> &xs) {
  const bp::Tensor out = f(xs).astype(BP_FLOAT64);
  std::vector<double> w(size_t(out.numel()));
  for (size_t k = 0; k < w.size(); ++k) w[k] = 0.5 + 0.25 * double(k % 7) - 0.125 * double(k % 3);
  return (out * bp::from_vector<double>(w, out.shape(), out.device())).sum().item<double>();
}

// The gradient backward() gives each input against (L(x + h) - L(x - h)) / 2h.
inline void gradcheck(const bp::Device &d, const std::vector<Input> &inputs, const Fn &f, double tolerance = 1e-6,
               double h = 1e-6) {
  std::vector<bp::Tensor> xs;
  for (const Input &in : inputs) xs.push_back(bp::from_vector<double>(in.values, in.shape, d).requires_grad_());
  const bp::Tensor out = f(xs);
  REQUIRE(out.requires_grad());
  std::vector<double> w(size_t(out.numel()));
  for (size_t k = 0; k < w.size(); ++k) w[k] = 0.5 + 0.25 * double(k % 7) - 0.125 * double(k % 3);
  (out.astype(BP_FLOAT64) * bp::from_vector<double>(w, out.shape(), out.device())).sum().backward();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bp::Tensor g = xs[i].grad();
    REQUIRE(g.defined());
    CHECK(g.shape() == inputs[i].shape);
    const std::vector<double> analytic = g.to_vector<double>();
    for (size_t j = 0; j < inputs[i].values.size(); ++j) {
      bp::NoGradGuard no_grad;
      auto at = [&](double delta) {
        std::vector<bp::Tensor> ys;
        for (size_t k = 0; k < inputs.size(); ++k) {
          std::vector<double> v = inputs[k].values;
          if (k == i) v[j] += delta;
          ys.push_back(bp::from_vector<double>(v, inputs[k].shape, d));
        }
        return weighted(f, ys);
      };
      const double numeric = (at(h) - at(-h)) / (2 * h);
      INFO("input " << i << " element " << j << ": backward " << analytic[j] << ", finite difference " << numeric);
      CHECK(std::abs(analytic[j] - numeric) <= tolerance * (1 + std::abs(numeric)));
    }
  }
}

}  // namespace bp_test
