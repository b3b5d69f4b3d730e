// SOFTMAX and LOG_SOFTMAX, recorded. Their gradients come from the output y
// alone:
//   softmax:     g_x = y * (g - sum(g * y))
//   log_softmax: g_x = g - exp(y) * sum(g)
// the sums along the operator's axis, kept with extent 1 so that they
// broadcast back over it. On a device whose backend does not run the
// operator (a plugin built before 1.6), both are made of the operators of
// 1.0, as bp_softmax was until 1.6, so that its clients keep it on every
// backend; those record their own gradients.
#include "autograd/functions.hpp"
#include "autograd/record.hpp"
#include "backplane/backplane.h"
#include "dispatch/operators.hpp"
#include "errors/names.hpp"

namespace bp::core::autograd {

namespace {

struct SoftmaxNode : Node {
  int32_t op, axis;
  Saved out;
  SoftmaxNode(int32_t op_, int32_t axis_, const View &out_) : Node(op_name(op_)), op(op_), axis(axis_), out(out_) {
    saves(&out);
  }

  std::vector<View> apply(const View &g) override {
    const View &y = out.get(name);
    // A rank-0 tensor is a row of one element: its sum is itself.
    const int32_t along = y.rank == 0 ? BP_AXIS_ALL : axis;
    auto row_sum = [&](const View &v) { return dispatch::reduce(BP_OP_SUM, v, along, true, nullptr); };
    if (op == BP_OP_LOG_SOFTMAX) return {sub(g, mul(fn(BP_OP_EXP, y), row_sum(g)))};
    return {mul(y, sub(g, row_sum(mul(g, y))))};
  }
};

// x - m (m the maximum, detached: a constant shift adds nothing to the
// gradient), then exp(x - m) / sum or (x - m) - log(sum). plugin.h's
// special rows come out the same: a NaN or a +inf makes x - m NaN
// somewhere, and so does a row of -inf only.
View composed(int32_t op, const View &a, int32_t axis) {
  const int32_t ax = dispatch::softmax_axis(op, axis, a.rank);
  if (a.rank == 0) {
    const int64_t one = 1;
    return reshape(composed(op, reshape(a, 1, &one), 0), 0, nullptr);
  }
  const View t = binary(BP_OP_SUB, a, reduce(BP_OP_MAX, detach(a), ax, true));
  const View e = unary(BP_OP_EXP, t);
  const View s = reduce(BP_OP_SUM, e, ax, true);
  return op == BP_OP_SOFTMAX ? binary(BP_OP_DIV, e, s) : binary(BP_OP_SUB, t, unary(BP_OP_LOG, s));
}

}  // namespace

View softmax(int32_t op, const View &a, int32_t axis) {
  if (!dispatch::softmax_implemented(op, a)) return composed(op, a, axis);
  View out = dispatch::softmax(op, a, axis, nullptr);
  if (Edges edges = recording({&a}); !edges.empty())
    attach(out, std::make_shared<SoftmaxNode>(op, axis, out), std::move(edges));
  return out;
}

}  // namespace bp::core::autograd
