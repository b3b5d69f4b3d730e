// bp_conv and bp_conv_transpose through the C API and the C++ header: values
// against a plain loop of plugin.h's formula, gradients (input, weight and
// bias of both) against central finite differences in float64 on every host
// device, the other float dtypes against float64, and the errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "backplane_nn.hpp"
#include "mse_training.hpp"
#include "runtime_fixture.hpp"

namespace {

using bp_test::last_error_mentions;

std::vector<double> random_values(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(n);
  for (double &x : v) x = u(rng);
  return v;
}

int64_t count(const bp::Shape &s) {
  int64_t n = 1;
  for (int64_t e : s) n *= e;
  return n;
}

struct Problem {
  bp::Shape x, w;
  bp::ConvOptions o;
  bool bias = true;
};

// y = conv(x, w) + b by plugin.h's formula, spatial axes padded to three.
std::vector<double> oracle(const Problem &p, const std::vector<double> &x, const std::vector<double> &w,
                           const std::vector<double> &b, bp::Shape &y_shape) {
  const int r = int(p.x.size()) - 2;
  const int64_t n = p.x[0], c_in = p.x[1], c_out = p.w[0], groups = p.o.groups;
  int64_t S[3] = {1, 1, 1}, K[3] = {1, 1, 1}, O[3] = {1, 1, 1}, st[3] = {1, 1, 1}, d[3] = {1, 1, 1}, pb[3] = {};
  y_shape = {n, c_out};
  for (int i = 0; i < r; ++i) {
    auto axis = [&](const std::vector<int64_t> &v, int64_t otherwise) {
      return v.empty() ? otherwise : v.size() == 1 ? v[0] : v[size_t(i)];
    };
    S[i] = p.x[size_t(2 + i)], K[i] = p.w[size_t(2 + i)], st[i] = axis(p.o.stride, 1), d[i] = axis(p.o.dilation, 1);
    pb[i] = axis(p.o.padding, 0);
    const int64_t pe = axis(p.o.padding_end, pb[i]);
    O[i] = (S[i] + pb[i] + pe - d[i] * (K[i] - 1) - 1) / st[i] + 1;
    y_shape.push_back(O[i]);
  }
  const int64_t in_g = c_in / groups, out_g = c_out / groups;
  std::vector<double> y(size_t(count(y_shape)));
  size_t at = 0;
  for (int64_t b0 = 0; b0 < n; ++b0)
    for (int64_t co = 0; co < c_out; ++co)
      for (int64_t o0 = 0; o0 < O[0]; ++o0)
        for (int64_t o1 = 0; o1 < O[1]; ++o1)
          for (int64_t o2 = 0; o2 < O[2]; ++o2) {
            double sum = p.bias ? b[size_t(co)] : 0;
            for (int64_t c = 0; c < in_g; ++c)
              for (int64_t k0 = 0; k0 < K[0]; ++k0)
                for (int64_t k1 = 0; k1 < K[1]; ++k1)
                  for (int64_t k2 = 0; k2 < K[2]; ++k2) {
                    const int64_t p0 = o0 * st[0] - pb[0] + k0 * d[0], p1 = o1 * st[1] - pb[1] + k1 * d[1],
                                  p2 = o2 * st[2] - pb[2] + k2 * d[2];
                    if (p0 < 0 || p0 >= S[0] || p1 < 0 || p1 >= S[1] || p2 < 0 || p2 >= S[2]) continue;
                    const int64_t ci = co / out_g * in_g + c;
                    sum += x[size_t((((b0 * c_in + ci) * S[0] + p0) * S[1] + p1) * S[2] + p2)] *
                           w[size_t((((co * in_g + c) * K[0] + k0) * K[1] + k1) * K[2] + k2)];
                  }
            y[at++] = sum;
          }
  return y;
}

bp::ConvOptions opts(std::vector<int64_t> stride, std::vector<int64_t> padding, std::vector<int64_t> dilation,
                     int32_t groups, std::vector<int64_t> padding_end = {}) {
  bp::ConvOptions o;
  o.stride = std::move(stride), o.padding = std::move(padding), o.dilation = std::move(dilation);
  o.groups = groups, o.padding_end = std::move(padding_end);
  return o;
}

const std::vector<Problem> kProblems = {
    {{2, 3, 7}, {4, 3, 3}, opts({1}, {0}, {1}, 1)},                  // 1-D
    {{1, 4, 9}, {6, 2, 2}, opts({2}, {1}, {2}, 2), false},           // 1-D, groups, stride, dilation
    {{2, 2, 5, 6}, {3, 2, 3, 3}, opts({1}, {1}, {1}, 1)},            // 2-D same padding
    {{1, 4, 7, 5}, {4, 1, 3, 2}, opts({2, 1}, {1, 0}, {1, 2}, 4)},   // depthwise, mixed per axis
    {{2, 6, 6, 6}, {4, 3, 1, 1}, opts({2}, {0}, {1}, 2)},            // 1x1 stride 2, groups
    {{1, 2, 5, 5}, {2, 2, 3, 3}, opts({1}, {0}, {1}, 1, {2})},       // asymmetric padding
    {{1, 2, 4, 5, 3}, {3, 2, 2, 3, 1}, opts({1, 2, 1}, {1}, {1}, 1)} // 3-D
};

void require_close(const std::vector<double> &got, const std::vector<double> &want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": " << got[i] << " vs " << want[i]);
    CHECK(std::abs(got[i] - want[i]) <= tol * (1 + std::abs(want[i])));
  }
}

