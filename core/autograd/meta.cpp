#include "autograd/meta.hpp"

#include <algorithm>
#include <vector>

#include "dispatch/dtype_rules.hpp"
#include "errors/error.hpp"

namespace bp::core::autograd {

namespace {

std::atomic<int64_t> g_metas{0};
std::mutex g_meta_lock;
thread_local bool t_grad_enabled = true;

}  // namespace

TensorMeta::TensorMeta() { g_metas.fetch_add(1, std::memory_order_acq_rel); }
// A graph is a chain of metas owning nodes owning metas: freed recursively,
// a long one (a sum over an epoch, an unrolled loop) would overflow the
// stack. The nodes only this meta holds are taken apart here, one at a time.
TensorMeta::~TensorMeta() {
  std::vector<std::shared_ptr<Node>> orphans;
  if (grad_fn && grad_fn.use_count() == 1) orphans.push_back(std::move(grad_fn));
  while (!orphans.empty()) {
    std::shared_ptr<Node> n = std::move(orphans.back());
    orphans.pop_back();
    for (Edge &e : n->inputs) {
      if (e.meta && e.meta.use_count() == 1 && e.meta->grad_fn && e.meta->grad_fn.use_count() == 1)
        orphans.push_back(std::move(e.meta->grad_fn));
      e.meta.reset();  // without its node now: freed without recursing
    }
  }
  g_metas.fetch_sub(1, std::memory_order_acq_rel);
}

TensorShape::TensorShape(const View &v) : rank(v.rank), dtype(v.dtype) {
  std::copy(v.shape, v.shape + v.rank, extents);
}

Saved::Saved(const View &v) : view_(v), version_(v.storage ? v.storage->version() : 0) {}

const View &Saved::get(const char *op) const {
  if (view_.storage && view_.storage->version() != version_)
    fail(BP_ERR_STATE, std::string(op) +
                           " backward: a tensor its gradient needs was written in place (an _out "
                           "function, bp_assign, a scatter or bp_from_host_into) after " + op +
                           " used it; write into a new tensor instead");
  return view_;
}

bool grad_enabled() { return t_grad_enabled; }
void set_grad_enabled(bool on) { t_grad_enabled = on; }

bool active() { return g_metas.load(std::memory_order_acquire) > 0; }

std::shared_ptr<TensorMeta> meta_of(const View &v) {
  if (!active()) return nullptr;
  std::lock_guard<std::mutex> lock(g_meta_lock);
  return v.autograd.meta;
}

std::shared_ptr<TensorMeta> meta_or_create(View &v) {
  std::lock_guard<std::mutex> lock(g_meta_lock);
  if (!v.autograd.meta) v.autograd.meta = std::make_shared<TensorMeta>();
  return v.autograd.meta;
}

namespace {

bool needs(const TensorMeta *m) { return m && m->requires_grad.load(std::memory_order_acquire); }

}  // namespace

bool any_requires_grad(std::initializer_list<const View *> views) {
  if (!grad_enabled() || !active()) return false;
  std::lock_guard<std::mutex> lock(g_meta_lock);
  for (const View *v : views)
    if (needs(v->autograd.meta.get())) return true;
  return false;
}

std::vector<Edge> recording(std::initializer_list<const View *> views) {
  if (!grad_enabled() || !active()) return {};
  std::vector<Edge> edges(views.size());
  size_t i = 0;
  bool any = false;
  std::lock_guard<std::mutex> lock(g_meta_lock);
  for (const View *v : views) {
    Edge &e = edges[i++];
    if (needs(v->autograd.meta.get()) && is_float(v->dtype)) {
      e.meta = v->autograd.meta;
      any = true;
    }
    e.shape = TensorShape(*v);
  }
  if (!any) edges.clear();
  return edges;
}

bool requires_grad(const View &v) {
  if (!grad_enabled() || !active()) return false;
  std::shared_ptr<TensorMeta> m = meta_of(v);
  return m && m->requires_grad.load(std::memory_order_acquire);
}

}  // namespace bp::core::autograd
