#include "autograd/meta.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "dispatch/dtype_rules.hpp"
#include "errors/error.hpp"

namespace bp::core::autograd {

namespace {

std::atomic<int64_t> g_metas{0};
std::mutex g_meta_creation;  // two threads marking one tensor make one meta
thread_local bool t_grad_enabled = true;

}  // namespace

TensorMeta::TensorMeta() { g_metas.fetch_add(1, std::memory_order_acq_rel); }
// A graph is a chain of metas owning nodes owning metas: freed recursively,
// a long one (a sum over an epoch, an unrolled loop) would overflow the
// stack. The nodes only this meta holds are taken apart here, one at a time.
TensorMeta::~TensorMeta() {
  std::vector<std::shared_ptr<Node>> orphans;  // allocates only for a graph deeper than one node
  std::shared_ptr<Node> n;
  if (grad_fn && grad_fn.use_count() == 1) n = std::move(grad_fn);
  while (n) {
    for (Edge &e : n->inputs) {
      if (e.meta && e.meta.use_count() == 1 && e.meta->grad_fn && e.meta->grad_fn.use_count() == 1)
        orphans.push_back(std::move(e.meta->grad_fn));
      e.meta.reset();  // without its node now: freed without recursing
    }
    n.reset();
    if (!orphans.empty()) {
      n = std::move(orphans.back());
      orphans.pop_back();
    }
  }
  g_metas.fetch_sub(1, std::memory_order_acq_rel);
}

// All BP_MAX_RANK extents (zero past the rank in every view): a fixed-size
// copy the compiler keeps in registers, on the recording path.
TensorShape::TensorShape(const View &v) : rank(v.rank), dtype(v.dtype) {
  static_assert(sizeof extents == sizeof v.shape);
  std::memcpy(extents, v.shape, sizeof extents);
}

Saved::Saved(const View &v) : view_(v), version_(v.storage ? v.storage->version() : 0) {}

const View &Saved::get(const char *op) const {
  static const View kNone;
  if (!view_) return kNone;
  if (view_->storage && view_->storage->version() != version_)
    fail(BP_ERR_STATE, std::string(op) +
                           " backward: a tensor its gradient needs was written in place (an _out "
                           "function, bp_assign, a scatter or bp_from_host_into) after " + op +
                           " used it; write into a new tensor instead");
  return *view_;
}

bool grad_enabled() { return t_grad_enabled; }
void set_grad_enabled(bool on) { t_grad_enabled = on; }

bool active() { return g_metas.load(std::memory_order_acquire) > 0; }

std::shared_ptr<TensorMeta> meta_of(const View &v) {
  if (!active() || !v.autograd.get()) return nullptr;
  return v.autograd.owner();
}

std::shared_ptr<TensorMeta> meta_or_create(View &v) {
  std::lock_guard<std::mutex> lock(g_meta_creation);
  if (!v.autograd.get()) v.autograd.set(std::make_shared<TensorMeta>());
  return v.autograd.owner();
}

namespace {

bool needs(const TensorMeta *m) { return m && m->requires_grad.load(std::memory_order_acquire); }

}  // namespace

bool any_requires_grad(std::initializer_list<const View *> views) {
  if (!grad_enabled() || !active()) return false;
  for (const View *v : views)
    if (needs(v->autograd.get())) return true;
  return false;
}

Edges recording(std::initializer_list<const View *> views) {
  if (!grad_enabled() || !active()) return {};
  // Most operations in a process that trains record nothing (optimiser
  // steps, metrics): found without building an edge.
  bool any = false;
  for (const View *v : views) any = any || (needs(v->autograd.get()) && is_float(v->dtype));
  if (!any) return {};
  Edges edges;
  edges.reserve(views.size());
  any = false;  // read again: another thread may have cleared a flag since
  for (const View *v : views) {
    const bool wanted = needs(v->autograd.get()) && is_float(v->dtype);
    edges.emplace_back(wanted ? v->autograd.owner() : nullptr, *v);
    any = any || wanted;
  }
  if (!any) edges.clear();
  return edges;
}

bool requires_grad(const View &v) {
  if (!grad_enabled() || !active()) return false;
  return needs(v.autograd.get());
}

}  // namespace bp::core::autograd
