// Autograd through the C API and the C++ header: every differentiable
// operator's gradient against central finite differences in float64 on
// every host device, and the rules around it (in-place writes, saved
// tensors, grad mode, leaves, memory).
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "gradcheck.hpp"
#include "runtime_fixture.hpp"

namespace {

using bp_test::Fn;
using bp_test::gradcheck;
using bp_test::Input;
using bp_test::last_error_mentions;

const Input kA{{0.5, -1.25, 2.0, 0.75, -0.3, 1.5}, {2, 3}};
const Input kB{{1.5, 0.4, -0.9}, {3}};
const Input kPositive{{0.5, 1.25, 2.0, 0.75, 0.3, 1.5}, {2, 3}};

bp::Tensor bin(bp_op op, const bp::Tensor &a, const bp::Tensor &b) { return bp::binary(op, a, b); }

}  // namespace

TEST_CASE("binary operators with broadcasting match finite differences") {
  const bp::Device d = bp_test::each_host_device();
  for (bp_op op : {BP_OP_ADD, BP_OP_SUB, BP_OP_MUL, BP_OP_DIV, BP_OP_MAXIMUM, BP_OP_MINIMUM}) {
    INFO(bp_op_name(op));
    gradcheck(d, {kA, kB}, [op](const std::vector<bp::Tensor> &x) { return bin(op, x[0], x[1]); });
  }
  gradcheck(d, {kPositive, kB}, [](const std::vector<bp::Tensor> &x) { return bin(BP_OP_POW, x[0], x[1]); });
}

TEST_CASE("binary operators with a scalar on either side match finite differences") {
  const bp::Device d = bp_test::each_host_device();
  for (bp_op op : {BP_OP_ADD, BP_OP_SUB, BP_OP_MUL, BP_OP_DIV, BP_OP_POW, BP_OP_MAXIMUM, BP_OP_MINIMUM})
    for (bool lhs : {false, true}) {
      INFO(bp_op_name(op) << (lhs ? " scalar first" : " scalar second"));
      gradcheck(d, {kPositive}, [&](const std::vector<bp::Tensor> &x) { return bp::binary(op, x[0], 1.1, lhs); });
    }
}

TEST_CASE("unary operators match finite differences") {
  const bp::Device d = bp_test::each_host_device();
  for (bp_op op : {BP_OP_NEG, BP_OP_ABS, BP_OP_EXP, BP_OP_TANH, BP_OP_SIGMOID, BP_OP_RELU, BP_OP_SQUARE,
                   BP_OP_SIN, BP_OP_COS, BP_OP_ERF, BP_OP_EXPM1}) {
    INFO(bp_op_name(op));
    gradcheck(d, {kA}, [op](const std::vector<bp::Tensor> &x) { return x[0].unary(op); });
  }
  for (bp_op op : {BP_OP_LOG, BP_OP_SQRT, BP_OP_LOG1P, BP_OP_RSQRT}) {
    INFO(bp_op_name(op));
    gradcheck(d, {kPositive}, [op](const std::vector<bp::Tensor> &x) { return x[0].unary(op); });
  }
}

TEST_CASE("where, reductions and cumsum match finite differences") {
  const bp::Device d = bp_test::each_host_device();
  gradcheck(d, {kA, kB}, [](const std::vector<bp::Tensor> &x) { return bp::where(x[0] > 0.6, x[0], x[1]); });
  for (bp_op op : {BP_OP_SUM, BP_OP_MEAN, BP_OP_MAX, BP_OP_MIN, BP_OP_NORM, BP_OP_PROD, BP_OP_LOGSUMEXP})
    for (int32_t axis : {int32_t(BP_AXIS_ALL), 0, 1})
      for (bool keep : {false, true}) {
        INFO(bp_op_name(op) << " axis " << axis << " keepdims " << keep);
        gradcheck(d, {kA}, [&](const std::vector<bp::Tensor> &x) { return x[0].reduce(op, axis, keep); });
      }
  gradcheck(d, {kA}, [](const std::vector<bp::Tensor> &x) { return x[0].cumsum(1); });
  gradcheck(d, {kA}, [](const std::vector<bp::Tensor> &x) { return x[0].cumsum(0); });
  gradcheck(d, {kA}, [](const std::vector<bp::Tensor> &x) { return x[0].cumsum(); });
}

