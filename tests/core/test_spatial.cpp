// Pooling, dropout, padding and resizing through the C API and the C++
// headers (backplane_spatial.hpp, backplane_nn.hpp): gradients against
// finite differences in float64 on every host device and OpenCL, PyTorch's
// checks as errors naming the operator, unbatched inputs, indices, the
// dropout mask every device draws alike, and the layers' train/eval modes.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "backplane_nn.hpp"
#include "gradcheck.hpp"
#include "runtime_fixture.hpp"

namespace {

using bp_test::Fn;
using bp_test::gradcheck;
using bp_test::Input;
using bp_test::last_error_mentions;
using T = std::vector<bp::Tensor>;

// n distinct values over a small range, in a scrambled order: no ties for
// max pooling within a finite difference's step.
Input distinct(const bp::Shape &shape) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = -1.5 + 3.0 * double((i * 37) % n) / double(n) + 0.001 * double(i % 5);
  return {v, shape};
}

bp_status status_of(const std::function<void()> &f) {
  try {
    f();
  } catch (const bp::Error &e) {
    return e.status();
  }
  return BP_OK;
}

}  // namespace

TEST_CASE("max_pool and avg_pool (1-d to 3-d, padding, dilation, ceil mode, both count modes) match finite differences") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  const Input x2 = distinct({1, 2, 5, 4}), x1 = distinct({2, 1, 7}), x3 = distinct({1, 1, 3, 4, 3});
  gradcheck(d, {x2}, [](const T &x) { return bp::max_pool(x[0], bp::pool_options({2, 2})); });
  gradcheck(d, {x2}, [](const T &x) {
    return bp::max_pool(x[0], bp::pool_options({3, 2}, {2, 1}, {1, 1}, {1, 2}).ceil_mode());
  });
  gradcheck(d, {x1}, [](const T &x) { return bp::max_pool(x[0], bp::pool_options({3}, {2}, {1}).ceil_mode()); });
  gradcheck(d, {x3}, [](const T &x) { return bp::max_pool(x[0], bp::pool_options({2, 2, 2}, {1, 2, 1}, {1, 0, 1})); });
  for (bool include : {false, true}) {
    INFO("count_include_pad " << include);
    gradcheck(d, {x2}, [&](const T &x) {
      return bp::avg_pool(x[0], bp::pool_options({3, 3}, {2, 2}, {1, 1}).ceil_mode().include_pad(include));
    });
    gradcheck(d, {x1}, [&](const T &x) {
      return bp::avg_pool(x[0], bp::pool_options({4}, {3}, {2}).ceil_mode().include_pad(include));
    });
    gradcheck(d, {x3}, [&](const T &x) {
      return bp::avg_pool(x[0], bp::pool_options({2, 3, 2}, {2, 1, 1}, {1, 1, 0}).include_pad(include));
    });
  }
}

TEST_CASE("adaptive and global pooling match finite differences") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  const Input x = distinct({2, 1, 5, 7});
  gradcheck(d, {x}, [](const T &v) { return bp::adaptive_avg_pool(v[0], {3, 4}); });
  gradcheck(d, {x}, [](const T &v) { return bp::adaptive_max_pool(v[0], {3, 4}); });
  gradcheck(d, {x}, [](const T &v) { return bp::adaptive_avg_pool(v[0], {5, 1}); });  // divides: one operator
  gradcheck(d, {x}, [](const T &v) { return bp::global_avg_pool(v[0], 2); });
  gradcheck(d, {x}, [](const T &v) { return bp::global_max_pool(v[0], 2); });
}

TEST_CASE("dropout with a fixed seed, pad in every mode and interpolate match finite differences") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  const Input x = distinct({1, 2, 4, 5});
  gradcheck(d, {x}, [](const T &v) { return bp::dropout(v[0], 0.4, 11); });
  for (bp_pad_mode mode : {BP_PAD_CONSTANT, BP_PAD_REFLECT, BP_PAD_EDGE}) {
    INFO("mode " << mode);
    gradcheck(d, {x}, [&](const T &v) { return bp::pad(v[0], {0, 0, 2, -1}, {0, 1, -1, 3}, mode, 0.5); });
  }
  for (bp_interp_mode mode : {BP_INTERP_NEAREST, BP_INTERP_LINEAR})
    for (bool align : {false, true}) {
      if (mode == BP_INTERP_NEAREST && align) continue;
      INFO("mode " << mode << " align_corners " << align);
      gradcheck(d, {x}, [&](const T &v) { return bp::interpolate(v[0], std::vector<int64_t>{7, 3}, mode, align); });
      gradcheck(d, {x}, [&](const T &v) { return bp::interpolate(v[0], std::vector<double>{1.5, 2.0}, mode, align); });
    }
}

