// Nodes run in an order where each runs once, after every node that feeds
// it a gradient (Kahn's algorithm over the dependency counts of the graph
// reachable from the root). Gradients for one tensor are summed before its
// node runs; each is brought to its input's shape (summing broadcast axes)
// and dtype before it is passed on.
#include "autograd/engine.hpp"

#include <algorithm>
#include <deque>
#include <string>
#include <unordered_map>

#include "autograd/record.hpp"
#include "devices/registry.hpp"
#include "dispatch/creation.hpp"
#include "dispatch/dtype_rules.hpp"
#include "dispatch/operators.hpp"
#include "errors/error.hpp"

namespace bp::core::autograd {

namespace {

// g as the gradient of a tensor shaped like `input` (its own dtype).
View fit(View g, const TensorShape &input) {
  View r = sum_to(g, input.rank, input.extents);
  g = View();  // r may be g itself: keep one reference, not two
  if (r.dtype != input.dtype) r = dispatch::cast(r, input.dtype);
  return r;
}

void accumulate(TensorMeta &leaf, View g) {
  std::lock_guard<std::mutex> lock(leaf.grad_mutex);
  if (!leaf.grad) {
    // The leaf's gradient must be a tensor of its own: g is adopted when
    // nothing else holds its storage and it covers all of it, else copied
    // (it may be a view of another gradient, or shared with another input).
    const bool own = g.storage->unique() && g.offset == 0 && g.contiguous() &&
                     g.extent_bytes() == g.storage->bytes();
    leaf.grad = own ? std::move(g) : dispatch::contiguous_copy(g);
  } else {
    dispatch::binary(BP_OP_ADD, *leaf.grad, g, &*leaf.grad);
    // A write like any other: a saved copy of this gradient is now stale.
    leaf.grad->storage->bump_version();
  }
}

}  // namespace

void backward(const View &root, const View &seed, bool retain_graph) {
  std::shared_ptr<TensorMeta> root_meta = meta_of(root);
  if (!root_meta || !root_meta->requires_grad.load(std::memory_order_acquire))
    fail(BP_ERR_STATE,
         "backward: the tensor does not require gradients (no input of the operations that made it "
         "has bp_tensor_set_requires_grad, or they ran with gradients disabled)");
  if (!seed.storage && root.numel() != 1)
    fail(BP_ERR_SHAPE, "backward: the tensor has " + std::to_string(root.numel()) +
                           " elements; give its gradient (backward of a scalar needs none)");
  if (seed.storage && (seed.rank != root.rank || !std::equal(seed.shape, seed.shape + seed.rank, root.shape)))
    fail(BP_ERR_SHAPE, "backward: the gradient has shape " + shape_string(seed.rank, seed.shape) +
                           " but the tensor has shape " + shape_string(root.rank, root.shape));
  if (seed.storage && &seed.device() != &root.device()) {
    Error e(BP_ERR_DEVICE_MISMATCH, "backward: the gradient is on " + seed.device().name +
                                        " but the tensor is on " + root.device().name +
                                        " (move the gradient with bp_to)");
    e.op = "backward";
    e.devices = {root.device().id, seed.device().id};
    throw e;
  }
  NoGradScope no_grad;
  View first = seed.storage ? (seed.dtype == root.dtype ? seed : dispatch::cast(seed, root.dtype))
                            : fill(root.device(), root.dtype, root.rank, root.shape, 1.0);
  if (!root_meta->grad_fn) {
    accumulate(*root_meta, std::move(first));
    return;
  }

  // Dependencies: how many gradients each reachable node waits for. Every
  // node's saved tensors are checked here, before any formula runs.
  std::unordered_map<Node *, int64_t> waiting;
  std::vector<Node *> stack = {root_meta->grad_fn.get()};
  waiting[root_meta->grad_fn.get()] = 0;
  while (!stack.empty()) {
    Node *n = stack.back();
    stack.pop_back();
    if (n->released.load(std::memory_order_acquire))
      fail(BP_ERR_STATE, std::string("backward: the graph through ") + n->name +
                             " was already used by a backward pass that freed its saved tensors "
                             "(pass retain_graph to run backward twice)");
    n->check();
    for (const Edge &e : n->inputs) {
      if (!e.meta || !e.meta->grad_fn) continue;
      Node *next = e.meta->grad_fn.get();
      auto it = waiting.find(next);
      if (it == waiting.end()) {
        waiting[next] = 1;
        stack.push_back(next);
      } else {
        ++it->second;
      }
    }
  }

  // The leaves' gradients are summed here and added into the leaves only
  // once every node has run: a pass that fails leaves no partial gradient.
  std::unordered_map<TensorMeta *, std::pair<std::shared_ptr<TensorMeta>, View>> leaves;
  std::vector<Node *> done;
  std::unordered_map<Node *, View> pending = {{root_meta->grad_fn.get(), first}};
  std::deque<Node *> ready = {root_meta->grad_fn.get()};
  while (!ready.empty()) {
    Node *n = ready.front();
    ready.pop_front();
    done.push_back(n);
    auto own = pending.find(n);
    // No gradient reached this node (its consumers gave none): nothing flows
    // on, but its inputs stop waiting for it.
    std::vector<View> grads;
    if (own != pending.end()) {
      View g = std::move(own->second);
      pending.erase(own);
      grads = n->apply(g);
    }
    for (size_t i = 0; i < n->inputs.size(); ++i) {
      const std::shared_ptr<TensorMeta> &in = n->inputs[i].meta;
      if (!in) continue;
      const bool has = i < grads.size() && grads[i].storage;
      if (!in->grad_fn) {
        if (!has) continue;
        View gi = fit(std::move(grads[i]), n->inputs[i].shape);
        auto it = leaves.find(in.get());
        if (it == leaves.end())
          leaves.emplace(in.get(), std::make_pair(in, std::move(gi)));
        else
          it->second.second = dispatch::binary(BP_OP_ADD, it->second.second, gi, nullptr);
        continue;
      }
      Node *next = in->grad_fn.get();
      if (has) {
        View gi = fit(std::move(grads[i]), n->inputs[i].shape);
        auto it = pending.find(next);
        if (it == pending.end())
          pending.emplace(next, std::move(gi));
        else
          it->second = dispatch::binary(BP_OP_ADD, it->second, gi, nullptr);
      }
      if (--waiting[next] == 0) ready.push_back(next);
    }
  }
  for (auto &entry : leaves) accumulate(*entry.second.first, std::move(entry.second.second));
  if (!retain_graph)
    for (Node *n : done) {
      n->release();
      n->released.store(true, std::memory_order_release);
    }
}

View grad_of(const TensorMeta &meta) {
  std::lock_guard<std::mutex> lock(const_cast<TensorMeta &>(meta).grad_mutex);
  return meta.grad ? *meta.grad : View();
}

void clear_grad(TensorMeta &meta) {
  std::optional<View> old;
  std::lock_guard<std::mutex> lock(meta.grad_mutex);
  old.swap(meta.grad);
}

}  // namespace bp::core::autograd
