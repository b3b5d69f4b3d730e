// bp_reduce_axes, bp_where_scalar and bp_full_kind: handles and pointers
// checked here; the work is in composites/scalar_forms.cpp.
#include <string>

#include "backplane/backplane.h"
#include "capi/guard.hpp"
#include "capi/tensor_arg.hpp"
#include "devices/registry.hpp"
#include "composites/scalar_forms.hpp"
#include "errors/names.hpp"

using namespace bp::core;

extern "C" {

bp_status bp_reduce_axes(int32_t op, bp_tensor a, const int32_t *axes, int32_t count, int32_t keepdims,
                         bp_tensor *out) {
  return made("bp_reduce_axes", {"reduce_axes"}, out, [&] {
    return reduce_axes(op, tensor_arg("bp_reduce_axes", a, "a"), axes, count, keepdims != 0);
  });
}

bp_status bp_where_scalar(bp_tensor cond, bp_tensor a, double scalar, int32_t scalar_kind, int32_t scalar_is_a,
                          bp_tensor *out) {
  return made("bp_where_scalar", {"where"}, out, [&] {
    return where_scalar(tensor_arg("bp_where_scalar", cond, "cond"), tensor_arg("bp_where_scalar", a, "the tensor"),
                        scalar, scalar_kind, scalar_is_a != 0);
  });
}

bp_status bp_full_kind(bp_device device, int32_t dtype, int32_t rank, const int64_t *shape, double value,
                       int32_t value_kind, bp_tensor *out) {
  return made("bp_full_kind", {"full"}, out, [&] {
    if (!valid_dtype(dtype)) fail(BP_ERR_DTYPE, "bp_full_kind: invalid dtype " + std::to_string(dtype));
    return full_kind(device_or_throw(device), dtype, rank, shape, value, value_kind);
  });
}

}  // extern "C"
