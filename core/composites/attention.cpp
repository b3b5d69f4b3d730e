// bp_attention: checks, then either the backend's fused ATTENTION operator
// (autograd::fused_attention: offered, nothing to record, no dropout) or
// the composite written as PyTorch's math path is,
//   softmax(q * scale @ k^T + mask) @ v,
// every step a recording operator, so gradients follow (a float mask's
// too). The softmax is the SOFTMAX operator, recorded (ag::softmax: the
// composite of 1.0's operators on a backend without it).
#include "composites/attention.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "composites/recording.hpp"
#include "composites/composites.hpp"
#include "composites/dropout_mask.hpp"
#include "dispatch/creation.hpp"
#include "dispatch/dtype_rules.hpp"
#include "dispatch/function_errors.hpp"
#include "dispatch/op_support.hpp"
#include "errors/names.hpp"

namespace bp::core {

namespace {

constexpr const char *kFn = "attention";

std::string shape_of(const View &v) { return shape_string(v.rank, v.shape); }

// The broadcast batch axes of q, k and v (all but their last two).
struct Batch {
  int32_t rank = 0;
  int64_t shape[BP_MAX_RANK] = {};
};

Batch check_shapes(const View &q, const View &k, const View &v) {
  const View *operands[3] = {&q, &k, &v};
  const char *names[3] = {"q", "k", "v"};
  for (int i = 0; i < 3; ++i)
    if (operands[i]->rank < 2)
      function_fail(kFn, BP_ERR_SHAPE, std::string(names[i]) + " has shape " + shape_of(*operands[i]) +
                                           ": q, k and v need rank >= 2 ([..., L, D])");
  const int64_t d = q.shape[q.rank - 1], lk = k.shape[k.rank - 2];
  if (k.shape[k.rank - 1] != d)
    function_fail(kFn, BP_ERR_SHAPE, "q " + shape_of(q) + " and k " + shape_of(k) +
                                         " differ in their last extent (D: " + std::to_string(d) + " vs " +
                                         std::to_string(k.shape[k.rank - 1]) + ")");
  if (v.shape[v.rank - 2] != lk)
    function_fail(kFn, BP_ERR_SHAPE, "k " + shape_of(k) + " and v " + shape_of(v) +
                                         " differ in the number of keys (Lk: " + std::to_string(lk) + " vs " +
                                         std::to_string(v.shape[v.rank - 2]) + ")");
  Batch b;
  for (const View *o : operands) b.rank = std::max(b.rank, o->rank - 2);
  std::fill(b.shape, b.shape + b.rank, int64_t(1));
  for (int i = 0; i < 3; ++i) {
    const View &o = *operands[i];
    for (int32_t j = 1; j <= o.rank - 2; ++j) {
      const int64_t e = o.shape[o.rank - 2 - j];
      int64_t &r = b.shape[b.rank - j];
      if (e == r || e == 1) continue;
      if (r != 1)
        function_fail(kFn, BP_ERR_SHAPE, "the batch axes of q " + shape_of(q) + ", k " + shape_of(k) +
                                             " and v " + shape_of(v) + " do not broadcast");
      r = e;
    }
  }
  return b;
}

// The mask as the fused operator and the composite add it, a float tensor
// of `dtype` (a bool mask's false becomes -inf; nothing when the mask is
// one already), after checking that it broadcasts to the scores' shape
// [B..., Lq, Lk] without widening it.
std::optional<View> additive_mask(const View &mask, int32_t dtype, const Batch &batch, int64_t lq, int64_t lk) {
  const int32_t rank = batch.rank + 2;
  int64_t scores[BP_MAX_RANK];
  std::copy(batch.shape, batch.shape + batch.rank, scores);
  scores[batch.rank] = lq;
  scores[batch.rank + 1] = lk;
  bool fits = mask.rank <= rank;
  for (int32_t j = 1; fits && j <= mask.rank; ++j) {
    const int64_t e = mask.shape[mask.rank - j];
    fits = e == 1 || e == scores[rank - j];
  }
  if (!fits)
    function_fail(kFn, BP_ERR_SHAPE, "the mask of shape " + shape_of(mask) +
                                         " does not broadcast to the scores' shape " +
                                         shape_string(rank, scores) + " ([B..., Lq, Lk])");
  if (mask.dtype == BP_BOOL) {
    View zero = fill(mask.device(), dtype, 0, nullptr, 0.0);
    View hidden = fill(mask.device(), dtype, 0, nullptr, -INFINITY);
    return ag::where(mask, zero, hidden);
  }
  if (!is_float(mask.dtype))
    function_fail(kFn, BP_ERR_DTYPE, std::string("the mask must be bool (true = take part) or float (added "
                                                 "to the scores), not ") + dtype_name(mask.dtype));
  if (mask.dtype == dtype) return std::nullopt;
  return ag::cast(mask, dtype);
}

// 0 where key j may be seen from query i (j <= i), -inf elsewhere: [Lq, Lk].
View causal_mask(Device &device, int32_t dtype, int64_t lq, int64_t lk) {
  const int64_t row_shape[2] = {lq, 1}, column_shape[2] = {1, lk};
  View rows = ag::reshape(arange(device, BP_INT64, 0.0, double(lq), 1.0), 2, row_shape);
  View columns = ag::reshape(arange(device, BP_INT64, 0.0, double(lk), 1.0), 2, column_shape);
  View zero = fill(device, dtype, 0, nullptr, 0.0);
  View hidden = fill(device, dtype, 0, nullptr, -INFINITY);
  return ag::where(ag::binary(BP_OP_LE, columns, rows), zero, hidden);
}

}  // namespace

View attention(const View &q, const View &k, const View &v, const AttentionOptions &options) {
  const View *mask = options.mask;
  if (mask)
    check_devices(BP_OP_ATTENTION, {&q, &k, &v, mask}, nullptr);
  else
    check_devices(BP_OP_ATTENTION, {&q, &k, &v}, nullptr);
  if (!std::isfinite(options.scale))
    function_fail(kFn, BP_ERR_INVALID_ARGUMENT, "the scale must be finite (0 for 1 / sqrt(D))");
  if (!(options.dropout >= 0 && options.dropout <= 1))
    function_fail(kFn, BP_ERR_INVALID_ARGUMENT,
                  "the dropout probability must be in [0, 1], not " + std::to_string(options.dropout));
  const Batch batch = check_shapes(q, k, v);
  const int64_t lq = q.shape[q.rank - 2], d = q.shape[q.rank - 1], lk = k.shape[k.rank - 2];
  // One float dtype for all three (integers compute in float64, as the
  // float-only operators do).
  int32_t dtype = promote(promote(q.dtype, k.dtype), v.dtype);
  if (!is_float(dtype)) dtype = BP_FLOAT64;
  std::optional<View> cq, ck, cv;
  const View &Q = q.dtype == dtype ? q : cq.emplace(ag::cast(q, dtype));
  const View &K = k.dtype == dtype ? k : ck.emplace(ag::cast(k, dtype));
  const View &V = v.dtype == dtype ? v : cv.emplace(ag::cast(v, dtype));
  std::optional<View> added;
  if (mask) added = additive_mask(*mask, dtype, batch, lq, lk);
  const View *M = added ? &*added : mask;
  const double scale = options.scale != 0 ? options.scale : d > 0 ? 1.0 / std::sqrt(double(d)) : 1.0;

  if (options.dropout == 0)
    if (std::optional<View> fused = ag::fused_attention(Q, K, V, M, scale, options.causal)) return std::move(*fused);

  std::optional<View> scaled;
  const View &QS = scale == 1 ? Q : scaled.emplace(ag::binary_scalar(BP_OP_MUL, Q, scale, false));
  View scores = ag::matmul(QS, K, false, true);
  if (M) scores = ag::binary(BP_OP_ADD, scores, *M);
  if (options.causal) scores = ag::binary(BP_OP_ADD, scores, causal_mask(q.device(), dtype, lq, lk));
  // No keys: the weights are an empty [..., Lq, 0], and the product zeros.
  View weights = lk > 0 ? ag::softmax(BP_OP_SOFTMAX, scores, -1) : std::move(scores);
  if (options.dropout > 0) weights = dropout(weights, options.dropout, options.seed);
  return ag::matmul(weights, V, false, false);
}

}  // namespace bp::core
