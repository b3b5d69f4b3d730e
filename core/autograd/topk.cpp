// Top-k and sort record the gradient of their values: each element of the
// values' gradient goes back to the input element it was taken from (its
// saved position along the axis, in its row), and every other input
// element gets 0, as torch.topk's and torch.sort's gradients do. The
// positions are integers and take no gradient.
#include "autograd/functions.hpp"
#include "autograd/record.hpp"
#include "dispatch/creation.hpp"
#include "dispatch/operators.hpp"
#include "tensors/view_ops.hpp"

namespace bp::core::autograd {

namespace {

// g [..., k] (the axis moved last, R rows) into zeros [..., n] at the rows'
// positions: a scatter whose index rows are (row, position) pairs.
View scatter_rows(const View &g, const View &positions, int64_t n) {
  const int32_t last = g.rank - 1;
  const int64_t k = g.shape[last];
  const int64_t rows = k == 0 ? 0 : g.numel() / k;
  const int64_t flat = rows * k;
  int64_t wide[BP_MAX_RANK];
  for (int32_t d = 0; d < last; ++d) wide[d] = g.shape[d];
  wide[last] = n;
  View grad = fill(g.device(), g.dtype, g.rank, wide, 0.0);
  if (flat == 0) return grad;
  // Row r's coordinate, repeated for each of its k positions.
  const int64_t row_column[2] = {rows, 1}, pair_shape[2] = {rows, k}, column[2] = {flat, 1};
  View r, p, values, dense_grad;
  reshape_view(arange(g.device(), BP_INT64, 0, double(rows), 1), 2, row_column, r);
  View repeated = expand(r, 2, pair_shape);
  reshape_view(repeated, 2, column, r);
  reshape_view(dispatch::contiguous_copy(positions), 2, column, p);
  View index = dispatch::concatenate({&r, &p}, 1);
  reshape_view(dispatch::contiguous_copy(g), 1, &flat, values);
  const int64_t grad_rows[2] = {rows, n};
  reshape_view(grad, 2, grad_rows, dense_grad);
  dispatch::scatter_nd(dense_grad, index, values);
  return grad;
}

struct TopkNode : Node {
  int32_t axis;  // of the input, normalised; 0 for a rank-0 input
  TensorShape input;
  Saved indices;
  TopkNode(const char *fn, const View &a, int32_t axis_, const View &indices_)
      : Node(fn), axis(axis_), input(a), indices(indices_) {
    saves(&indices);
  }

  std::vector<View> apply(const View &g) override {
    const View &positions = indices.get(name);
    // A rank-0 input is one row of one element; a rank-0 g one of one position.
    const int32_t rank = input.rank == 0 ? 1 : input.rank;
    const int64_t n = input.rank == 0 ? 1 : input.extents[axis];
    View g_full = g, p_full = positions;
    if (g.rank == 0) {
      const int64_t one = 1;
      reshape_view(g, 1, &one, g_full);
      reshape_view(positions, 1, &one, p_full);
    }
    // The axis last, as the plugin saw it, and back.
    int32_t to_last[BP_MAX_RANK], back[BP_MAX_RANK];
    for (int32_t d = 0, j = 0; d < rank; ++d)
      if (d != axis) to_last[j++] = d;
    to_last[rank - 1] = axis;
    for (int32_t d = 0; d < rank; ++d) back[to_last[d]] = d;
    View grad = permute_view(scatter_rows(permute_view(g_full, to_last), permute_view(p_full, to_last), n), back);
    if (input.rank == 0) {
      View scalar;
      reshape_view(grad, 0, nullptr, scalar);
      return {scalar};
    }
    return {grad};
  }
};

}  // namespace

TopkResult topk(const char *fn, const View &a, int64_t k, int32_t axis, bool largest) {
  dispatch::TopkViews r = dispatch::topk(fn, a, k, axis, largest, nullptr, nullptr);
  if (is_float(r.values.dtype))
    if (Edges edges = recording({&a}); !edges.empty()) {
      const int32_t ax = a.rank == 0 ? 0 : (axis < 0 ? axis + a.rank : axis);
      attach(r.values, std::make_shared<TopkNode>(fn, a, ax, r.indices), std::move(edges));
    }
  return TopkResult{std::move(r.values), std::move(r.indices)};
}

}  // namespace bp::core::autograd