TEST_CASE("pooling refuses what PyTorch refuses, naming the operator") {
  bp_test::start(bp_test::kHostOnly);
  const bp::Tensor x = bp::ones({1, 1, 5, 5}, BP_FLOAT32, bp::cpu());
  // A padding over half the kernel (PyTorch: "pad should be at most half of kernel size").
  CHECK(status_of([&] { bp::max_pool(x, bp::pool_options({2, 2}, {}, {2, 0})); }) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("max_pool"));
  CHECK(last_error_mentions("more than half the kernel"));
  CHECK(std::string(bp_last_error_op()) == "max_pool");
  // A window larger than the padded input.
  CHECK(status_of([&] { bp::avg_pool(x, bp::pool_options({7, 1})); }) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("avg_pool"));
  CHECK(last_error_mentions("larger than the padded input"));
  // A dilated window over padding alone: PyTorch answers -inf there.
  const bp::Tensor two = bp::ones({1, 1, 2}, BP_FLOAT32, bp::cpu());
  CHECK(status_of([&] { bp::max_pool(two, bp::pool_options({2}, {1}, {1}, {3})); }) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("covers only padding"));
  // An input of the wrong rank, a kernel of 0, no options.
  CHECK(status_of([&] { bp::max_pool(bp::ones({5, 5}, BP_FLOAT32, bp::cpu()), bp::pool_options({2, 2})); }) ==
        BP_ERR_SHAPE);
  CHECK(status_of([&] { bp::max_pool(x, bp::pool_options({0, 2})); }) == BP_ERR_INVALID_ARGUMENT);
  bp_tensor out = BP_NO_TENSOR;
  CHECK(bp_max_pool(x.handle(), nullptr, &out, nullptr) == BP_ERR_INVALID_ARGUMENT);
  bp_pool_options small = bp::pool_options({2, 2}).c;
  small.struct_size = 8;
  CHECK(bp_avg_pool(x.handle(), &small, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(last_error_mentions("struct_size"));
  // The composites check their arguments too.
  CHECK(status_of([&] { bp::adaptive_avg_pool(x, {0, 2}); }) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("bp_adaptive_avg_pool"));
  CHECK(status_of([&] { bp::dropout(x, 1.5, 1); }) == BP_ERR_INVALID_ARGUMENT);
  CHECK(status_of([&] { bp::pad(x, {0, 0, 5, 0}, {0, 0, 0, 0}, BP_PAD_REFLECT); }) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("reflect"));
  CHECK(status_of([&] { bp::interpolate(x, std::vector<int64_t>{3, 3}, BP_INTERP_NEAREST, true); }) ==
        BP_ERR_INVALID_ARGUMENT);
  CHECK(status_of([&] { bp::interpolate(bp::ones({1, 1, 3}, BP_INT32, bp::cpu()), std::vector<int64_t>{5},
                                        BP_INTERP_LINEAR); }) == BP_ERR_DTYPE);
}

TEST_CASE("pooling takes an unbatched input and gives the maxima's indices on request") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::from_vector<float>({1, 3, 3, 2, 3, 0, 1, 1, 1}, {1, 3, 3}, d);
  bp::Tensor indices;
  const bp::Tensor y = bp::max_pool(x, bp::pool_options({2, 2}, {1, 1}), &indices);
  CHECK(y.shape() == bp::Shape{1, 2, 2});
  CHECK(indices.shape() == bp::Shape{1, 2, 2});
  CHECK(indices.dtype() == BP_INT64);
  CHECK(y.to_vector<float>() == std::vector<float>{3, 3, 3, 3});
  CHECK(indices.to_vector<int64_t>() == std::vector<int64_t>{1, 1, 4, 4});
  // Integers pool in their dtype; average pooling makes them float64 (as MEAN).
  const bp::Tensor ints = bp::from_vector<int32_t>({4, 1, 7, 2}, {1, 1, 4}, d);
  CHECK(bp::max_pool(ints, bp::pool_options({2})).to_vector<int32_t>() == std::vector<int32_t>{4, 7});
  const bp::Tensor mean = bp::avg_pool(ints, bp::pool_options({2}));
  CHECK(mean.dtype() == BP_FLOAT64);
  CHECK(mean.to_vector<double>() == std::vector<double>{2.5, 4.5});
  // Adaptive max gives the same indices as max pooling where the axes divide.
  bp::Tensor adaptive;
  const bp::Tensor a = bp::adaptive_max_pool(bp::from_vector<float>({1, 5, 2, 0, 3, 4}, {1, 1, 6}, d), {3}, &adaptive);
  CHECK(a.to_vector<float>() == std::vector<float>{5, 2, 4});
  CHECK(adaptive.to_vector<int64_t>() == std::vector<int64_t>{1, 2, 5});
  // and PyTorch's windows where they do not: [0, 2), [1, 3), [3, 5), [4, 6) of 6 into 4.
  bp::Tensor uneven;
  const bp::Tensor u = bp::adaptive_max_pool(bp::from_vector<float>({1, 5, 2, 0, 3, 4}, {1, 1, 6}, d), {4}, &uneven);
  CHECK(u.to_vector<float>() == std::vector<float>{5, 5, 3, 4});
  CHECK(uneven.to_vector<int64_t>() == std::vector<int64_t>{1, 1, 4, 5});
}

TEST_CASE("dropout draws one mask on every device for a seed, keeps about 1 - p and scales by 1 / (1 - p)") {
  bp_test::start(bp_test::kHostAndOpenCL);
  std::vector<bp::Device> devices = {bp::Device("cpu:0"), bp::Device("reference:0")};
  int32_t n_opencl = 0;
  for (const bp::Device &dev : bp::devices())
    if (dev.name().rfind("opencl:", 0) == 0 && n_opencl++ == 0) devices.push_back(dev);
  const double p = 0.3;
  std::vector<float> first;
  for (const bp::Device &dev : devices) {
    INFO(dev.name());
    const std::vector<float> kept = bp::dropout(bp::ones({200, 500}, BP_FLOAT32, dev), p, 1234).to_vector<float>();
    if (first.empty()) {
      first = kept;
      int64_t count = 0;
      for (float v : kept) {
        CHECK((v == 0 || v == float(1.0 / (1 - p))));
        count += v != 0;
      }
      CHECK(std::abs(double(count) / double(kept.size()) - (1 - p)) < 0.01);
    } else {
      CHECK(kept == first);
    }
  }
  // Another seed, another mask; p = 0 keeps everything, p = 1 nothing.
  const bp::Tensor ones = bp::ones({1000}, BP_FLOAT64, devices[0]);
  CHECK(bp::dropout(ones, 0.5, 1).to_vector<double>() != bp::dropout(ones, 0.5, 2).to_vector<double>());
  CHECK(bp::dropout(ones, 0.0, 1).to_vector<double>() == std::vector<double>(1000, 1.0));
  CHECK(bp::dropout(ones, 1.0, 1).to_vector<double>() == std::vector<double>(1000, 0.0));
}

TEST_CASE("pad and interpolate give torch's values") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::from_vector<float>({0, 1, 2, 3, 4}, {1, 1, 5}, d);
  // torch.nn.functional.pad(x, (2, 1), mode) and (-1, 2).
  CHECK(bp::pad(x, {0, 0, 2}, {0, 0, 1}, BP_PAD_REFLECT).to_vector<float>() ==
        std::vector<float>{2, 1, 0, 1, 2, 3, 4, 3});
  CHECK(bp::pad(x, {0, 0, -1}, {0, 0, 2}, BP_PAD_REFLECT).to_vector<float>() ==
        std::vector<float>{1, 2, 3, 4, 3, 2});
  CHECK(bp::pad(x, {0, 0, 2}, {0, 0, 1}, BP_PAD_EDGE).to_vector<float>() ==
        std::vector<float>{0, 0, 0, 1, 2, 3, 4, 4});
  CHECK(bp::pad(x, {0, 0, -2}, {0, 0, -1}, BP_PAD_CONSTANT).to_vector<float>() == std::vector<float>{2, 3});
  CHECK(bp::pad(x, {0, 0, 1}, {0, 0, 0}, BP_PAD_CONSTANT, 9).to_vector<float>() ==
        std::vector<float>{9, 0, 1, 2, 3, 4});
  // torch.nn.functional.interpolate(x, size=8) (nearest: floor(j * 5 / 8)) and
  // (size=3, mode='linear', align_corners=True).
  CHECK(bp::interpolate(x, std::vector<int64_t>{8}).to_vector<float>() ==
        std::vector<float>{0, 0, 1, 1, 2, 3, 3, 4});
  CHECK(bp::interpolate(x, std::vector<int64_t>{3}, BP_INTERP_LINEAR, true).to_vector<float>() ==
        std::vector<float>{0, 2, 4});
  const std::vector<float> half = bp::interpolate(x, std::vector<int64_t>{2}, BP_INTERP_LINEAR).to_vector<float>();
  CHECK(half[0] == Approx(0.75));  // (0 + 0.5) * 2.5 - 0.5 = 0.75
  CHECK(half[1] == Approx(3.25));
}

