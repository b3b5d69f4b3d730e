// concatenate: the inputs written one after another into slices of a new
// tensor. The recording layer's concatenate (autograd/layout.cpp) runs it
// and records the gradient's split.
#include <algorithm>
#include <string>
#include <vector>

#include "devices/registry.hpp"
#include "dispatch/dtype_rules.hpp"
#include "dispatch/function_errors.hpp"
#include "dispatch/operators.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "tensors/view_ops.hpp"

namespace bp::core::dispatch {

namespace {

// Every tensor on the first one's device, else a mismatch naming each.
void same_device(const char *fn, const std::vector<const View *> &tensors) {
  for (size_t i = 1; i < tensors.size(); ++i) {
    if (&tensors[i]->device() == &tensors[0]->device()) continue;
    Error e(BP_ERR_DEVICE_MISMATCH,
            std::string(fn) + ": all inputs must be on one device, but input 0 is on " +
                tensors[0]->device().name + " and input " + std::to_string(i) + " is on " +
                tensors[i]->device().name + " (move one with bp_to)");
    e.op = fn;
    e.input = int32_t(i);
    for (const View *t : tensors) e.devices.push_back(t->device().id);
    throw e;
  }
}

}  // namespace

View concatenate(const std::vector<const View *> &tensors, int32_t axis) {
  const char *fn = "concatenate";
  if (tensors.empty()) function_fail(fn, BP_ERR_INVALID_ARGUMENT, "needs at least one tensor");
  same_device(fn, tensors);
  const View &first = *tensors[0];
  if (first.rank == 0)
    function_fail(fn, BP_ERR_SHAPE, "zero-dimensional tensors cannot be concatenated (stack them)");
  const int32_t a = function_axis(fn, axis, first.rank);
  int64_t shape[BP_MAX_RANK];
  std::copy(first.shape, first.shape + first.rank, shape);
  shape[a] = 0;
  int32_t dtype = first.dtype;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const View &t = *tensors[i];
    bool fits = t.rank == first.rank;
    for (int32_t d = 0; fits && d < t.rank; ++d) fits = d == a || t.shape[d] == first.shape[d];
    if (!fits)
      function_fail(fn, BP_ERR_SHAPE,
                    "input " + std::to_string(i) + " has shape " + shape_string(t.rank, t.shape) +
                        ", which does not match input 0's " + shape_string(first.rank, first.shape) +
                        " outside axis " + std::to_string(a));
    shape[a] += t.shape[a];
    dtype = promote(dtype, t.dtype);
  }
  View out = allocate_view(first.device(), dtype, first.rank, shape);
  int64_t start = 0;
  for (const View *t : tensors) {
    const int64_t n = t->shape[a];
    if (n > 0) assign(slice_view(out, a, start, start + n, 1), *t);
    start += n;
  }
  return out;
}

}  // namespace bp::core::dispatch
