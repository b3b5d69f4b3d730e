// Autograd's data: what a tensor handle knows about gradients (TensorMeta),
// the recorded operations (Node), tensors saved for a backward pass (Saved),
// and the per-thread grad mode. The graph is owned from its outputs down:
// a result's TensorMeta owns its Node, a Node owns the TensorMeta of each
// input that needs a gradient, and a leaf's TensorMeta holds its gradient.
// Releasing the last handle of the outputs frees the graph; a backward pass
// frees the saved tensors unless asked to keep them.
#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "tensors/view.hpp"

namespace bp::core::autograd {

struct Node;

// The shape and dtype of a tensor, which its gradient must end up with.
struct TensorShape {
  int32_t rank = 0, dtype = 0;
  int64_t extents[BP_MAX_RANK] = {};
  TensorShape() = default;
  explicit TensorShape(const View &v);
};

struct TensorMeta {
  TensorMeta();
  ~TensorMeta();
  TensorMeta(const TensorMeta &) = delete;
  TensorMeta &operator=(const TensorMeta &) = delete;

  // A leaf's flag is the caller's (bp_tensor_set_requires_grad); a result
  // of a recorded operation always requires gradients.
  std::atomic<bool> requires_grad{false};
  // The operation that made this tensor; null for a leaf. Set before the
  // tensor's handle exists and never changed.
  std::shared_ptr<Node> grad_fn;

  // A leaf's accumulated gradient (none until a backward pass reaches it;
  // optional so that the many non-leaf metas cost nothing for it).
  std::mutex grad_mutex;
  std::optional<View> grad;
};

// A tensor a backward formula needs, with its storage's write count when
// it was saved: reading it after an in-place write is an error, not a wrong
// gradient.
class Saved {
 public:
  // User-provided, not defaulted: Saved() would otherwise zero all of the
  // optional's storage first (value-initialisation), on the recording path.
  Saved() noexcept {}
  explicit Saved(const View &v);
  // The tensor, or Error(BP_ERR_STATE) naming `op` when it was overwritten
  // or already freed by a backward pass.
  const View &get(const char *op) const;
  void release() { view_.reset(); }

 private:
  // Optional so that a node's unused slots cost nothing to make and free.
  std::optional<View> view_;
  uint64_t version_ = 0;
};

// Where a node sends input i's gradient: the input's TensorMeta when it
// needs a gradient (else null), and the shape and dtype the gradient is
// summed and converted to.
struct Edge {
  Edge(std::shared_ptr<TensorMeta> meta_, const View &input) : meta(std::move(meta_)), shape(input) {}
  std::shared_ptr<TensorMeta> meta;
  TensorShape shape;
};
// A node's edges, inline up to three (every operator but concatenate and
// stack): recording an operation allocates as little as it can.
using Edges = std::vector<Edge>;

// One recorded operation. apply() returns one gradient per input (an empty
// View where none is needed) for the gradient of the output.
struct Node {
  explicit Node(const char *name_) : name(name_) {}
  virtual ~Node() = default;
  Node(const Node &) = delete;  // saves() keeps pointers into the node
  Node &operator=(const Node &) = delete;
  virtual std::vector<View> apply(const View &grad) = 0;
  // Raises the error a saved tensor would raise in apply(), so that a
  // backward pass refuses before it has touched any gradient.
  void check() const {
    for (const Saved *s : saved_) s->get(name);
  }
  // Drops the saved tensors (after a backward pass without retain_graph).
  void release() {
    for (Saved *s : saved_) s->release();
  }

  const char *name;
  Edges inputs;
  // Whether input i wants a gradient: a formula skips the work for the others.
  bool wants(size_t i) const { return i < inputs.size() && inputs[i].meta != nullptr; }
  // Set by the backward pass that freed the saved tensors. Two backward
  // passes over one graph at the same time need retain_graph in both.
  std::atomic<bool> released{false};

 protected:
  // Registers the node's saved tensors with check() and release().
  template <class... S>
  void saves(S *...saved) {
    static_assert(sizeof...(S) <= kMaxSaved, "a node saves at most kMaxSaved tensors");
    (saved_.push(saved), ...);
  }

 private:
  // Inline, not a vector: recording an operation allocates as little as it can.
  static constexpr size_t kMaxSaved = 4;
  class SavedList {
   public:
    void push(Saved *s) { items_[n_++] = s; }
    Saved *const *begin() const { return items_; }
    Saved *const *end() const { return items_ + n_; }

   private:
    Saved *items_[kMaxSaved] = {};
    size_t n_ = 0;
  };
  SavedList saved_;
};

// Per-thread grad mode (bp_grad_set_enabled): on by default.
bool grad_enabled();
void set_grad_enabled(bool on);

// Whether any TensorMeta exists in the process: while none does, no view can
// need recording and the operators skip the autograd lock entirely.
bool active();

// The meta of a view that may sit in the handle table (without a lock:
// AutogradLink says why that is safe).
std::shared_ptr<TensorMeta> meta_of(const View &v);
// Whether grad mode is on and one of the views needs a gradient.
bool any_requires_grad(std::initializer_list<const View *> views);
// One edge per view, when grad mode is on and one of
// the views needs a gradient; else nothing. A view that needs none, or is
// not float, gets a null meta: its edge carries only its shape.
Edges recording(std::initializer_list<const View *> views);
// v's meta, made (a leaf's) when it has none, under a lock so that two
// threads marking one tensor share one meta.
std::shared_ptr<TensorMeta> meta_or_create(View &v);

// Whether v needs a gradient now: grad mode on and its meta requires one.
bool requires_grad(const View &v);

// Turns off grad mode for a scope (the backward pass, optimiser steps).
class NoGradScope {
 public:
  NoGradScope() : previous_(grad_enabled()) { set_grad_enabled(false); }
  ~NoGradScope() { set_grad_enabled(previous_); }
  NoGradScope(const NoGradScope &) = delete;
  NoGradScope &operator=(const NoGradScope &) = delete;

 private:
  bool previous_;
};

}  // namespace bp::core::autograd
