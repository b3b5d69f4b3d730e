// Gradients of the operators that move elements rather than compute them:
// views (reshape, permute, transpose, slice, select, expand_dims,
// contiguous), matmul, copies between devices, concatenate and gather_nd.
// Each sends the gradient back to where the elements came from.
#include <algorithm>

#include "autograd/functions.hpp"
#include "autograd/record.hpp"
#include "devices/registry.hpp"
#include "dispatch/creation.hpp"
#include "dispatch/dtype_rules.hpp"
#include "dispatch/op_support.hpp"
#include "dispatch/operators.hpp"
#include "tensors/view_ops.hpp"

namespace bp::core::autograd {

namespace {

// The gradient reshaped back to the input's shape (a copy when g's strides
// do not allow a view).
struct ReshapeNode : Node {
  TensorShape input;
  explicit ReshapeNode(const View &a) : Node("reshape"), input(a) {}
  std::vector<View> apply(const View &g) override {
    View r;
    if (!reshape_view(g, input.rank, input.extents, r)) reshape_view(dispatch::contiguous_copy(g), input.rank, input.extents, r);
    return {r};
  }
};

struct PermuteNode : Node {
  std::vector<int32_t> inverse;
  explicit PermuteNode(std::vector<int32_t> inverse_) : Node("permute"), inverse(std::move(inverse_)) {}
  std::vector<View> apply(const View &g) override { return {permute_view(g, inverse.data())}; }
};

// slice and select: the gradient lands in the part of a zero tensor the
// view covered.
struct PartNode : Node {
  TensorShape input;
  bool is_select;
  int32_t axis;
  int64_t start, stop, step;
  PartNode(const char *name_, const View &a, bool select_, int32_t axis_, int64_t start_, int64_t stop_, int64_t step_)
      : Node(name_), input(a), is_select(select_), axis(axis_), start(start_), stop(stop_), step(step_) {}
  std::vector<View> apply(const View &g) override {
    View whole = fill(g.device(), g.dtype, input.rank, input.extents, 0.0);
    View part = is_select ? select_view(whole, axis, start) : slice_view(whole, axis, start, stop, step);
    dispatch::assign(part, g);
    return {whole};
  }
};

struct ExpandDimsNode : Node {
  int32_t axis;
  explicit ExpandDimsNode(int32_t axis_) : Node("expand_dims"), axis(axis_) {}
  std::vector<View> apply(const View &g) override { return {select_view(g, axis, 0)}; }
};

struct IdentityNode : Node {
  explicit IdentityNode(const char *name_) : Node(name_) {}
  std::vector<View> apply(const View &g) override { return {g}; }
};

// out = A @ B with A = a or a^T, B = b or b^T (rank >= 2, batch axes
// broadcast): dA = g @ B^T, dB = A^T @ g, transposed back where a or b was.
struct MatmulNode : Node {
  Saved a, b;
  bool ta, tb;
  MatmulNode(const View &a_, const View &b_, bool ta_, bool tb_) : Node("matmul"), a(a_), b(b_), ta(ta_), tb(tb_) {
    saves(&a, &b);
  }
  std::vector<View> apply(const View &g) override {
    const View &x = a.get(name), &y = b.get(name);
    // dA = g B^T: with B = y^T (tb) that is g y, else g y^T. dA^T = B g^T
    // when a was transposed.
    View da, db;
    if (wants(0)) da = ta ? dispatch::matmul(y, g, tb, true, nullptr) : dispatch::matmul(g, y, false, !tb, nullptr);
    if (wants(1) && !shared_weight_grad(x, y, g, db))
      db = tb ? dispatch::matmul(g, x, true, ta, nullptr) : dispatch::matmul(x, g, !ta, false, nullptr);
    return {da, db};
  }

