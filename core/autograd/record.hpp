// What the differentiable operators and their backward formulas share:
// deciding whether to record, attaching a node to a result, and the
// gradient arithmetic (plain operators, run without recording).
#pragma once

#include <initializer_list>
#include <memory>
#include <vector>

#include "autograd/meta.hpp"

namespace bp::core::autograd {

// Gives `result` a meta whose grad_fn is `node`, whose inputs are `edges`
// (from recording()).
void attach(View &result, std::shared_ptr<Node> node, Edges edges);

// Records VAR's gradient on `out`, the variance of a over the axes with
// reduced[d] and that correction, when a needs one (normalize.cpp).
void record_var(View &out, const View &a, const bool *reduced, double correction);

// ---- gradient arithmetic: plain operators on gradients --------------------

View add(const View &a, const View &b);
View sub(const View &a, const View &b);
View mul(const View &a, const View &b);
View div(const View &a, const View &b);
View scale(const View &a, double s);   // a * s
View shift(const View &a, double s);   // a + s
View fn(int32_t unary_op, const View &a);
View cmp(int32_t compare_op, const View &a, const View &b);
View cmp_scalar(int32_t compare_op, const View &a, double s);
View select_where(const View &cond, const View &a, const View &b);
View zeros(const View &like_shape_of, int32_t dtype);
// `g` (kept reduced axes of extent 1) repeated to rank/shape: a new tensor.
View expand(const View &g, int32_t rank, const int64_t *shape);
// `g` summed over the axes broadcasting added, down to rank/shape.
View sum_to(const View &g, int32_t rank, const int64_t *shape);
// `g` with the reduced axes of a keepdims=false reduction put back (extent 1).
View unsqueeze_reduced(const View &g, int32_t input_rank, int32_t axis, bool keepdims);

}  // namespace bp::core::autograd
