// bp_topk, bp_topk_out, bp_sort and bp_argsort: the TOPK operator (sort is
// k = the axis' extent). Errors name the function the caller called
// ("topk", "sort", "argsort").
#include <string>

#include "autograd/functions.hpp"
#include "backplane/backplane.h"
#include "capi/guard.hpp"
#include "capi/tensor_arg.hpp"
#include "dispatch/operators.hpp"
#include "tensors/handle_table.hpp"

using namespace bp::core;
namespace ag = bp::core::autograd;

namespace {

// The axis' extent of a, the k that sorts the whole axis; an axis out of
// range is left for the operator to report.
int64_t whole_axis(const View &a, int32_t axis) {
  if (a.rank == 0) return 1;
  const int32_t ax = axis < 0 ? axis + a.rank : axis;
  return ax >= 0 && ax < a.rank ? a.shape[ax] : 0;
}

// Runs topk as `fn` and hands out the results the caller asked for.
bp_status topk_into(const char *fn, bp_tensor a, int64_t k, bool whole, int32_t axis, bool largest,
                    bp_tensor *values, bp_tensor *indices) {
  return guarded([&] {
    if (!values && !indices)
      fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": values and indices are both NULL");
    const View &x = tensor_arg(fn, a, "a");
    ag::TopkResult r = ag::topk(fn, x, whole ? whole_axis(x, axis) : k, axis, largest);
    if (values) *values = handles().insert(std::move(r.values));
    if (indices) *indices = handles().insert(std::move(r.indices));
  });
}

}  // namespace

extern "C" {

bp_status bp_topk(bp_tensor a, int64_t k, int32_t axis, int32_t largest, bp_tensor *values, bp_tensor *indices) {
  return topk_into("topk", a, k, false, axis, largest != 0, values, indices);
}

bp_status bp_topk_out(bp_tensor a, int64_t k, int32_t axis, int32_t largest, bp_tensor values, bp_tensor indices) {
  const char *fn = "topk";
  return guarded([&] {
    const View &x = tensor_arg(fn, a, "a"), &v = tensor_arg(fn, values, "values"),
               &i = tensor_arg(fn, indices, "indices");
    ag::before_write(fn, v, {&x});
    ag::before_write(fn, i, {&x});
    dispatch::topk(fn, x, k, axis, largest != 0, &v, &i);
    ag::wrote(v);
    ag::wrote(i);
  });
}

bp_status bp_sort(bp_tensor a, int32_t axis, int32_t descending, bp_tensor *values, bp_tensor *indices) {
  return topk_into("sort", a, 0, true, axis, descending != 0, values, indices);
}

bp_status bp_argsort(bp_tensor a, int32_t axis, int32_t descending, bp_tensor *indices) {
  return guarded([&] {
    if (!indices) fail(BP_ERR_INVALID_ARGUMENT, "argsort: indices is NULL");
    const View &x = tensor_arg("argsort", a, "a");
    // Positions take no gradient: nothing to record.
    dispatch::TopkViews r = dispatch::topk("argsort", x, whole_axis(x, axis), axis, descending != 0, nullptr, nullptr);
    *indices = handles().insert(std::move(r.indices));
  });
}

}  // extern "C"
