// Gradients of the convolutions. For y = conv(x, w) + b: dx is the
// transposed convolution of dy (CONV_TRANSPOSE, of x's extents), dw is
// CONV_WEIGHT_GRAD of x and dy, db the sum of dy over every axis but the
// channels. A ConvTranspose y = conv_transpose(a, w) + b is the same
// relation read the other way: da = conv(dy, w) (of a's extents), dw =
// CONV_WEIGHT_GRAD(dy, a).
#include <optional>

#include "autograd/functions.hpp"
#include "autograd/record.hpp"
#include "dispatch/dtype_rules.hpp"
#include "dispatch/op_support.hpp"
#include "dispatch/operators.hpp"

namespace bp::core::autograd {

namespace {

// The bias gradient: g summed over the batch and spatial axes.
View bias_grad(const View &g) {
  View r = g;
  for (int32_t d = r.rank - 1; d >= 2; --d) r = dispatch::reduce(BP_OP_SUM, r, d, false, nullptr);
  return dispatch::reduce(BP_OP_SUM, r, 0, false, nullptr);
}

struct ConvNode : Node {
  Saved x, w;
  ConvParams p;
  bool transposed;  // y = conv_transpose(x, w): x plays the output gradient's part
  ConvNode(const View &x_, const View &w_, const ConvParams &p_, bool transposed_)
      : Node(transposed_ ? "conv_transpose" : "conv"), x(x_), w(w_), p(p_), transposed(transposed_) {
    saves(&x, &w);
  }
  std::vector<View> apply(const View &g) override {
    const View &a = x.get(name), &k = w.get(name);
    View da, dw, db;
    if (transposed) {
      if (wants(0)) da = dispatch::conv(g, k, nullptr, p, nullptr, a.shape + 2);
      if (wants(1)) dw = dispatch::conv_weight_grad(g, a, p, k.shape + 2);
    } else {
      if (wants(0)) da = dispatch::conv_transpose(g, k, nullptr, p, a.shape + 2, nullptr);
      if (wants(1)) dw = dispatch::conv_weight_grad(a, g, p, k.shape + 2);
    }
    if (wants(2)) db = bias_grad(g);
    return {da, dw, db};
  }
};

View recorded(View out, const View &x, const View &w, const View *bias, const ConvParams &p, bool transposed) {
  if (!is_float(out.dtype)) return out;
  Edges edges = bias ? recording({&x, &w, bias}) : recording({&x, &w});
  if (edges.empty()) return out;
  std::optional<View> tx, tw;
  const View &cx = as_dtype(x, out.dtype, tx), &cw = as_dtype(w, out.dtype, tw);
  attach(out, std::make_shared<ConvNode>(cx, cw, p, transposed), std::move(edges));
  return out;
}

}  // namespace

View conv(const View &x, const View &w, const View *bias, const ConvParams &p) {
  return recorded(dispatch::conv(x, w, bias, p, nullptr), x, w, bias, p, false);
}

View conv_transpose(const View &x, const View &w, const View *bias, const ConvParams &p, const int64_t *extents) {
  return recorded(dispatch::conv_transpose(x, w, bias, p, extents, nullptr), x, w, bias, p, true);
}

}  // namespace bp::core::autograd