using Fn = std::function<bp::Tensor(const std::vector<bp::Tensor> &)>;

// Every input's gradient from backward() against (L(x + h) - L(x - h)) / 2h,
// L = sum(f(x) * weights).
void gradcheck(const bp::Device &d, const std::vector<bp::Shape> &shapes, const Fn &f) {
  std::vector<std::vector<double>> values;
  std::vector<bp::Tensor> xs;
  for (size_t i = 0; i < shapes.size(); ++i) {
    values.push_back(random_values(size_t(count(shapes[i])), 17 + i));
    xs.push_back(bp::from_vector<double>(values.back(), shapes[i], d).requires_grad_());
  }
  const bp::Tensor out = f(xs);
  std::vector<double> w(size_t(out.numel()));
  for (size_t k = 0; k < w.size(); ++k) w[k] = 0.5 + 0.25 * double(k % 7) - 0.125 * double(k % 3);
  const bp::Tensor weights = bp::from_vector<double>(w, out.shape(), d);
  (out * weights).sum().backward();
  const double h = 1e-6;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::vector<double> analytic = xs[i].grad().to_vector<double>();
    REQUIRE(analytic.size() == values[i].size());
    for (size_t j = 0; j < values[i].size(); ++j) {
      bp::NoGradGuard no_grad;
      auto at = [&](double delta) {
        std::vector<bp::Tensor> ys;
        for (size_t k = 0; k < shapes.size(); ++k) {
          std::vector<double> v = values[k];
          if (k == i) v[j] += delta;
          ys.push_back(bp::from_vector<double>(v, shapes[k], d));
        }
        return (f(ys) * weights).sum().item<double>();
      };
      const double numeric = (at(h) - at(-h)) / (2 * h);
      INFO("input " << i << " element " << j << ": backward " << analytic[j] << ", finite difference " << numeric);
      CHECK(std::abs(analytic[j] - numeric) <= 1e-6 * (1 + std::abs(numeric)));
    }
  }
}

}  // namespace