TEST_CASE("softmax and log_softmax match finite differences along every axis") {
  const bp::Device d = bp_test::each_host_device();
  for (int32_t axis : {0, 1, -1}) {
    INFO("axis " << axis);
    gradcheck(d, {kA}, [&](const std::vector<bp::Tensor> &x) { return x[0].softmax(axis); });
    gradcheck(d, {kA}, [&](const std::vector<bp::Tensor> &x) { return x[0].log_softmax(axis); });
  }
  // A rank-0 tensor is one row of one element: softmax is 1, log_softmax 0,
  // and neither moves with x.
  const Input scalar{{0.7}, {}};
  gradcheck(d, {scalar}, [](const std::vector<bp::Tensor> &x) { return x[0].softmax(0) * x[0]; });
  gradcheck(d, {scalar}, [](const std::vector<bp::Tensor> &x) { return x[0].log_softmax(-1) + x[0]; });
  // Of a transposed view: the core moves axis 1 of it, strided, last.
  gradcheck(d, {kA}, [](const std::vector<bp::Tensor> &x) { return x[0].T().log_softmax(1); });
}

TEST_CASE("topk and sort values match finite differences along every axis, both directions") {
  const bp::Device d = bp_test::each_host_device();
  // Distinct values (a tie's choice is not differentiable), a row along each axis.
  const Input cube{{0.5, -1.25, 2.0, 0.75, -0.3, 1.5, 0.1, 1.1, -2.2, 0.9, -0.6, 3.3,
                    1.7, -0.8, 0.2, 2.6, -1.9, 0.4, 1.3, -0.1, 2.9, -2.7, 0.6, -1.4},
                   {2, 3, 4}};
  for (bool largest : {true, false})
    for (int32_t axis : {0, 1, 2, -1}) {
      INFO("axis " << axis << (largest ? ", largest" : ", smallest"));
      gradcheck(d, {cube}, [&](const std::vector<bp::Tensor> &x) { return x[0].topk(2, axis, largest).values; });
      gradcheck(d, {cube}, [&](const std::vector<bp::Tensor> &x) { return x[0].sort(axis, largest).values; });
    }
  // A strided input (a transposed view), k = 0 and a rank-0 input.
  gradcheck(d, {kA}, [](const std::vector<bp::Tensor> &x) { return x[0].T().topk(1, 1).values * 3.0; });
  gradcheck(d, {kA}, [](const std::vector<bp::Tensor> &x) { return x[0].topk(0, 1).values + x[0].sum(); });
  gradcheck(d, {{{1.5}, {}}}, [](const std::vector<bp::Tensor> &x) { return x[0].sort().values * x[0]; });
}

TEST_CASE("index and index_put (basic, advanced, masks, negative steps, duplicates) match finite differences") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor rows = bp::from_vector<int64_t>({1, 0, 1}, {3}, d);  // row 1 twice
  const bp::Tensor cols = bp::from_vector<int64_t>({2, -3}, {2, 1}, d);
  const bp::Tensor mask = bp::from_vector<bool>({true, false, true, true, false, true}, {2, 3}, d);
  const bp::Slice backwards{std::nullopt, std::nullopt, -1};
  gradcheck(d, {kA}, [&](const std::vector<bp::Tensor> &x) { return x[0].index({1, backwards}); });
  gradcheck(d, {kA}, [&](const std::vector<bp::Tensor> &x) { return x[0].index({bp::newaxis, rows}); });
  gradcheck(d, {kA}, [&](const std::vector<bp::Tensor> &x) { return x[0].index({rows.index({bp::Slice{0, 2}}), cols}); });
  gradcheck(d, {kA}, [&](const std::vector<bp::Tensor> &x) { return x[0].index({mask}); });
  gradcheck(d, {kA}, [&](const std::vector<bp::Tensor> &x) { return x[0].index({bp::ellipsis, backwards}); });
  // Values broadcast along the rows they go to; a's gradient is zero where
  // they were written, or whole when they add.
  const bp::Tensor two_rows = bp::from_vector<int64_t>({1, 0}, {2}, d);
  for (bool accumulate : {false, true}) {
    INFO("accumulate " << accumulate);
    gradcheck(d, {kA, kB}, [&](const std::vector<bp::Tensor> &x) {
      return x[0].index_put({two_rows}, x[1], accumulate);
    });
    gradcheck(d, {kA, kB}, [&](const std::vector<bp::Tensor> &x) {
      return x[0].index_put({bp::Slice{std::nullopt, std::nullopt, -1}, cols}, x[1].index({bp::Slice{0, 1}}), accumulate);
    });
  }
  // Duplicate rows adding up: each copy of row 1 sends its gradient back.
  gradcheck(d, {kA, {{0.5, 1.0, -1.0, 2.0, 0.25, 0.75, 3.0, -2.0, 1.5}, {3, 3}}},
            [&](const std::vector<bp::Tensor> &x) { return x[0].index_put({rows}, x[1], true); });
}

