// Gradients of VAR over a set of axes and of LAYER_NORM and RMS_NORM, as
// formulas of existing operators run without recording.
//
// VAR: d var / dx = 2 (x - mean) / (n - correction).
// LAYER_NORM, per row of n elements, with xhat = (x - mean) * rstd and
// gw = g * weight (g without a weight):
//   dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)),
//   dweight = the sum over rows of g * xhat, dbias = the sum over rows of g;
// RMS_NORM the same with xhat = x * rstd and no mean(gw) term. The
// statistics are the forward's own (saved), and the arithmetic runs in
// their dtype (float32 for the halves), converted back to the inputs'.
#include <vector>

#include "autograd/functions.hpp"
#include "autograd/record.hpp"
#include "backplane/backplane.h"
#include "dispatch/dtype_rules.hpp"
#include "dispatch/operators.hpp"
#include "errors/names.hpp"
#include "tensors/view_ops.hpp"

namespace bp::core::autograd {

namespace {

// v seen with `shape` (v's elements in C order): a view where the strides
// allow it, else a dense copy.
View reshaped(const View &v, int32_t rank, const int64_t *shape) {
  View r;
  if (reshape_view(v, rank, shape, r)) return r;
  const View dense = dispatch::contiguous_copy(v);
  reshape_view(dense, rank, shape, r);
  return r;
}

View as(const View &v, int32_t dtype) { return v.dtype == dtype ? v : dispatch::cast(v, dtype); }

struct VarNode : Node {
  bool reduced[BP_MAX_RANK] = {};
  TensorShape input;
  double divisor;
  Saved a;
  VarNode(const View &a_, const bool *reduced_, double correction)
      : Node(op_name(BP_OP_VAR)), input(a_), a(a_) {
    int64_t n = 1;
    for (int32_t d = 0; d < a_.rank; ++d) {
      reduced[d] = reduced_[d];
      if (reduced[d]) n *= a_.shape[d];
    }
    divisor = double(n) - correction;
    saves(&a);
  }

  std::vector<View> apply(const View &g) override {
    const View &x = a.get(name);
    int64_t kept[BP_MAX_RANK];
    for (int32_t d = 0; d < input.rank; ++d) kept[d] = reduced[d] ? 1 : input.extents[d];
    const View gk = reshaped(g, input.rank, kept);
    const View mean = dispatch::reduce_over(BP_OP_MEAN, x, reduced, true, 0.0, nullptr);
    // 2 / (n - c); a divisor <= 0 divides by 0, as the forward does.
    const double factor = 2.0 / (divisor > 0 ? divisor : 0.0);
    return {mul(scale(sub(x, mean), factor), gk)};
  }
};

struct NormalizeNode : Node {
  int32_t op, axes;
  bool has_weight, has_bias;
  TensorShape input;
  Saved x, weight, mean, rstd;
  NormalizeNode(int32_t op_, const View &x_, const View *w_, bool has_bias_, int32_t axes_,
                const Normalized &r)
      : Node(op_name(op_)),
        op(op_),
        axes(axes_),
        has_weight(w_ != nullptr),
        has_bias(has_bias_),
        input(x_),
        x(x_),
        weight(w_ ? Saved(*w_) : Saved()),
        mean(op_ == BP_OP_LAYER_NORM ? Saved(r.mean) : Saved()),
        rstd(r.rstd) {
    if (has_weight && op == BP_OP_LAYER_NORM) saves(&x, &weight, &mean, &rstd);
    else if (has_weight) saves(&x, &weight, &rstd);
    else if (op == BP_OP_LAYER_NORM) saves(&x, &mean, &rstd);
    else saves(&x, &rstd);
  }

  std::vector<View> apply(const View &g) override {
    const View &r = rstd.get(name);
    const int32_t stats = r.dtype;
    // Everything as rows [lead..., n], in the statistics' dtype.
    const int32_t lead = input.rank - axes;
    int64_t rows[BP_MAX_RANK], n = 1;
    for (int32_t d = 0; d < lead; ++d) rows[d] = input.extents[d];
    for (int32_t d = lead; d < input.rank; ++d) n *= input.extents[d];
    rows[lead] = n;
    const int32_t rank = lead + 1;
    int64_t stat_rows[BP_MAX_RANK];
    for (int32_t d = 0; d < rank; ++d) stat_rows[d] = d < lead ? rows[d] : 1;
    const View gf = as(reshaped(g, rank, rows), stats);
    const View xf = as(reshaped(x.get(name), rank, rows), stats);
    const View rs = reshaped(r, rank, stat_rows);
    const View centred = op == BP_OP_LAYER_NORM ? sub(xf, reshaped(mean.get(name), rank, stat_rows)) : xf;
    const View xhat = mul(centred, rs);
    View w;
    if (has_weight) w = as(reshaped(weight.get(name), 1, &n), stats);
    const View gw = has_weight ? mul(gf, w) : gf;
    const View along = dispatch::reduce(BP_OP_MEAN, mul(gw, xhat), -1, true, nullptr);
    View inner = sub(gw, mul(xhat, along));
    if (op == BP_OP_LAYER_NORM) inner = sub(inner, dispatch::reduce(BP_OP_MEAN, gw, -1, true, nullptr));
    std::vector<View> grads;
    grads.push_back(wants(0) ? reshaped(mul(rs, inner), input.rank, input.extents) : View());
    // Sums over every row: the leading axes at once.
    bool leading[BP_MAX_RANK] = {};
    for (int32_t d = 0; d < lead; ++d) leading[d] = true;
    // weight and bias have the normalised shape, x's last `axes` extents.
    const int64_t *affine = input.extents + lead;
    if (has_weight)
      grads.push_back(wants(1) ? reshaped(dispatch::reduce_over(BP_OP_SUM, mul(gf, xhat), leading, false, 0.0, nullptr),
                                          axes, affine)
                               : View());
    if (has_bias) {
      const size_t i = grads.size();
      grads.push_back(
          wants(i) ? reshaped(dispatch::reduce_over(BP_OP_SUM, gf, leading, false, 0.0, nullptr), axes, affine) : View());
    }
    return grads;
  }
};

}  // namespace

void record_var(View &out, const View &a, const bool *reduced, double correction) {
  if (Edges edges = recording({&a}); !edges.empty())
    attach(out, std::make_shared<VarNode>(a, reduced, correction), std::move(edges));
}

View var_over(const View &a, const bool *reduced, bool keepdims, double correction) {
  View out = dispatch::reduce_over(BP_OP_VAR, a, reduced, keepdims, correction, nullptr);
  record_var(out, a, reduced, correction);
  return out;
}

Normalized normalize(int32_t op, const View &x, const View *weight, const View *bias, int32_t axes,
                               double eps, bool want_mean, bool want_rstd) {
  Edges edges = weight && bias ? recording({&x, weight, bias})
                : weight       ? recording({&x, weight})
                : bias         ? recording({&x, bias})
                               : recording({&x});
  const bool record = !edges.empty();
  Normalized r =
      dispatch::normalize(op, x, weight, bias, axes, eps, want_mean || record, want_rstd || record);
  if (record)
    attach(r.y, std::make_shared<NormalizeNode>(op, x, weight, bias != nullptr, axes, r), std::move(edges));
  // The statistics themselves record nothing: the caller gets them detached.
  if (!want_mean) r.mean = View();
  if (!want_rstd) r.rstd = View();
  return r;
}

}  // namespace bp::core::autograd
