// The raw operators on views: they compute and record no gradient. Only the
// recording layer (autograd/functions.hpp), the C API's writes into
// existing tensors and the core's own machinery (collectives, backward
// formulas) call them; everything that makes a differentiable result calls
// the recording layer, whose functions have the same names. The composites
// (composites/) must not see these at all: including this header there is
// a compile error, so that calling around the recording layer cannot
// happen silently.
//
// Each takes an optional output view: when it is null the result is
// allocated on the inputs' device and returned, else the result is written
// into *out and an empty view is returned.
#pragma once

#ifdef BP_CORE_COMPOSITES
#error "composites are made of the recording layer (autograd/functions.hpp): a raw operator would drop gradients"
#endif

#include <vector>

#include "dispatch/conv_params.hpp"
#include "dispatch/dtype_rules.hpp"
#include "dispatch/normalized.hpp"
#include "dispatch/pool_window.hpp"
#include "tensors/view.hpp"

namespace bp::core {
struct Device;
}

namespace bp::core::dispatch {

View binary(int32_t op, const View &a, const View &b, const View *out);
// binary() into an existing output: the C API's _out path, kept free of a
// returned view.
void binary_out(int32_t op, const View &a, const View &b, const View &out);
// scalar_kind: a bp_scalar_kind, whose table in backplane.h decides the
// dtype, or kScalarByValue for bp_binary_scalar's value-based rule of 1.0.
View binary_scalar(int32_t op, const View &a, double scalar, bool scalar_is_lhs, const View *out,
                   int32_t scalar_kind = kScalarByValue);
View unary(int32_t op, const View &a, const View *out);
View where(const View &cond, const View &a, const View &b, const View *out);
View reduce(int32_t op, const View &a, int32_t axis, bool keepdims, const View *out);
// op over every axis d with reduced[d] (a.rank entries) in one call; VAR
// divides by their count less `correction`, a non-negative integer.
View reduce_over(int32_t op, const View &a, const bool *reduced, bool keepdims, double correction,
                 const View *out);
View matmul(const View &a, const View &b, bool transpose_a, bool transpose_b, const View *out);
View scan(int32_t op, const View &a, int32_t axis, const View *out);
// SOFTMAX or LOG_SOFTMAX along axis (bp_softmax, bp_log_softmax).
View softmax(int32_t op, const View &a, int32_t axis, const View *out);
// The caller's axis of a softmax as 0..rank-1 (a rank-0 tensor: -1 or 0),
// else Error(BP_ERR_SHAPE) naming op.
int32_t softmax_axis(int32_t op, int32_t axis, int32_t rank);
// Whether a's device runs op for a's dtype itself (a plugin built before
// 1.6, or one that leaves it out, does not).
bool softmax_implemented(int32_t op, const View &a);
// index: integers of shape [..., k]; see bp_gather_nd and bp_scatter_nd.
View gather_nd(const View &a, const View &index);
void scatter_nd(const View &dst, const View &index, const View &values);
// scatter_nd that adds: repeated index rows accumulate (gather_nd's gradient).
void scatter_add_nd(const View &dst, const View &index, const View &values);
// int64 [count, rank]: the multi-indices of a's nonzero elements, in C order.
View nonzero(const View &a);
// The inputs laid end to end along axis, in their common dtype (bp_concatenate).
View concatenate(const std::vector<const View *> &tensors, int32_t axis);

// TOPK (bp_topk, bp_sort): along `axis`, the first k elements of every row in
// plugin.h's order (ascending, or descending when largest; stable; NaN as
// NumPy's sort) and their int64 positions along the axis. `fn` names the
// caller's function in errors (BP_ERR_SHAPE for a bad axis or k outside
// 0..n). Either output may be given (then the result's view is empty).
struct TopkViews {
  View values, indices;
};
TopkViews topk(const char *fn, const View &a, int64_t k, int32_t axis, bool largest, const View *values_out,
               const View *indices_out);

// LAYER_NORM or RMS_NORM (plugin.h) of x over its last `axes` axes, each
// index of the others a row; weight and bias (null: absent) have the
// normalised shape and are cast to x's compute dtype. mean (LAYER_NORM only)
// and rstd are made only when wanted (else empty views), with x's rank and
// extent 1 on the normalised axes, in float32 (float64 for float64 x).
Normalized normalize(int32_t op, const View &x, const View *weight, const View *bias, int32_t axes, double eps,
                     bool want_mean, bool want_rstd);

// Whether q's backend offers the fused ATTENTION operator for q's dtype.
bool attention_offered(const View &q);
// The fused ATTENTION operator (plugin.h) on q, k, v of one float dtype
// whose shapes bp_attention has checked; mask: null, or an additive mask of
// that dtype broadcasting to [B..., Lq, Lk]; scale resolved.
View attention(const View &q, const View &k, const View &v, const View *mask, double scale, bool causal);

// Convolution (plugin.h's CONV family, channels first: x [N, C_in, S...],
// weight [C_out, C_in / groups, K...], y [N, C_out, O...]); bias may be
// null. conv's output extents are the floor formula's unless out_extents
// (the spatial O) says otherwise (a ConvTranspose's input gradient);
// conv_transpose writes x-shaped results of the spatial extents `extents`
// (output padding included); conv_weight_grad a weight of spatial extents
// `kernel`. Shapes, groups and windows are checked here (BP_ERR_SHAPE and
// BP_ERR_INVALID_ARGUMENT naming the operator and the shapes).
View conv(const View &x, const View &w, const View *bias, const ConvParams &p, const View *out,
          const int64_t *out_extents = nullptr);
View conv_transpose(const View &dy, const View &w, const View *bias, const ConvParams &p, const int64_t *extents,
                    const View *out);
View conv_weight_grad(const View &x, const View &dy, const ConvParams &p, const int64_t *kernel);

// Pooling (pool_ops.cpp): x [N, C, S...] pooled by MAX_POOL or AVG_POOL
// into values [N, C, O...] and, for MAX_POOL when asked, the int64 indices
// of the maxima in their planes (else an empty view); and the gradients:
// MAX_POOL_GRAD routes dy through those indices, AVG_POOL_GRAD (indices
// null) spreads it over the windows, into dx of rank/shape, x's shape.
struct Pooled {
  View values, indices;
};
Pooled pool(int32_t op, const View &x, const PoolWindow &window, bool with_indices);
View pool_grad(int32_t op, const View &dy, const View *indices, const PoolWindow &window, int32_t rank,
               const int64_t *shape);

// Writes src (broadcast, converted) into dst.
void assign(const View &dst, const View &src);
View cast(const View &a, int32_t dtype);
View contiguous_copy(const View &a);
void from_host_into(const View &v, const void *data, uint64_t bytes);
View copy_to(const View &v, Device &device);

}  // namespace bp::core::dispatch