TEST_CASE("conv matches plugin.h's formula in 1-, 2- and 3-D with strides, padding, dilation and groups") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  for (const Problem &p : kProblems) {
    const std::vector<double> x = random_values(size_t(count(p.x)), 1), w = random_values(size_t(count(p.w)), 2);
    const std::vector<double> b = random_values(size_t(p.w[0]), 3);
    bp::Shape y_shape;
    const std::vector<double> want = oracle(p, x, w, b, y_shape);
    for (bp_dtype dtype : {bp::f64, bp::f32}) {
      INFO("x " << count(p.x) << " elements, " << bp_dtype_name(dtype));
      const bp::Tensor bias = p.bias ? bp::from_vector<double>(b, {p.w[0]}, d).astype(dtype) : bp::Tensor();
      const bp::Tensor y = bp::conv(bp::from_vector<double>(x, p.x, d).astype(dtype),
                                    bp::from_vector<double>(w, p.w, d).astype(dtype), bias, p.o);
      CHECK(y.shape() == y_shape);
      CHECK(y.dtype() == dtype);
      require_close(y.astype(bp::f64).to_vector<double>(), want, dtype == bp::f64 ? 1e-12 : 1e-5);
    }
  }
}

TEST_CASE("conv of float16 and bfloat16 rounds the float32 accumulation once") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  const Problem &p = kProblems[2];
  const std::vector<double> x = random_values(size_t(count(p.x)), 4), w = random_values(size_t(count(p.w)), 5);
  const std::vector<double> b = random_values(size_t(p.w[0]), 6);
  for (bp_dtype dtype : {bp::f16, bp::bf16}) {
    INFO(bp_dtype_name(dtype));
    // The operands as the dtype holds them; the exact result of those,
    // rounded once, is what every backend gives within a unit of the dtype.
    const bp::Tensor xs = bp::from_vector<double>(x, p.x, d).astype(dtype), ws = bp::from_vector<double>(w, p.w, d).astype(dtype);
    const bp::Tensor bs = bp::from_vector<double>(b, {p.w[0]}, d).astype(dtype);
    bp::Shape y_shape;
    const std::vector<double> want =
        oracle(p, xs.astype(bp::f64).to_vector<double>(), ws.astype(bp::f64).to_vector<double>(),
               bs.astype(bp::f64).to_vector<double>(), y_shape);
    const bp::Tensor y = bp::conv(xs, ws, bs, p.o);
    CHECK(y.dtype() == dtype);
    require_close(y.astype(bp::f64).to_vector<double>(), want, dtype == bp::f16 ? 2e-3 : 1.6e-2);
  }
}

TEST_CASE("conv's input, weight and bias gradients match finite differences") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  for (const Problem &p : kProblems) {
    INFO("x rank " << p.x.size() << ", groups " << p.o.groups);
    if (p.bias)
      gradcheck(d, {p.x, p.w, {p.w[0]}},
                [&](const std::vector<bp::Tensor> &t) { return bp::conv(t[0], t[1], t[2], p.o); });
    else
      gradcheck(d, {p.x, p.w}, [&](const std::vector<bp::Tensor> &t) { return bp::conv(t[0], t[1], {}, p.o); });
  }
}

TEST_CASE("conv_transpose is conv's input gradient, with output padding, and its gradients match finite "
          "differences") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  // ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)
  bp::ConvOptions o = opts({2}, {1}, {1}, 2);
  o.output_padding = {1};
  const bp::Shape x{2, 4, 3, 4}, w{4, 3, 3, 3};
  const bp::Tensor y = bp::conv_transpose(bp::from_vector<double>(random_values(size_t(count(x)), 7), x, d),
                                          bp::from_vector<double>(random_values(size_t(count(w)), 8), w, d), {}, o);
  CHECK(y.shape() == bp::Shape{2, 6, 6, 8});  // (3 - 1) 2 - 2 + 3 + 1, (4 - 1) 2 - 2 + 3 + 1
  gradcheck(d, {x, w, {6}}, [&](const std::vector<bp::Tensor> &t) { return bp::conv_transpose(t[0], t[1], t[2], o); });
  // Output padding reaching past the stride (dilation 3 > stride 2), 1-D.
  bp::ConvOptions wide = opts({2}, {0}, {3}, 1);
  wide.output_padding = {2};
  gradcheck(d, {{1, 2, 3}, {2, 3, 2}, {3}},
            [&](const std::vector<bp::Tensor> &t) { return bp::conv_transpose(t[0], t[1], t[2], wide); });
  // conv_transpose(g, w) is the gradient of conv(x, w) with respect to x.
  const Problem &p = kProblems[3];
  const bp::Tensor xs = bp::from_vector<double>(random_values(size_t(count(p.x)), 9), p.x, d).requires_grad_();
  const bp::Tensor ws = bp::from_vector<double>(random_values(size_t(count(p.w)), 10), p.w, d);
  const bp::Tensor out = bp::conv(xs, ws, {}, p.o);
  const bp::Tensor g = bp::from_vector<double>(random_values(size_t(out.numel()), 11), out.shape(), d);
  out.backward(g);
  // 7 = (4 - 1) 2 - 2 + 3 along the strided axis, 5 = (3 - 1) + 2 + 1 along the dilated one.
  require_close(bp::conv_transpose(g, ws, {}, p.o).to_vector<double>(), xs.grad().to_vector<double>(), 1e-12);
}