TEST_CASE("the pooling and dropout layers, with train() and eval() reaching every layer of a Sequential") {
  const bp::Device d = bp_test::each_host_device();
  bp::nn::Sequential net;
  net.add(std::make_shared<bp::nn::MaxPool2d>(2))
      .add(std::make_shared<bp::nn::Dropout>(0.5, 7))
      .add(std::make_shared<bp::nn::AvgPool2d>(3, 1, 1))
      .add(std::make_shared<bp::nn::AdaptiveAvgPool2d>(1, 1));
  const bp::Tensor x = bp::random_uniform({2, 3, 8, 8}, 0.5, 1.5, 3, BP_FLOAT32, d);
  CHECK(net(x).shape() == bp::Shape{2, 3, 1, 1});
  CHECK(net[1].is_training());
  net.eval();
  CHECK(!net.is_training());
  CHECK(!net[1].is_training());
  // In evaluation mode dropout is the identity: the same answer twice.
  CHECK(net(x).to_vector<float>() == net(x).to_vector<float>());
  bp::nn::Dropout drop(0.5, 9);
  CHECK(drop(x).to_vector<float>() != drop(x).to_vector<float>());  // a fresh mask per call
  drop.eval();
  CHECK(drop(x).to_vector<float>() == x.to_vector<float>());
  net.train();
  CHECK(net[1].is_training());
}
