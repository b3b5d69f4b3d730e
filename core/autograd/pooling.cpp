// Gradients of pooling. MAX_POOL's output gradient goes back through the
// indices of the maxima (MAX_POOL_GRAD), which the forward computes only
// when the caller asked for them or a gradient will be needed; AVG_POOL's
// is spread over each window, divided as the forward divided
// (AVG_POOL_GRAD). Both run the raw operators: a pooling gradient records
// no second-order graph.
#include "autograd/functions.hpp"
#include "autograd/record.hpp"
#include "dispatch/operators.hpp"
#include "errors/names.hpp"

namespace bp::core::autograd {

namespace {

struct PoolNode : Node {
  int32_t grad_op;
  PoolWindow window;
  TensorShape input;
  Saved indices;
  PoolNode(int32_t op, const PoolWindow &window_, const View &x, const View *indices_)
      : Node(op_name(op)),
        grad_op(op == BP_OP_MAX_POOL ? BP_OP_MAX_POOL_GRAD : BP_OP_AVG_POOL_GRAD),
        window(window_),
        input(x),
        indices(indices_ ? Saved(*indices_) : Saved()) {
    saves(&indices);
  }

  std::vector<View> apply(const View &g) override {
    const View *idx = grad_op == BP_OP_MAX_POOL_GRAD ? &indices.get(name) : nullptr;
    return {dispatch::pool_grad(grad_op, g, idx, window, input.rank, input.extents)};
  }
};

View pool(int32_t op, const View &x, const PoolWindow &window, View *indices) {
  Edges edges = is_float(x.dtype) ? recording({&x}) : Edges();
  const bool keep_indices = op == BP_OP_MAX_POOL && (indices || !edges.empty());
  dispatch::Pooled out = dispatch::pool(op, x, window, keep_indices);
  if (!edges.empty())
    attach(out.values, std::make_shared<PoolNode>(op, window, x, keep_indices ? &out.indices : nullptr),
           std::move(edges));
  if (indices) *indices = std::move(out.indices);
  return std::move(out.values);
}

}  // namespace

View max_pool(const View &x, const PoolWindow &window, View *indices) {
  return pool(BP_OP_MAX_POOL, x, window, indices);
}

View avg_pool(const View &x, const PoolWindow &window) { return pool(BP_OP_AVG_POOL, x, window, nullptr); }

}  // namespace bp::core::autograd
