// The backward pass (bp_backward): from one tensor's gradient to the
// gradients of every leaf it depends on.
#pragma once

#include "autograd/meta.hpp"

namespace bp::core::autograd {

// Runs the graph behind `root` backwards from `seed` (the gradient of root;
// an empty view means ones, allowed when root has one element) and adds
// each leaf's gradient into its TensorMeta::grad. Without retain_graph the
// nodes' saved tensors are freed on the way. Runs without recording.
void backward(const View &root, const View &seed, bool retain_graph);

// A leaf's gradient so far (an empty view when none), and forgetting it.
View grad_of(const TensorMeta &meta);
void clear_grad(TensorMeta &meta);

}  // namespace bp::core::autograd