TEST_CASE("reductions over a set of axes and where with a scalar match finite differences") {
  const bp::Device d = bp_test::each_host_device();
  const Input cube{{0.5, -1.25, 2.0, 0.75, -0.3, 1.5, 0.2, -0.7, 1.1, 0.9, -2.0, 0.4}, {2, 3, 2}};
  for (bp_op op : {BP_OP_SUM, BP_OP_MEAN, BP_OP_MAX, BP_OP_PROD, BP_OP_NORM, BP_OP_LOGSUMEXP})
    for (bool keep : {false, true}) {
      INFO(bp_op_name(op) << " keepdims " << keep);
      gradcheck(d, {cube}, [&](const std::vector<bp::Tensor> &x) { return x[0].reduce(op, {0, -1}, keep); });
    }
  gradcheck(d, {kA}, [](const std::vector<bp::Tensor> &x) { return bp::where(x[0] > 0.6, x[0], 2.5); });
  gradcheck(d, {kA}, [](const std::vector<bp::Tensor> &x) { return bp::where(x[0] > 0.6, -1, x[0]); });
}

TEST_CASE("matmul with transposes, batches and vectors matches finite differences") {
  const bp::Device d = bp_test::each_host_device();
  const Input m34{{0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8, 0.9, -1.0, 1.1, 1.2}, {3, 4}};
  gradcheck(d, {kA, m34}, [](const std::vector<bp::Tensor> &x) { return bp::matmul(x[0], x[1]); });
  const Input m43{{0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8, 0.9, -1.0, 1.1, 1.2}, {4, 3}};
  const Input m32{{0.5, -1.25, 2.0, 0.75, -0.3, 1.5}, {3, 2}};
  gradcheck(d, {m32, m43}, [](const std::vector<bp::Tensor> &x) { return bp::matmul(x[0], x[1], true, true); });
  gradcheck(d, {m32, m34}, [](const std::vector<bp::Tensor> &x) { return bp::matmul(x[0], x[1], true, false); });
  gradcheck(d, {kA, m43}, [](const std::vector<bp::Tensor> &x) { return bp::matmul(x[0], x[1], false, true); });
  const Input batch{{0.5, -1.25, 2.0, 0.75, -0.3, 1.5, 0.2, 0.1, -0.4, 0.9, 1.1, -0.7}, {2, 2, 3}};
  gradcheck(d, {batch, m34}, [](const std::vector<bp::Tensor> &x) { return bp::matmul(x[0], x[1]); });
  gradcheck(d, {kB, m34}, [](const std::vector<bp::Tensor> &x) { return bp::matmul(x[0], x[1]); });
  gradcheck(d, {kA, kB}, [](const std::vector<bp::Tensor> &x) { return bp::matmul(x[0], x[1]); });
}

TEST_CASE("views, casts, copies and gathers route the gradient back") {
  const bp::Device d = bp_test::each_host_device();
  auto sq = [](const bp::Tensor &t) { return t * t; };  // so the gradient depends on the values
  gradcheck(d, {kA}, [&](const std::vector<bp::Tensor> &x) { return sq(x[0].reshape({3, 2})); });
  gradcheck(d, {kA}, [&](const std::vector<bp::Tensor> &x) { return sq(x[0].T()); });
  gradcheck(d, {kA}, [&](const std::vector<bp::Tensor> &x) { return sq(x[0].permute({1, 0})); });
  gradcheck(d, {kA}, [&](const std::vector<bp::Tensor> &x) { return sq(x[0].slice(1, 0, 3, 2)); });
  gradcheck(d, {kA}, [&](const std::vector<bp::Tensor> &x) { return sq(x[0][1]); });
  gradcheck(d, {kA}, [&](const std::vector<bp::Tensor> &x) { return sq(x[0].expand_dims(1)); });
  gradcheck(d, {kA}, [&](const std::vector<bp::Tensor> &x) { return sq(x[0].T().contiguous()); });
  gradcheck(d, {kA}, [&](const std::vector<bp::Tensor> &x) { return sq(x[0].to(bp::Device("reference:0"))); });
  gradcheck(d, {kA}, [&](const std::vector<bp::Tensor> &x) {
    return sq(x[0].astype(BP_FLOAT32).astype(BP_FLOAT64));
  }, 1e-4, 1e-2);  // steps float32 can resolve; exact for a square
  // Row 1 is read twice: its gradient adds up.
  gradcheck(d, {kA}, [&](const std::vector<bp::Tensor> &x) {
    return sq(x[0].gather_nd(bp::from_vector<int64_t>({1, 0, -1}, {3, 1}, x[0].device())));
  });
}

