// Gradients of SOFTMAX and LOG_SOFTMAX, from the output y alone:
//   softmax:     g_x = y * (g - sum(g * y))
//   log_softmax: g_x = g - exp(y) * sum(g)
// the sums along the operator's axis, kept with extent 1 so that they
// broadcast back over it.
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

}  // namespace

View softmax(int32_t op, const View &a, int32_t axis) {
  View out = dispatch::softmax(op, a, axis, nullptr);
  if (Edges edges = recording({&a}); !edges.empty())
    attach(out, std::make_shared<SoftmaxNode>(op, axis, out), std::move(edges));
  return out;
}

}  // namespace bp::core::autograd
