// The autograd part of the C API (backplane/autograd.h).
#include "autograd/engine.hpp"
#include "autograd/functions.hpp"
#include "autograd/meta.hpp"
#include "backplane/backplane.h"
#include "capi/guard.hpp"
#include "dispatch/dtype_rules.hpp"
#include "errors/names.hpp"
#include "tensors/handle_table.hpp"

using namespace bp::core;
namespace ag = bp::core::autograd;

extern "C" {

bp_status bp_tensor_set_requires_grad(bp_tensor tensor, int32_t requires_grad) {
  return guarded([&] {
    View &v = view_or_throw(tensor, "bp_tensor_set_requires_grad");
    std::shared_ptr<ag::TensorMeta> meta = ag::meta_of(v);
    if (meta && meta->grad_fn)
      fail(BP_ERR_STATE,
           std::string("bp_tensor_set_requires_grad: the tensor was made by ") + meta->grad_fn->name +
               " and requires gradients through it; bp_detach gives a leaf of the same elements");
    if (requires_grad && !is_float(v.dtype))
      fail(BP_ERR_DTYPE, std::string("bp_tensor_set_requires_grad: only float tensors have gradients, not ") +
                             dtype_name(v.dtype));
    if (!meta) {
      if (!requires_grad) return;
      meta = ag::meta_or_create(v);
    }
    meta->requires_grad.store(requires_grad != 0, std::memory_order_release);
  });
}

bp_status bp_tensor_requires_grad(bp_tensor tensor, int32_t *out) {
  return guarded([&] {
    int32_t &o = require(out, "bp_tensor_requires_grad", "out");
    std::shared_ptr<ag::TensorMeta> meta = ag::meta_of(view_or_throw(tensor, "bp_tensor_requires_grad"));
    o = meta && meta->requires_grad.load(std::memory_order_acquire) ? 1 : 0;
  });
}

bp_status bp_tensor_is_leaf(bp_tensor tensor, int32_t *out) {
  return guarded([&] {
    int32_t &o = require(out, "bp_tensor_is_leaf", "out");
    std::shared_ptr<ag::TensorMeta> meta = ag::meta_of(view_or_throw(tensor, "bp_tensor_is_leaf"));
    o = meta && meta->grad_fn ? 0 : 1;
  });
}

bp_status bp_tensor_grad(bp_tensor tensor, bp_tensor *out) {
  return guarded([&] {
    bp_tensor &o = require(out, "bp_tensor_grad", "out");
    std::shared_ptr<ag::TensorMeta> meta = ag::meta_of(view_or_throw(tensor, "bp_tensor_grad"));
    View grad = meta ? ag::grad_of(*meta) : View();
    o = grad.storage ? handles().insert(std::move(grad)) : BP_NO_TENSOR;
  });
}

bp_status bp_tensor_clear_grad(bp_tensor tensor) {
  return guarded([&] {
    std::shared_ptr<ag::TensorMeta> meta = ag::meta_of(view_or_throw(tensor, "bp_tensor_clear_grad"));
    if (meta) ag::clear_grad(*meta);
  });
}

bp_status bp_tensor_grad_fn(bp_tensor tensor, const char **name) {
  return guarded([&] {
    const char *&o = require(name, "bp_tensor_grad_fn", "name");
    std::shared_ptr<ag::TensorMeta> meta = ag::meta_of(view_or_throw(tensor, "bp_tensor_grad_fn"));
    o = meta && meta->grad_fn ? meta->grad_fn->name : nullptr;
  });
}

bp_status bp_backward(bp_tensor tensor, bp_tensor grad, int32_t retain_graph) {
  return guarded([&] {
    const View &root = view_or_throw(tensor, "bp_backward");
    View seed;
    if (grad != BP_NO_TENSOR) seed = view_or_throw(grad, "bp_backward (grad)");
    ag::backward(root, seed, retain_graph != 0);
  });
}

bp_status bp_grad_set_enabled(int32_t enabled, int32_t *previous) {
  return guarded([&] {
    if (previous) *previous = ag::grad_enabled() ? 1 : 0;
    ag::set_grad_enabled(enabled != 0);
  });
}

int32_t bp_grad_is_enabled(void) { return ag::grad_enabled() ? 1 : 0; }

bp_status bp_detach(bp_tensor tensor, bp_tensor *out) {
  return guarded([&] {
    bp_tensor &o = require(out, "bp_detach", "out");
    o = handles().insert(ag::detach(view_or_throw(tensor, "bp_detach")));
  });
}

}  // extern "C"