TEST_CASE("the composites record through the operators they are made of") {
  const bp::Device d = bp_test::each_host_device();
  gradcheck(d, {kA}, [](const std::vector<bp::Tensor> &x) { return x[0].var(0, false, 1); });
  gradcheck(d, {kA}, [](const std::vector<bp::Tensor> &x) { return x[0].std(); });
  gradcheck(d, {kA}, [](const std::vector<bp::Tensor> &x) { return x[0].clip(-1, 1); });
  gradcheck(d, {kA}, [](const std::vector<bp::Tensor> &x) { return x[0].clip(-1, INFINITY); });
  gradcheck(d, {kA}, [](const std::vector<bp::Tensor> &x) { return x[0].clip(-INFINITY, 1); });
  gradcheck(d, {kA, kA}, [](const std::vector<bp::Tensor> &x) { return bp::concatenate({x[0], x[1] * 2.0}, 1); });
  gradcheck(d, {kA, kA}, [](const std::vector<bp::Tensor> &x) { return bp::stack({x[0], x[1] * x[1]}, 2); });
}

TEST_CASE("leaves accumulate, clear, and only leaves hold a gradient") {
  const bp::Device d = bp_test::each_host_device();
  const int64_t live = bp_live_tensor_count();
  {
    const bp::Tensor w = bp::from_vector<double>({1, 2}, {2}, d).requires_grad_();
    CHECK(w.is_leaf());
    CHECK_FALSE(w.grad().defined());
    const bp::Tensor y = (w * w).sum();
    CHECK_FALSE(y.is_leaf());
    const char *fn = nullptr;
    REQUIRE(bp_tensor_grad_fn(y.handle(), &fn) == BP_OK);
    CHECK(std::string(fn) == "sum");
    y.backward(bp::Tensor(), true);
    y.backward();
    CHECK(w.grad().to_vector<double>() == std::vector<double>{4, 8});
    CHECK_FALSE(y.grad().defined());
    w.clear_grad();
    CHECK_FALSE(w.grad().defined());
    (w * 3.0).backward(bp::from_vector<double>({1, -1}, {2}, d));
    CHECK(w.grad().to_vector<double>() == std::vector<double>{3, -3});
    // An input that requires no gradient gets none, and integer results record nothing.
    const bp::Tensor c = bp::from_vector<double>({5, 6}, {2}, d);
    (w * c).sum().backward();
    CHECK_FALSE(c.grad().defined());
    CHECK_FALSE((w > 1.0).requires_grad());
    CHECK_FALSE(w.argmax().requires_grad());
  }
  CHECK(bp_live_tensor_count() == live);
}

TEST_CASE("grad mode, detach, and what may require gradients") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor w = bp::from_vector<float>({1, 2}, {2}, d).requires_grad_();
  {
    bp::NoGradGuard no_grad;
    CHECK(bp_grad_is_enabled() == 0);
    CHECK_FALSE((w * 2.0).requires_grad());
  }
  CHECK(bp_grad_is_enabled() == 1);
  CHECK_FALSE(w.detach().requires_grad());
  CHECK((w.detach() * w).requires_grad());
  CHECK(bp_tensor_set_requires_grad(bp::zeros({2}, bp::i32, d).handle(), 1) == BP_ERR_DTYPE);
  CHECK(bp_tensor_set_requires_grad((w * 2.0).handle(), 1) == BP_ERR_STATE);
  CHECK(last_error_mentions("bp_detach"));
  CHECK(bp_backward(bp::zeros({2}, bp::f32, d).handle(), BP_NO_TENSOR, 0) == BP_ERR_STATE);
  CHECK(bp_backward((w * 2.0).handle(), BP_NO_TENSOR, 0) == BP_ERR_SHAPE);
  CHECK(last_error_mentions("2 elements"));
  w.requires_grad_(false);
  CHECK_FALSE((w * 2.0).requires_grad());
}

