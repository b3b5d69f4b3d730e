// The composite functions (composites/composites.cpp): handles in, handles out.
#include <vector>

#include "autograd/functions.hpp"
#include "backplane/backplane.h"
#include "capi/guard.hpp"
#include "devices/registry.hpp"
#include "composites/composites.hpp"
#include "errors/names.hpp"
#include "tensors/handle_table.hpp"

using namespace bp::core;

namespace {

const View &tensor_arg(bp_tensor h, const char *fn, const char *what) {
  const View *v = handles().get(h);
  if (!v)
    fail(BP_ERR_INVALID_HANDLE, std::string(fn) + ": " + what + " is " +
                                    (h == 0 ? "a null tensor handle"
                                            : "not a live tensor (released or never issued)"));
  return *v;
}

// Runs make() and hands its tensor to *out; errors name fn (the core's
// messages say "var: ...", the caller called bp_var).
template <class Make>
bp_status composite(const char *fn, bp_tensor *out, Make &&make) {
  return guarded([&] {
    as_function(fn, {fn + 3, "concatenate"}, [&] {
      bp_tensor *o = &require(out, fn, "out");
      *o = handles().insert(make());
    });
  });
}

std::vector<const View *> tensor_list(const char *fn, const bp_tensor *tensors, int32_t count) {
  if (count < 0) fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": count is negative");
  if (count > 0 && !tensors) fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": tensors is NULL");
  std::vector<const View *> views;
  for (int32_t i = 0; i < count; ++i)
    views.push_back(&tensor_arg(tensors[i], fn, ("input " + std::to_string(i)).c_str()));
  return views;
}

}  // namespace

extern "C" {

bp_status bp_concatenate(const bp_tensor *tensors, int32_t count, int32_t axis, bp_tensor *out) {
  return composite("bp_concatenate", out, [&] {
    return autograd::concatenate(tensor_list("bp_concatenate", tensors, count), axis);
  });
}

bp_status bp_stack(const bp_tensor *tensors, int32_t count, int32_t axis, bp_tensor *out) {
  return composite("bp_stack", out, [&] { return stack(tensor_list("bp_stack", tensors, count), axis); });
}

bp_status bp_eye(bp_device device, int32_t dtype, int64_t n, int64_t m, int64_t k, bp_tensor *out) {
  return composite("bp_eye", out, [&] {
    if (!valid_dtype(dtype)) fail(BP_ERR_DTYPE, "invalid dtype " + std::to_string(dtype));
    return eye(device_or_throw(device), dtype, n, m, k);
  });
}

bp_status bp_linspace(bp_device device, int32_t dtype, double start, double stop, int64_t num,
                      int32_t endpoint, bp_tensor *out) {
  return composite("bp_linspace", out, [&] {
    if (!valid_dtype(dtype)) fail(BP_ERR_DTYPE, "invalid dtype " + std::to_string(dtype));
    return linspace(device_or_throw(device), dtype, start, stop, num, endpoint != 0);
  });
}

bp_status bp_clip(bp_tensor a, double low, double high, bp_tensor *out) {
  return composite("bp_clip", out, [&] { return clip(tensor_arg(a, "bp_clip", "input 0"), low, high); });
}

bp_status bp_var(bp_tensor a, int32_t axis, int32_t keepdims, double ddof, bp_tensor *out) {
  return composite("bp_var", out, [&] {
    return var(tensor_arg(a, "bp_var", "input 0"), axis, keepdims != 0, ddof);
  });
}

bp_status bp_std(bp_tensor a, int32_t axis, int32_t keepdims, double ddof, bp_tensor *out) {
  return composite("bp_std", out, [&] {
    return autograd::unary(BP_OP_SQRT, var(tensor_arg(a, "bp_std", "input 0"), axis, keepdims != 0, ddof));
  });
}

bp_status bp_random_integers(bp_device device, int32_t dtype, int32_t rank, const int64_t *shape,
                             int64_t low, int64_t high, uint64_t seed, bp_tensor *out) {
  return composite("bp_random_integers", out, [&] {
    return random_integers(device_or_throw(device), dtype, rank, shape, low, high, seed);
  });
}

bp_status bp_allclose(bp_tensor a, bp_tensor b, double rtol, double atol, int32_t equal_nan,
                      int32_t *result) {
  return guarded([&] {
    as_function("bp_allclose", {"allclose"}, [&] {
      int32_t &r = require(result, "bp_allclose", "result");
      r = allclose(tensor_arg(a, "bp_allclose", "input 0"), tensor_arg(b, "bp_allclose", "input 1"),
                   rtol, atol, equal_nan != 0)
              ? 1
              : 0;
    });
  });
}

}  // extern "C"