TEST_CASE("conv and conv_transpose into existing tensors") {
  const bp::Device d = bp_test::each_host_device();
  const Problem &p = kProblems[2];
  const bp::Tensor x = bp::from_vector<double>(random_values(size_t(count(p.x)), 12), p.x, d);
  const bp::Tensor w = bp::from_vector<double>(random_values(size_t(count(p.w)), 13), p.w, d);
  const bp::Tensor want = bp::conv(x, w, {}, p.o);
  const bp::Tensor out = bp::zeros(want.shape(), bp::f64, d);
  const bp_conv_options o = bp::detail::conv_options(p.o);
  REQUIRE(bp_conv_out(x.handle(), w.handle(), 0, &o, out.handle()) == BP_OK);
  require_close(out.to_vector<double>(), want.to_vector<double>(), 0);
  const bp::Tensor back = bp::zeros(x.shape(), bp::f64, d);
  REQUIRE(bp_conv_transpose_out(want.handle(), w.handle(), 0, &o, back.handle()) == BP_OK);
  require_close(back.to_vector<double>(), bp::conv_transpose(want, w, {}, p.o).to_vector<double>(), 0);
  // A wrong shape is refused and writes nothing.
  const bp::Tensor small = bp::zeros({1, 3, 5, 6}, bp::f64, d);
  CHECK(bp_conv_out(x.handle(), w.handle(), 0, &o, small.handle()) == BP_ERR_SHAPE);
  CHECK(small.sum().item<double>() == 0);
  // NULL options are the defaults (stride 1, no padding).
  bp_tensor plain = 0;
  REQUIRE(bp_conv(x.handle(), w.handle(), 0, nullptr, &plain) == BP_OK);
  CHECK(bp::Tensor::adopt(plain).shape() == bp::Shape{2, 3, 3, 4});
}