TEST_CASE("in-place writes that would make a gradient wrong are errors naming the operator") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor w = bp::from_vector<double>({1, 2}, {2}, d).requires_grad_();
  const bp::Tensor out = bp::zeros({2}, bp::f64, d);
  CHECK(bp_add_out(w.handle(), w.handle(), out.handle()) == BP_ERR_STATE);
  CHECK(last_error_mentions("add"));
  CHECK(bp_assign(w.handle(), out.handle()) == BP_ERR_STATE);
  CHECK(last_error_mentions("requires gradients"));
  {
    bp::NoGradGuard no_grad;  // an optimiser step
    REQUIRE(bp_binary_scalar_out(BP_OP_MUL, w.handle(), 0.5, 0, w.handle()) == BP_OK);
  }
  CHECK(w.to_vector<double>() == std::vector<double>{0.5, 1});
  // exp saves its output; writing into it afterwards breaks the backward pass.
  const bp::Tensor e = w.exp();
  const bp::Tensor y = e.sum();
  REQUIRE(bp_binary_scalar_out(BP_OP_MUL, e.detach().handle(), 2.0, 0, e.detach().handle()) == BP_OK);
  CHECK(bp_backward(y.handle(), BP_NO_TENSOR, 0) == BP_ERR_STATE);
  CHECK(last_error_mentions("exp backward"));
  // A second pass through a freed graph is refused; retain_graph allows it.
  const bp::Tensor z = (w * w).sum();
  REQUIRE(bp_backward(z.handle(), BP_NO_TENSOR, 0) == BP_OK);
  CHECK(bp_backward(z.handle(), BP_NO_TENSOR, 0) == BP_ERR_STATE);
  CHECK(last_error_mentions("retain_graph"));
}

TEST_CASE("a backward pass that must fail touches no gradient and frees nothing") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor w = bp::from_vector<double>({1, 2}, {2}, d).requires_grad_();
  // Two branches: the second's saved input is overwritten before backward.
  const bp::Tensor kept = w * 3.0;
  const bp::Tensor e = w.exp();
  const bp::Tensor y = (kept + e).sum();
  REQUIRE(bp_binary_scalar_out(BP_OP_MUL, e.detach().handle(), 2.0, 0, e.detach().handle()) == BP_OK);
  CHECK(bp_backward(y.handle(), BP_NO_TENSOR, 0) == BP_ERR_STATE);
  CHECK_FALSE(w.grad().defined());
  // The graph is intact: the part that can still run, runs.
  kept.sum().backward();
  CHECK(w.grad().to_vector<double>() == std::vector<double>{3, 3});
}

TEST_CASE("a very long graph is freed without recursing through it") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor w = bp::from_vector<float>({1}, {1}, d).requires_grad_();
  bp::Tensor total = w * 1.0;
  for (int i = 0; i < 200000; ++i) total = total + w;
  total = bp::Tensor();  // the last handle: 200001 nodes freed
  CHECK(w.requires_grad());
}

TEST_CASE("the gradient given to backward must be on the tensor's device") {
  bp_test::each_host_device();
  const bp::Tensor w = bp::from_vector<double>({1, 2}, {2}, bp::Device("cpu:0")).requires_grad_();
  const bp::Tensor y = w * 2.0;
  const bp::Tensor g = bp::ones({2}, bp::f64, bp::Device("reference:0"));
  CHECK(bp_backward(y.handle(), g.handle(), 0) == BP_ERR_DEVICE_MISMATCH);
  CHECK(last_error_mentions("reference:0"));
}

