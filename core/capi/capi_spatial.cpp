// Pooling, dropout, padding and resizing (since 1.6): handles in, handles
// out. The pooling operators take bp_pool_options; every entry takes an
// unbatched [C, S...] input as a batch of one.
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>

#include "autograd/functions.hpp"
#include "backplane/backplane.h"
#include "capi/guard.hpp"
#include "capi/sized_struct.hpp"
#include "capi/tensor_arg.hpp"
#include "composites/dropout_mask.hpp"
#include "composites/spatial.hpp"
#include "dispatch/dtype_rules.hpp"
#include "dispatch/function_errors.hpp"
#include "errors/names.hpp"
#include "tensors/handle_table.hpp"

using namespace bp::core;
namespace ag = bp::core::autograd;

namespace {

// PyTorch's defaults filled in: stride 0 is the kernel, dilation 0 is 1.
PoolWindow pool_window(const char *fn, const bp_pool_options *given) {
  bp_pool_options o;
  std::memset(&o, 0, sizeof o);
  const bp_pool_options &g = require(given, fn, "options");
  check_struct_size(g.struct_size, BP_POOL_OPTIONS_SIZE_1_6, fn);
  std::memcpy(&o, &g, std::min<size_t>(g.struct_size, sizeof o));
  PoolWindow w;
  w.params.spatial_rank = o.spatial_rank;
  for (int32_t d = 0; d < BP_WINDOW_MAX_RANK && d < o.spatial_rank; ++d) {
    w.params.kernel[d] = o.kernel[d];
    w.params.stride[d] = o.stride[d] == 0 ? o.kernel[d] : o.stride[d];
    w.params.dilation[d] = o.dilation[d] == 0 ? 1 : o.dilation[d];
    w.params.pad_begin[d] = o.pad_begin[d];
    w.params.pad_end[d] = o.pad_end[d];
  }
  w.params.flags = o.count_include_pad ? BP_WINDOW_COUNT_INCLUDE_PAD : 0u;
  w.ceil_mode = o.ceil_mode != 0;
  return w;
}

// f(batched x) for x [N, C, S...], or for [C, S...] as a batch of one
// whose batch axis each result (also *extra, when set) loses again.
View batched(const View &x, int32_t spatial_rank, View *extra, const std::function<View(const View &)> &f) {
  if (x.rank != spatial_rank + 1 || spatial_rank < 1) return f(x);
  View result = f(ag::expand_dims(x, 0));
  if (extra && extra->storage) *extra = ag::select(*extra, 0, 0);
  return ag::select(result, 0, 0);
}

// Runs make() as the C function fn and hands out its tensor (and *extra
// into *second, when asked).
bp_status emit(const char *fn, const char *op, bp_tensor *out, bp_tensor *second,
               const std::function<View(View *extra)> &make) {
  return guarded([&] {
    as_function(fn, {op}, [&] {
      bp_tensor &o = require(out, fn, "out");
      View extra;
      View result = make(second ? &extra : nullptr);
      o = handles().insert(std::move(result));
      if (second) *second = handles().insert(std::move(extra));
    });
  });
}

}  // namespace

extern "C" {

bp_status bp_max_pool(bp_tensor x, const bp_pool_options *options, bp_tensor *out, bp_tensor *indices) {
  return emit("bp_max_pool", "max_pool", out, indices, [&](View *extra) {
    const PoolWindow w = pool_window("bp_max_pool", options);
    return batched(tensor_arg("bp_max_pool", x, "the input"), w.params.spatial_rank, extra,
                   [&](const View &v) { return ag::max_pool(v, w, extra); });
  });
}

bp_status bp_avg_pool(bp_tensor x, const bp_pool_options *options, bp_tensor *out) {
  return emit("bp_avg_pool", "avg_pool", out, nullptr, [&](View *) {
    const PoolWindow w = pool_window("bp_avg_pool", options);
    return batched(tensor_arg("bp_avg_pool", x, "the input"), w.params.spatial_rank, nullptr,
                   [&](const View &v) { return ag::avg_pool(v, w); });
  });
}

bp_status bp_adaptive_avg_pool(bp_tensor x, int32_t spatial_rank, const int64_t *output_size, bp_tensor *out) {
  return emit("bp_adaptive_avg_pool", "adaptive_avg_pool", out, nullptr, [&](View *) {
    return batched(tensor_arg("bp_adaptive_avg_pool", x, "the input"), spatial_rank, nullptr,
                   [&](const View &v) { return adaptive_avg_pool(v, spatial_rank, output_size); });
  });
}

bp_status bp_adaptive_max_pool(bp_tensor x, int32_t spatial_rank, const int64_t *output_size, bp_tensor *out,
                               bp_tensor *indices) {
  return emit("bp_adaptive_max_pool", "adaptive_max_pool", out, indices, [&](View *extra) {
    return batched(tensor_arg("bp_adaptive_max_pool", x, "the input"), spatial_rank, extra,
                   [&](const View &v) { return adaptive_max_pool(v, spatial_rank, output_size, extra); });
  });
}

bp_status bp_global_avg_pool(bp_tensor x, int32_t spatial_rank, bp_tensor *out) {
  return emit("bp_global_avg_pool", "global_avg_pool", out, nullptr, [&](View *) {
    return batched(tensor_arg("bp_global_avg_pool", x, "the input"), spatial_rank, nullptr,
                   [&](const View &v) { return global_avg_pool(v, spatial_rank); });
  });
}

bp_status bp_global_max_pool(bp_tensor x, int32_t spatial_rank, bp_tensor *out) {
  return emit("bp_global_max_pool", "global_max_pool", out, nullptr, [&](View *) {
    return batched(tensor_arg("bp_global_max_pool", x, "the input"), spatial_rank, nullptr,
                   [&](const View &v) { return global_max_pool(v, spatial_rank); });
  });
}

// Dropout's rule is the one bp_attention's weights follow (dropout_mask);
// what bp_dropout adds is the check of its arguments.
bp_status bp_dropout(bp_tensor x, double p, uint64_t seed, bp_tensor *out) {
  return emit("bp_dropout", "dropout", out, nullptr, [&](View *) {
    const View &v = tensor_arg("bp_dropout", x, "the input");  // a copy would be a new tensor to autograd
    if (!is_float(v.dtype))
      function_fail("dropout", BP_ERR_DTYPE, std::string("defined for float tensors, not ") + dtype_name(v.dtype));
    if (!(p >= 0 && p <= 1))
      function_fail("dropout", BP_ERR_INVALID_ARGUMENT, "the probability " + std::to_string(p) + " is not in [0, 1]");
    return dropout(v, p, seed);
  });
}

bp_status bp_pad(bp_tensor x, const int64_t *before, const int64_t *after, int32_t mode, double value,
                 bp_tensor *out) {
  return emit("bp_pad", "pad", out, nullptr,
              [&](View *) { return pad(tensor_arg("bp_pad", x, "the input"), before, after, mode, value); });
}

bp_status bp_interpolate(bp_tensor x, int32_t spatial_rank, const int64_t *size, const double *scale,
                         int32_t mode, int32_t align_corners, bp_tensor *out) {
  return emit("bp_interpolate", "interpolate", out, nullptr, [&](View *) {
    return batched(tensor_arg("bp_interpolate", x, "the input"), spatial_rank, nullptr, [&](const View &v) {
      return interpolate(v, spatial_rank, size, scale, mode, align_corners != 0);
    });
  });
}

}  // extern "C"