TEST_CASE("conv refuses bad shapes and windows, naming the operator and the shapes") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::zeros({2, 4, 5, 5}, bp::f32, d);
  auto status = [&](const bp::Tensor &input, const bp::Tensor &w, const bp::Tensor &b, const bp_conv_options &o) {
    bp_tensor out = 0;
    const bp_status s = bp_conv(input.handle(), w.handle(), b.handle(), &o, &out);
    if (out) bp_tensor_release(out);
    return s;
  };
  bp_conv_options o = BP_CONV_OPTIONS_INIT;
  // Channels: the input has 4, the weight takes 3.
  CHECK(status(x, bp::zeros({2, 3, 3, 3}, bp::f32, d), {}, o) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("conv: input [2, 4, 5, 5] has 4 channels but the weight [2, 3, 3, 3]"));
  CHECK(std::string(bp_last_error_op()) == "conv");
  // Groups that do not divide the output channels.
  o.groups = 2;
  CHECK(status(x, bp::zeros({3, 2, 3, 3}, bp::f32, d), {}, o) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("groups 2 does not divide the weight [3, 2, 3, 3]'s 3 output channels"));
  o.groups = 3;  // nor the input's 4
  CHECK(status(x, bp::zeros({3, 1, 3, 3}, bp::f32, d), {}, o) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("[2, 4, 5, 5] has 4 channels"));
  // A kernel larger than the padded input: the output size would be negative.
  o = BP_CONV_OPTIONS_INIT;
  CHECK(status(x, bp::zeros({2, 4, 7, 3}, bp::f32, d), {}, o) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("smaller than the weight [2, 4, 7, 3]'s kernel 7"));
  CHECK(last_error_mentions("negative"));
  o.dilation[1] = 3;  // 3 taps 3 apart span 7 > 5
  CHECK(status(x, bp::zeros({2, 4, 3, 3}, bp::f32, d), {}, o) == BP_ERR_SHAPE);
  // Ranks, bias.
  o = BP_CONV_OPTIONS_INIT;
  CHECK(status(bp::zeros({4, 5}, bp::f32, d), bp::zeros({2, 4, 3}, bp::f32, d), {}, o) == BP_ERR_SHAPE);
  CHECK(status(x, bp::zeros({2, 4, 3}, bp::f32, d), {}, o) == BP_ERR_SHAPE);
  CHECK(status(x, bp::zeros({2, 4, 3, 3}, bp::f32, d), bp::zeros({3}, bp::f32, d), o) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("the bias [3] must be [2]"));
  // Windows out of range.
  o.stride[0] = 0;
  CHECK(status(x, bp::zeros({2, 4, 3, 3}, bp::f32, d), {}, o) == BP_ERR_INVALID_ARGUMENT);
  CHECK(last_error_mentions("stride 0"));
  o = BP_CONV_OPTIONS_INIT;
  o.padding_end[1] = -1;
  CHECK(status(x, bp::zeros({2, 4, 3, 3}, bp::f32, d), {}, o) == BP_ERR_INVALID_ARGUMENT);
  o = BP_CONV_OPTIONS_INIT;
  o.groups = 0;
  CHECK(status(x, bp::zeros({2, 4, 3, 3}, bp::f32, d), {}, o) == BP_ERR_INVALID_ARGUMENT);
  o = BP_CONV_OPTIONS_INIT;
  o.output_padding[0] = 1;
  CHECK(status(x, bp::zeros({2, 4, 3, 3}, bp::f32, d), {}, o) == BP_ERR_INVALID_ARGUMENT);
  CHECK(last_error_mentions("output_padding is bp_conv_transpose's"));
  o = BP_CONV_OPTIONS_INIT;
  o.struct_size = 4;
  CHECK(status(x, bp::zeros({2, 4, 3, 3}, bp::f32, d), {}, o) == BP_ERR_INVALID_ARGUMENT);
  CHECK(last_error_mentions("struct_size 4"));
  // Handles.
  bp_tensor out = 0;
  CHECK(bp_conv(x.handle(), 0, 0, nullptr, &out) == BP_ERR_INVALID_HANDLE);
  CHECK(last_error_mentions("conv: the weight is a null tensor handle"));
  CHECK(bp_conv(x.handle(), x.handle(), 0, nullptr, nullptr) == BP_ERR_INVALID_ARGUMENT);
}