TEST_CASE("variance and the normalisations match finite differences") {
  const bp::Device d = bp_test::each_host_device();
  const Input cube{{0.5, -1.25, 2.0, 0.75, -0.3, 1.5, 0.2, -0.7, 1.1, 0.9, -2.0, 0.4}, {2, 3, 2}};
  const Input w3{{1.5, -0.5, 0.8}, {3}}, b3{{0.1, -0.2, 0.3}, {3}};
  const Input w32{{1.5, -0.5, 0.8, 1.2, 0.3, -1.1}, {3, 2}}, b32{{0.1, -0.2, 0.3, 0.0, 0.5, -0.4}, {3, 2}};
  using X = std::vector<bp::Tensor>;
  // VAR over one axis, a set of axes and all of them, with corrections.
  gradcheck(d, {kA}, [](const X &x) { return x[0].reduce(BP_OP_VAR, 1, false); });
  gradcheck(d, {cube}, [](const X &x) { return bp::var(x[0], {0, 2}, 1); });
  gradcheck(d, {cube}, [](const X &x) { return bp::var(x[0], {0, 1, 2}, 0, true); });
  // LAYER_NORM over the last axis and the last two, with and without weight and bias.
  gradcheck(d, {kA, w3, b3}, [](const X &x) { return bp::layer_norm(x[0], 1, x[1], x[2]); });
  gradcheck(d, {kA}, [](const X &x) { return bp::layer_norm(x[0], 1); });
  gradcheck(d, {cube, w32, b32}, [](const X &x) { return bp::layer_norm(x[0], 2, x[1], x[2], 0.1); });
  gradcheck(d, {cube, b32}, [](const X &x) { return bp::layer_norm(x[0], 2, bp::Tensor(), x[1]); });
  // RMS_NORM with a weight, and with a bias too.
  gradcheck(d, {kA, w3}, [](const X &x) { return bp::rms_norm(x[0], 1, x[1], 1e-6); });
  gradcheck(d, {cube, w32, b32}, [](const X &x) { return bp::rms_norm(x[0], 2, x[1], 1e-3, x[2]); });
  // Group norm (2 groups of the 4 channels) and batch norm in training.
  const Input nchw{{0.5, -1.25, 2.0, 0.75, -0.3, 1.5, 0.2, -0.7, 1.1, 0.9, -2.0, 0.4, 0.6, -0.1, 1.3, -0.8},
                   {2, 4, 2}};
  const Input w4{{1.5, -0.5, 0.8, 1.1}, {4}}, b4{{0.1, -0.2, 0.3, 0.4}, {4}};
  gradcheck(d, {nchw, w4, b4}, [](const X &x) { return bp::group_norm(x[0], 2, x[1], x[2]); });
  gradcheck(d, {nchw, w4, b4}, [](const X &x) { return bp::batch_norm(x[0], {}, {}, x[1], x[2], true); });
  gradcheck(d, {nchw}, [](const X &x) {
    const bp::Tensor mean = bp::zeros({4}, BP_FLOAT64, x[0].device()), var = bp::ones({4}, BP_FLOAT64, x[0].device());
    return bp::batch_norm(x[0], mean, var, {}, {}, true, 0.1);
  });
  // Evaluation: the running statistics are constants.
  gradcheck(d, {nchw, w4}, [](const X &x) {
    const bp::Tensor mean = bp::full({4}, 0.25, BP_FLOAT64, x[0].device()), var = bp::full({4}, 2.0, BP_FLOAT64, x[0].device());
    return bp::batch_norm(x[0], mean, var, x[1], {}, false);
  });
}

TEST_CASE("attention (the composite bp_attention records) matches finite differences") {
  const bp::Device d = bp_test::each_host_device();
  // q [2, 3, 2], k [2, 4, 2], v [2, 4, 3], a float mask [3, 4]; the finite
  // differences run without gradients, through the fused entry of the host
  // backends, so the two paths check each other too.
  std::vector<double> q(12), k(16), v(24), mask(12);
  for (size_t i = 0; i < q.size(); ++i) q[i] = -1.0 + 0.19 * double(i);
  for (size_t i = 0; i < k.size(); ++i) k[i] = std::cos(double(i));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(double(i));
  for (size_t i = 0; i < mask.size(); ++i) mask[i] = -0.8 + 0.13 * double(i);
  const Input iq{q, {2, 3, 2}}, ik{k, {2, 4, 2}}, iv{v, {2, 4, 3}}, im{mask, {3, 4}};
  gradcheck(d, {iq, ik, iv}, [](const std::vector<bp::Tensor> &x) { return bp::attention(x[0], x[1], x[2]); });
  gradcheck(d, {iq, ik, iv, im}, [](const std::vector<bp::Tensor> &x) {
    bp::AttentionOptions o;
    o.mask = x[3];
    o.causal = true;
    o.scale = 0.7;
    return bp::attention(x[0], x[1], x[2], o);
  });
}
