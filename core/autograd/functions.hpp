// The recording layer: the one set of operators that everything making a
// differentiable result calls. Each runs the raw operator of
// dispatch/operators.hpp (or a view of tensors/view_ops.hpp) and, when grad
// mode is on and an input needs a gradient, gives the result a TensorMeta
// whose grad_fn records how to take the gradient back. The C API and the
// composites call these; the raw operators (dispatch::), which record
// nothing, serve the backward formulas, the writes into existing tensors
// and the collectives' data movement.
#pragma once

#include <initializer_list>
#include <optional>
#include <vector>

#include "dispatch/conv_params.hpp"
#include "dispatch/dtype_rules.hpp"
#include "dispatch/normalized.hpp"
#include "dispatch/pool_window.hpp"
#include "tensors/view.hpp"

namespace bp::core {
struct Device;
}

namespace bp::core::autograd {

View binary(int32_t op, const View &a, const View &b);
View binary_scalar(int32_t op, const View &a, double scalar, bool scalar_is_lhs,
                   int32_t scalar_kind = kScalarByValue);
View unary(int32_t op, const View &a);
View where(const View &cond, const View &a, const View &b);
View reduce(int32_t op, const View &a, int32_t axis, bool keepdims);
// VAR over every axis d with reduced[d], dividing by their count less
// correction (dispatch::reduce_over).
View var_over(const View &a, const bool *reduced, bool keepdims, double correction);
// dispatch::normalize, y recording its gradient for x, weight and bias
// (from the statistics, which it computes even when not wanted); the mean
// and rstd returned record nothing.
Normalized normalize(int32_t op, const View &x, const View *weight, const View *bias, int32_t axes,
                               double eps, bool want_mean, bool want_rstd);
View matmul(const View &a, const View &b, bool transpose_a, bool transpose_b);
View cast(const View &a, int32_t dtype);
View scan(int32_t op, const View &a, int32_t axis);
View softmax(int32_t op, const View &a, int32_t axis);
View gather_nd(const View &a, const View &index);
// A copy of a with values scattered (accumulate: added) at index's rows,
// as bp_scatter_nd and bp_scatter_add_nd write them (bp_index_put).
View scatter_nd(const View &a, const View &index, const View &values, bool accumulate);
// TOPK along axis (bp_topk; bp_sort is k = n): the values record their
// gradient, a scatter back to the positions they came from; `fn` names the
// caller's function in errors and in the graph.
struct TopkResult {
  View values, indices;
};
TopkResult topk(const char *fn, const View &a, int64_t k, int32_t axis, bool largest);
View copy_to(const View &a, Device &device);
// Convolution and ConvTranspose (dispatch::conv, dispatch::conv_transpose
// with `extents` the result's spatial extents, output padding included);
// bias may be null.
View conv(const View &x, const View &w, const View *bias, const ConvParams &p);
View conv_transpose(const View &x, const View &w, const View *bias, const ConvParams &p, const int64_t *extents);
View concatenate(const std::vector<const View *> &tensors, int32_t axis);

// The fused ATTENTION operator of q's backend (plugin.h), when the backend
// offers it for q's dtype and none of the inputs needs a gradient; else
// nothing, and bp_attention runs its composite. q, k, v share one float
// dtype and shapes bp_attention has checked; mask is null or an additive
// mask of that dtype broadcasting to [B..., Lq, Lk]; scale is resolved.
std::optional<View> fused_attention(const View &q, const View &k, const View &v, const View *mask,
                                    double scale, bool causal);

// Pooling of x [N, C, S...] (bp_max_pool, bp_avg_pool); max_pool writes the
// int64 indices of the maxima into *indices when it is given.
View max_pool(const View &x, const PoolWindow &window, View *indices);
View avg_pool(const View &x, const PoolWindow &window);

// Views: metadata of the input, and a node that routes the gradient back.
View reshape(const View &a, int32_t rank, const int64_t *shape);
View permute(const View &a, const int32_t *axes);
View transpose(const View &a);
View slice(const View &a, int32_t axis, int64_t start, int64_t stop, int64_t step);
View select(const View &a, int32_t axis, int64_t index);
View expand_dims(const View &a, int32_t axis);
View contiguous(const View &a);

// A new view of a's elements that records nothing and needs no gradient.
View detach(const View &a);

// Before a write into an existing tensor (an _out function, assign,
// scatter): refuses it, naming `what`, when grad mode is on and the tensor
// needs a gradient or one of `inputs` does (a write records nothing, so the
// gradient would silently be wrong).
void before_write(const char *what, const View &target, std::initializer_list<const View *> inputs);
// After the write succeeded: counts it in the storage's version, which
// makes saved copies of the tensor stale.
void wrote(const View &target);

// Writes src (broadcast, converted) into dst as the C API's bp_assign does:
// before_write's refusal, the raw assign, then wrote.
void assign(const View &dst, const View &src);
// Writes values into dst's elements at index's rows (see bp_scatter_nd),
// adding them with accumulate, as assign writes: before_write's refusal, the
// raw scatter, then wrote.
void scatter_into(const View &dst, const View &index, const View &values, bool accumulate);

// int64 [count, rank]: the multi-indices of a's nonzero elements, in C order.
// An integer result, so nothing is recorded.
View nonzero(const View &a);

}  // namespace bp::core::autograd
