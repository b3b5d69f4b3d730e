#include "autograd/record.hpp"

#include <algorithm>
#include <string>

#include "autograd/functions.hpp"
#include "backplane/backplane.h"
#include "dispatch/creation.hpp"
#include "dispatch/operators.hpp"
#include "errors/error.hpp"
#include "tensors/view_ops.hpp"

namespace bp::core::autograd {

void attach(View &result, std::shared_ptr<Node> node, Edges edges) {
  node->inputs = std::move(edges);
  auto meta = std::make_shared<TensorMeta>();
  meta->requires_grad.store(true, std::memory_order_release);
  meta->grad_fn = std::move(node);
  result.autograd.set(std::move(meta));  // result is not in the handle table yet
}

View add(const View &a, const View &b) { return dispatch::binary(BP_OP_ADD, a, b, nullptr); }
View sub(const View &a, const View &b) { return dispatch::binary(BP_OP_SUB, a, b, nullptr); }
View mul(const View &a, const View &b) { return dispatch::binary(BP_OP_MUL, a, b, nullptr); }
View div(const View &a, const View &b) { return dispatch::binary(BP_OP_DIV, a, b, nullptr); }
View scale(const View &a, double s) { return dispatch::binary_scalar(BP_OP_MUL, a, s, false, nullptr); }
View shift(const View &a, double s) { return dispatch::binary_scalar(BP_OP_ADD, a, s, false, nullptr); }
View fn(int32_t unary_op, const View &a) { return dispatch::unary(unary_op, a, nullptr); }
View cmp(int32_t compare_op, const View &a, const View &b) { return dispatch::binary(compare_op, a, b, nullptr); }
View cmp_scalar(int32_t compare_op, const View &a, double s) {
  return dispatch::binary_scalar(compare_op, a, s, false, nullptr);
}
View select_where(const View &cond, const View &a, const View &b) { return dispatch::where(cond, a, b, nullptr); }

View zeros(const View &like, int32_t dtype) { return fill(like.device(), dtype, like.rank, like.shape, 0.0); }

View expand(const View &g, int32_t rank, const int64_t *shape) {
  View out = allocate_view(g.device(), g.dtype, rank, shape);
  dispatch::assign(out, g);
  return out;
}

View sum_to(const View &g, int32_t rank, const int64_t *shape) {
  if (g.rank == rank && std::equal(g.shape, g.shape + rank, shape)) return g;
  View r = g;
  // Leading axes broadcasting added: summed away.
  while (r.rank > rank) r = dispatch::reduce(BP_OP_SUM, r, 0, false, nullptr);
  // Axes of extent 1 that broadcasting stretched: summed, kept.
  for (int32_t d = 0; d < rank; ++d)
    if (shape[d] == 1 && r.shape[d] != 1) r = dispatch::reduce(BP_OP_SUM, r, d, true, nullptr);
  return r;
}

View unsqueeze_reduced(const View &g, int32_t input_rank, int32_t axis, bool keepdims) {
  if (keepdims) return g;
  if (axis == BP_AXIS_ALL) {
    View r = g;
    while (r.rank < input_rank) r = expand_dims_view(r, 0);
    return r;
  }
  return expand_dims_view(g, axis < 0 ? axis + input_rank : axis);
}


void before_write(const char *what, const View &target, std::initializer_list<const View *> inputs) {
  if (active() && grad_enabled()) {
    if (requires_grad(target))
      fail(BP_ERR_STATE, std::string(what) +
                             ": the tensor written requires gradients, and writing into it in place "
                             "would change what its gradient means; write into a new tensor, or "
                             "disable gradients around the write (bp_grad_set_enabled(0, ...)), as "
                             "optimiser steps do");
    for (const View *v : inputs)
      if (requires_grad(*v))
        fail(BP_ERR_STATE, std::string(what) +
                               ": an input requires gradients, but writing the result into an "
                               "existing tensor records nothing for them; use the form that "
                               "returns a new tensor, or disable gradients around the call");
  }
}

void wrote(const View &target) {
  // Versions matter only to saved tensors, which exist only inside graphs:
  // with no TensorMeta alive there is nothing to invalidate, and the hot
  // _out path keeps its atomic increment out.
  if (target.storage && active()) target.storage->bump_version();
}

void assign(const View &dst, const View &src) {
  before_write("assign", dst, {&src});
  dispatch::assign(dst, src);
  wrote(dst);
}

void scatter_into(const View &dst, const View &index, const View &values, bool accumulate) {
  before_write(accumulate ? "scatter_add_nd" : "scatter_nd", dst, {&values});
  if (accumulate)
    dispatch::scatter_add_nd(dst, index, values);
  else
    dispatch::scatter_nd(dst, index, values);
  wrote(dst);
}

View nonzero(const View &a) { return dispatch::nonzero(a); }

}  // namespace bp::core::autograd