TEST_CASE("conv_transpose refuses an output padding past its bound and a result of size zero") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = bp::zeros({1, 2, 3, 3}, bp::f32, d), w = bp::zeros({2, 1, 3, 3}, bp::f32, d);
  bp_conv_options o = BP_CONV_OPTIONS_INIT;
  bp_tensor out = 0;
  o.stride[0] = o.stride[1] = 2;
  o.output_padding[0] = 2;  // must be below max(stride 2, dilation 1)
  CHECK(bp_conv_transpose(x.handle(), w.handle(), 0, &o, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(last_error_mentions("conv_transpose: output_padding 2 on spatial axis 0 must be >= 0 and below max(stride 2"));
  o = BP_CONV_OPTIONS_INIT;
  o.padding_begin[0] = o.padding_end[0] = 3;  // (3 - 1) - 6 + 2 + 1 = -1
  CHECK(bp_conv_transpose(x.handle(), w.handle(), 0, &o, &out) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("the output size would be negative or zero"));
  o = BP_CONV_OPTIONS_INIT;
  o.groups = 2;  // the weight's 2 output channels match x's 2; the result has 1 * 2
  REQUIRE(bp_conv_transpose(x.handle(), w.handle(), 0, &o, &out) == BP_OK);
  CHECK(bp::Tensor::adopt(out).shape() == bp::Shape{1, 2, 5, 5});
  CHECK(bp_conv_transpose(bp::zeros({1, 3, 3, 3}, bp::f32, d).handle(), w.handle(), 0, &o, &out) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("conv_transpose: input [1, 3, 3, 3] has 3 channels but the weight [2, 1, 3, 3] has 2"));
}

TEST_CASE("conv on tensors of two devices is a device mismatch, never a copy") {
  bp_test::start(bp_test::kHostOnly);
  const bp::Tensor x = bp::zeros({1, 1, 4, 4}, bp::f32, bp::Device("cpu:0"));
  const bp::Tensor w = bp::zeros({1, 1, 3, 3}, bp::f32, bp::Device("reference:0"));
  bp_tensor out = 0;
  CHECK(bp_conv(x.handle(), w.handle(), 0, nullptr, &out) == BP_ERR_DEVICE_MISMATCH);
  CHECK(last_error_mentions("conv"));
  CHECK(last_error_mentions("reference:0"));
}

TEST_CASE("the C++ layers: Conv1d/2d/3d and ConvTranspose2d with PyTorch's shapes, initialisation and training") {
  const bp::Device d = bp_test::each_host_device();
  bp::ConvOptions o;
  o.padding = {1};
  bp::nn::Conv2d conv(3, 4, {3}, o, true, d, 7);
  CHECK(conv.weight.shape() == bp::Shape{4, 3, 3, 3});
  CHECK(conv.bias.shape() == bp::Shape{4});
  // kaiming_uniform with a = sqrt(5): uniform in +-1/sqrt(fan_in), fan_in 27.
  const double bound = 1 / std::sqrt(27.0);
  for (double v : conv.weight.to_vector<float>()) CHECK(std::abs(v) <= bound);
  CHECK(conv.parameters().size() == 2);
  const bp::Tensor x = bp::from_vector<double>(random_values(2 * 3 * 6 * 5, 14), {2, 3, 6, 5}, d).astype(bp::f32);
  CHECK(conv(x).shape() == bp::Shape{2, 4, 6, 5});
  // A few SGD steps on a fixed target lower the loss.
  const bp::Tensor target = bp::zeros({2, 4, 6, 5}, bp::f32, d);
  bp::nn::SGD opt(conv.parameters(), 0.1);
  const auto [first, last] = bp_test::train_mse(conv, opt, x, target, 5);
  CHECK(last < first);
  bp::nn::Conv1d c1(2, 3, {4}, {}, false, d, 8);
  CHECK(!c1.bias.defined());
  CHECK(c1(bp::zeros({1, 2, 9}, bp::f32, d)).shape() == bp::Shape{1, 3, 6});
  bp::ConvOptions o3;
  o3.stride = {2};
  bp::nn::Conv3d c3(2, 2, {2, 3, 1}, o3, true, d, 9);
  CHECK(c3(bp::zeros({1, 2, 4, 7, 3}, bp::f32, d)).shape() == bp::Shape{1, 2, 2, 3, 2});
  bp::ConvOptions ot;
  ot.stride = {2}, ot.padding = {1}, ot.output_padding = {1}, ot.groups = 2;
  bp::nn::ConvTranspose2d t(4, 6, {3}, ot, true, d, 10);
  CHECK(t.weight.shape() == bp::Shape{4, 3, 3, 3});
  CHECK(t(bp::zeros({1, 4, 3, 4}, bp::f32, d)).shape() == bp::Shape{1, 6, 6, 8});
}
