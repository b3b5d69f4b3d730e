// bp_var_axes, bp_layer_norm, bp_rms_norm, bp_group_norm and bp_batch_norm:
// handles and pointers checked here; the work is the recording layer's
// normalize (the NORMALIZE family) and composites/normalization.cpp.
#include <string>
#include <utility>

#include "autograd/functions.hpp"
#include "backplane/backplane.h"
#include "capi/guard.hpp"
#include "capi/tensor_arg.hpp"
#include "composites/normalization.hpp"
#include "errors/names.hpp"

using namespace bp::core;

namespace {

// An optional tensor argument: 0 is none.
const View *optional_arg(const char *fn, bp_tensor h, const char *what) {
  return h == 0 ? nullptr : &tensor_arg(fn, h, what);
}

// LAYER_NORM or RMS_NORM; the statistics' handles only for the pointers given.
bp_status normalize(const char *fn, int32_t op, bp_tensor x, bp_tensor weight, bp_tensor bias, int32_t axes,
                    double eps, bp_tensor *out, bp_tensor *mean, bp_tensor *rstd) {
  return guarded([&] {
    as_function(fn, {op_name(op)}, [&] {
      bp_tensor &o = require(out, fn, "out");
      Normalized r = autograd::normalize(op, tensor_arg(fn, x, "x"), optional_arg(fn, weight, "weight"),
                                               optional_arg(fn, bias, "bias"), axes, eps, mean != nullptr,
                                               rstd != nullptr);
      o = handles().insert(std::move(r.y));
      if (mean) *mean = handles().insert(std::move(r.mean));
      if (rstd) *rstd = handles().insert(std::move(r.rstd));
    });
  });
}

}  // namespace

extern "C" {

bp_status bp_var_axes(bp_tensor a, const int32_t *axes, int32_t count, int32_t keepdims, double correction,
                      bp_tensor *out) {
  return made("bp_var_axes", {"var"}, out, [&] {
    return var_axes(tensor_arg("bp_var_axes", a, "a"), axes, count, keepdims != 0, correction);
  });
}

bp_status bp_layer_norm(bp_tensor x, bp_tensor weight, bp_tensor bias, int32_t axes, double eps, bp_tensor *out,
                        bp_tensor *mean, bp_tensor *rstd) {
  return normalize("bp_layer_norm", BP_OP_LAYER_NORM, x, weight, bias, axes, eps, out, mean, rstd);
}

bp_status bp_rms_norm(bp_tensor x, bp_tensor weight, bp_tensor bias, int32_t axes, double eps, bp_tensor *out,
                      bp_tensor *rstd) {
  return normalize("bp_rms_norm", BP_OP_RMS_NORM, x, weight, bias, axes, eps, out, nullptr, rstd);
}

bp_status bp_group_norm(bp_tensor x, int64_t groups, bp_tensor weight, bp_tensor bias, double eps, bp_tensor *out) {
  const char *fn = "bp_group_norm";
  return made(fn, {"group_norm", "layer_norm"}, out, [&] {
    return group_norm(tensor_arg(fn, x, "x"), groups, optional_arg(fn, weight, "weight"),
                      optional_arg(fn, bias, "bias"), eps);
  });
}

bp_status bp_batch_norm(bp_tensor x, bp_tensor running_mean, bp_tensor running_var, bp_tensor weight,
                        bp_tensor bias, int32_t training, double momentum, double eps, bp_tensor *out) {
  const char *fn = "bp_batch_norm";
  return made(fn, {"batch_norm", "var", "mean"}, out, [&] {
    return batch_norm(tensor_arg(fn, x, "x"), optional_arg(fn, running_mean, "running_mean"),
                      optional_arg(fn, running_var, "running_var"), optional_arg(fn, weight, "weight"),
                      optional_arg(fn, bias, "bias"), training != 0, momentum, eps);
  });
}

}  // extern "C"