 private:
  // A 2-D b shared by a batch of a's matrices (a Linear layer's weight):
  // dB is the sum over the batch, one product of the batch's rows folded
  // together, [K, items * M] @ [items * M, N], where a (not transposed) and
  // g allow those views; false otherwise. A batched product and then a sum
  // over the batch took many small GEMMs and a reduction.
  bool shared_weight_grad(const View &x, const View &y, const View &g, View &db) const {
    if (y.rank != 2 || x.rank <= 2 || ta || g.rank != x.rank) return false;
    int64_t rows = 1;
    for (int32_t d = 0; d + 1 < x.rank; ++d) rows *= x.shape[d];
    const int64_t x_shape[2] = {rows, x.shape[x.rank - 1]}, g_shape[2] = {rows, g.shape[g.rank - 1]};
    View x2, g2;
    if (!reshape_view(x, 2, x_shape, x2) || !reshape_view(g, 2, g_shape, g2)) return false;
    db = tb ? dispatch::matmul(g2, x2, true, false, nullptr) : dispatch::matmul(x2, g2, true, false, nullptr);
    return true;
  }
};

struct CopyNode : Node {
  Device *source;
  explicit CopyNode(Device &source_) : Node("copy_to"), source(&source_) {}
  std::vector<View> apply(const View &g) override { return {&g.device() == source ? g : dispatch::copy_to(g, *source)}; }
};

struct ConcatenateNode : Node {
  int32_t axis;
  std::vector<int64_t> extents;
  ConcatenateNode(int32_t axis_, std::vector<int64_t> extents_)
      : Node("concatenate"), axis(axis_), extents(std::move(extents_)) {}
  std::vector<View> apply(const View &g) override {
    std::vector<View> parts;
    int64_t start = 0;
    for (int64_t n : extents) {
      parts.push_back(slice_view(g, axis, start, start + n, 1));
      start += n;
    }
    return parts;
  }
};

// The gradient of a gather adds each row's gradient where the row came
// from; rows read twice add twice.
struct GatherNode : Node {
  TensorShape input;
  Saved index;
  GatherNode(const View &a, const View &index_) : Node("gather_nd"), input(a), index(index_) {
    saves(&index);
  }
  std::vector<View> apply(const View &g) override {
    View whole = fill(g.device(), g.dtype, input.rank, input.extents, 0.0);
    dispatch::scatter_add_nd(whole, index.get(name), g);
    return {whole, View()};
  }
};

template <class N, class... Args>
View recorded(View out, const View &a, Args &&...args) {
  if (Edges edges = recording({&a}); !edges.empty())
    attach(out, std::make_shared<N>(std::forward<Args>(args)...), std::move(edges));
  return out;
}

}  // namespace

View reshape(const View &a, int32_t rank, const int64_t *shape) {
  int64_t resolved[BP_MAX_RANK];
  resolve_reshape(a, rank, shape, resolved);
  View r;
  if (!reshape_view(a, rank, resolved, r)) reshape_view(dispatch::contiguous_copy(a), rank, resolved, r);
  return recorded<ReshapeNode>(std::move(r), a, a);
}

View permute(const View &a, const int32_t *axes) {
  View r = permute_view(a, axes);
  std::vector<int32_t> inverse(size_t(a.rank));
  for (int32_t d = 0; d < a.rank; ++d) inverse[size_t(axes[d] < 0 ? axes[d] + a.rank : axes[d])] = d;
  return recorded<PermuteNode>(std::move(r), a, std::move(inverse));
}

View transpose(const View &a) {
  std::vector<int32_t> reversed(size_t(a.rank));
  for (int32_t d = 0; d < a.rank; ++d) reversed[size_t(d)] = a.rank - 1 - d;
  return recorded<PermuteNode>(transpose_view(a), a, std::move(reversed));
}

View slice(const View &a, int32_t axis, int64_t start, int64_t stop, int64_t step) {
  View r = slice_view(a, axis, start, stop, step);
  return recorded<PartNode>(std::move(r), a, "slice", a, false, axis, start, stop, step);
}

View select(const View &a, int32_t axis, int64_t index) {
  View r = select_view(a, axis, index);
  const int32_t ax = axis < 0 ? axis + a.rank : axis;
  const int64_t at = index < 0 ? index + a.shape[ax] : index;
  return recorded<PartNode>(std::move(r), a, "select", a, true, ax, at, at + 1, 1);
}

View expand_dims(const View &a, int32_t axis) {
  View r = expand_dims_view(a, axis);
  return recorded<ExpandDimsNode>(std::move(r), a, axis < 0 ? axis + a.rank + 1 : axis);
}

View contiguous(const View &a) { return recorded<IdentityNode>(dispatch::contiguous_copy(a), a, "contiguous"); }

View detach(const View &a) { return View(a); }

View matmul(const View &a, const View &b, bool transpose_a, bool transpose_b) {
  if (!any_requires_grad({&a, &b}) || a.rank < 2 || b.rank < 2) {
    if (any_requires_grad({&a, &b})) {
      // A vector operand is a row (a) or a column (b) whose extra axis the
      // result drops: record that shape work as the views it is.
      // (A copy of a view loses its autograd identity: keep the originals.)
      View a2, b2;
      if (a.rank == 1) a2 = expand_dims(a, 0);
      if (b.rank == 1) b2 = expand_dims(b, 1);
      View out = matmul(a.rank == 1 ? a2 : a, b.rank == 1 ? b2 : b, transpose_a && a.rank > 1,
                        transpose_b && b.rank > 1);
      if (a.rank == 1) out = select(out, out.rank - 2, 0);
      if (b.rank == 1) out = select(out, out.rank - 1, 0);
      return out;
    }
    return dispatch::matmul(a, b, transpose_a, transpose_b, nullptr);
  }
  View out = dispatch::matmul(a, b, transpose_a, transpose_b, nullptr);
  if (!is_float(out.dtype)) return out;
  if (Edges edges = recording({&a, &b}); !edges.empty()) {
    std::optional<View> ta, tb;
    const View &ca = as_dtype(a, out.dtype, ta), &cb = as_dtype(b, out.dtype, tb);
    attach(out, std::make_shared<MatmulNode>(ca, cb, transpose_a, transpose_b), std::move(edges));
  }
  return out;
}

View copy_to(const View &a, Device &device) {
  return recorded<CopyNode>(dispatch::copy_to(a, device), a, a.device());
}

View concatenate(const std::vector<const View *> &tensors, int32_t axis) {
  View out = dispatch::concatenate(tensors, axis);
  if (!is_float(out.dtype)) return out;
  Edges edges;
  bool needed = false;
  for (const View *t : tensors) {
    Edges one = recording({t});
    needed = needed || !one.empty();
    edges.push_back(one.empty() ? Edge(nullptr, *t) : std::move(one.front()));
  }
  if (!needed) return out;
  const int32_t ax = axis < 0 ? axis + out.rank : axis;
  std::vector<int64_t> extents;
  for (const View *t : tensors) extents.push_back(t->shape[ax]);
  attach(out, std::make_shared<ConcatenateNode>(ax, std::move(extents)), std::move(edges));
  return out;
}

View gather_nd(const View &a, const View &index) {
  View out = dispatch::gather_nd(a, index);
  if (Edges edges = recording({&a, &index}); !edges.empty())
    attach(out, std::make_shared<GatherNode>(a, index), std::move(edges));
  return out;
}

}  // namespace bp::core::autograd
