// Gradients of the reductions and scans. The output's gradient is first
// given back the reduced axes (extent 1), then spread over the input:
// evenly (sum, mean), by the formula's weights (norm, prod), or onto the
// elements that were the extreme (max, min; ties share it).
#include <cmath>

#include "autograd/functions.hpp"
#include "backplane/backplane.h"
#include "autograd/record.hpp"
#include "dispatch/dtype_rules.hpp"
#include "dispatch/operators.hpp"
#include "errors/names.hpp"

namespace bp::core::autograd {

namespace {

bool differentiable_reduction(int32_t op) {
  return op == BP_OP_SUM || op == BP_OP_MEAN || op == BP_OP_MAX || op == BP_OP_MIN ||
         op == BP_OP_NORM || op == BP_OP_PROD || op == BP_OP_LOGSUMEXP;
}

struct ReduceNode : Node {
  int32_t op, axis;
  bool keepdims;
  TensorShape input;
  Saved a, out;
  ReduceNode(int32_t op_, const View &a_, int32_t axis_, bool keepdims_, const View &out_)
      : Node(op_name(op_)),
        op(op_),
        axis(axis_),
        keepdims(keepdims_),
        input(a_),
        a(op_ == BP_OP_SUM || op_ == BP_OP_MEAN ? Saved() : Saved(a_)),
        out(op_ == BP_OP_SUM || op_ == BP_OP_MEAN ? Saved() : Saved(out_)) {
    saves(&a, &out);
  }

  std::vector<View> apply(const View &g) override {
    const View kept = unsqueeze_reduced(g, input.rank, axis, keepdims);
    const View spread = expand(kept, input.rank, input.extents);
    switch (op) {
      case BP_OP_SUM: return {spread};
      case BP_OP_MEAN: {
        int64_t n = 1;
        for (int32_t d = 0; d < input.rank; ++d)
          if (axis == BP_AXIS_ALL || d == (axis < 0 ? axis + input.rank : axis)) n *= input.extents[d];
        return {scale(spread, 1.0 / double(n))};
      }
      default: break;
    }
    const View &x = a.get(name);
    const View y = unsqueeze_reduced(out.get(name), input.rank, axis, keepdims);
    switch (op) {
      case BP_OP_NORM:  // x / norm, and 0 where the norm is 0 (no direction)
        return {select_where(cmp_scalar(BP_OP_EQ, y, 0.0), zeros(x, x.dtype), mul(spread, div(x, y)))};
      case BP_OP_PROD:  // prod / x: NaN or inf where x is 0
        return {mul(spread, div(y, x))};
      case BP_OP_LOGSUMEXP:  // softmax: exp(x - logsumexp)
        return {mul(spread, fn(BP_OP_EXP, sub(x, y)))};
      default: {  // MAX, MIN: the elements equal to the result share the gradient
        View hit = cmp(BP_OP_EQ, x, y);
        View count = dispatch::reduce(BP_OP_SUM, hit, axis, true, nullptr);
        View share = div(kept, dispatch::cast(count, x.dtype));
        return {select_where(hit, expand(share, input.rank, input.extents), zeros(x, x.dtype))};
      }
    }
  }
};

// The gradient of a running sum along an axis is the running sum of the
// gradient from the other end: total - cumsum(g) + g.
struct ScanNode : Node {
  int32_t axis;
  TensorShape input;
  ScanNode(int32_t op_, int32_t axis_, const View &a_) : Node(op_name(op_)), axis(axis_), input(a_) {}
  std::vector<View> apply(const View &g) override {
    const int32_t ax = axis == BP_AXIS_ALL ? 0 : axis;
    View total = dispatch::reduce(BP_OP_SUM, g, ax, true, nullptr);
    View from_end = add(sub(total, dispatch::scan(BP_OP_CUMSUM, g, ax, nullptr)), g);
    if (axis == BP_AXIS_ALL) return {reshape(from_end, input.rank, input.extents)};
    return {from_end};
  }
};

}  // namespace

View reduce(int32_t op, const View &a, int32_t axis, bool keepdims) {
  View out = dispatch::reduce(op, a, axis, keepdims, nullptr);
  if (op == BP_OP_VAR) {  // VAR's node takes a set of axes (normalize.cpp)
    bool reduced[BP_MAX_RANK] = {};
    for (int32_t d = 0; d < a.rank; ++d) reduced[d] = axis == BP_AXIS_ALL || d == (axis < 0 ? axis + a.rank : axis);
    record_var(out, a, reduced, 0.0);
    return out;
  }
  if (!differentiable_reduction(op) || !is_float(out.dtype)) return out;
  if (Edges edges = recording({&a}); !edges.empty())
    attach(out, std::make_shared<ReduceNode>(op, a, axis, keepdims, out), std::move(edges));
  return out;
}

View scan(int32_t op, const View &a, int32_t axis) {
  View out = dispatch::scan(op, a, axis, nullptr);
  if (op != BP_OP_CUMSUM || !is_float(out.dtype)) return out;
  if (Edges edges = recording({&a}); !edges.empty())
    attach(out, std::make_shared<ScanNode>(op, axis, a), std::move(edges));
  return out;
}

}  // namespace bp::core::autograd
