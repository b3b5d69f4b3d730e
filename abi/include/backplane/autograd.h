/*
 * backplane/autograd.h — gradients through the C API (since 1.1).
 * Included by backplane.h; the conventions written there hold here too.
 *
 * A tensor can require gradients. While grad mode is on (the default, per
 * thread), every differentiable operator whose input requires gradients
 * records how to take the gradient back, and its result requires gradients
 * too. bp_backward() then runs the record backwards, on the devices the
 * forward pass ran on (the backward pass is made of the same routed
 * operators), and adds each leaf's gradient into it; bp_tensor_grad()
 * reads it.
 *
 * - Leaves are the tensors you mark with bp_tensor_set_requires_grad() (a
 *   float dtype); results of recorded operators are not leaves and have no
 *   gradient of their own to read.
 * - Recorded: bp_binary and bp_binary_scalar (add, sub, mul, div, pow,
 *   maximum, minimum: ties share the gradient), bp_unary (neg, abs, exp,
 *   log, sqrt, tanh, sigmoid, relu, square, sin, cos), bp_where, bp_reduce
 *   (sum, mean, max, min: the extreme elements share the gradient, norm,
 *   prod: out / x, so not finite where x is 0, logsumexp), bp_matmul (transposes,
 *   batches, vectors), bp_cast between float dtypes, bp_scan (cumsum),
 *   bp_softmax and bp_log_softmax (an operator each since 1.6),
 *   bp_gather_nd, bp_copy_to and bp_to, the views (bp_reshape, bp_permute,
 *   bp_transpose, bp_slice, bp_select, bp_expand_dims, bp_contiguous), and
 *   the composites made of them (bp_concatenate, bp_stack, bp_clip, bp_var,
 *   bp_std). Broadcast inputs get their gradient summed back to
 *   their shape, and in their own dtype. Comparisons, floor_divide,
 *   remainder, the bitwise operators, argmax/argmin and integer results
 *   record nothing: no gradient flows through them (for remainder, whose
 *   derivative in a is 1 almost everywhere, write a - floor_divide(a, b) * b
 *   to get one). maximum, minimum and clip give half the gradient to each
 *   side of a tie (clip: at a bound).
 * - Writing into a tensor in place (the _out functions, bp_assign,
 *   bp_scatter_nd, bp_scatter_add_nd, bp_from_host_into) while grad mode is
 *   on is BP_ERR_STATE when that tensor requires gradients or an input of
 *   the write does; disable grad mode for such writes (optimiser steps). A
 *   tensor saved for a backward pass that is written in place after it was
 *   saved makes that backward pass fail with BP_ERR_STATE naming the
 *   operator, before any gradient is touched, instead of giving a wrong
 *   gradient. Writes through host memory (bp_tensor_host_address, DLPack)
 *   are not seen by that check.
 * - Memory: the record is owned by the tensors it produced and is freed with
 *   them (iteratively: a graph of any length); bp_backward frees the tensors
 *   it saved unless retain_graph is set, so a second backward pass through
 *   it is BP_ERR_STATE. No handle is created behind your back.
 * - Threads: recording and backward passes may run on many threads; two
 *   backward passes through one graph at the same time need retain_graph in
 *   both (a pass that frees the saved tensors must be the only one).
 */
#ifndef BACKPLANE_AUTOGRAD_H
#define BACKPLANE_AUTOGRAD_H

#include "backplane/backplane.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Marks (1) or unmarks (0) a tensor as a leaf requiring gradients. Only
 * float tensors; a result of a recorded operator is BP_ERR_STATE (it
 * requires gradients by how it was made; bp_detach gives a leaf). */
BP_API bp_status bp_tensor_set_requires_grad(bp_tensor tensor, int32_t requires_grad);
/* *out = 1 when the tensor requires gradients (a marked leaf or a recorded
 * result), else 0. */
BP_API bp_status bp_tensor_requires_grad(bp_tensor tensor, int32_t *out);
/* *out = 1 for a leaf (every tensor not made by a recorded operator). */
BP_API bp_status bp_tensor_is_leaf(bp_tensor tensor, int32_t *out);
/* The gradient accumulated into a leaf: a new handle sharing its storage
 * (later backward passes add into it), or BP_NO_TENSOR (0) when there is
 * none yet. A non-leaf has none: BP_NO_TENSOR. */
BP_API bp_status bp_tensor_grad(bp_tensor tensor, bp_tensor *out);
/* Forgets a leaf's gradient (the next backward pass starts a new one), as
 * PyTorch's zero_grad(set_to_none=True). */
BP_API bp_status bp_tensor_clear_grad(bp_tensor tensor);
/* Name of the operator that made the tensor ("mul"), or NULL for a leaf.
 * The string is static. */
BP_API bp_status bp_tensor_grad_fn(bp_tensor tensor, const char **name);

/* Runs the record behind `tensor` backwards and adds the gradients into
 * the leaves, all at the end: a pass that fails adds nothing. grad is
 * d(loss)/d(tensor), of the tensor's shape (else BP_ERR_SHAPE) and device
 * (else BP_ERR_DEVICE_MISMATCH), converted to its dtype; or BP_NO_TENSOR
 * for a tensor of one element (then 1). retain_graph keeps the saved
 * tensors for another pass. The tensor must require gradients
 * (BP_ERR_STATE). Runs with grad mode off. */
BP_API bp_status bp_backward(bp_tensor tensor, bp_tensor grad, int32_t retain_graph);

/* Sets this thread's grad mode (1: record, 0: do not) and writes the mode
 * it replaces into *previous when previous is not NULL: the way to write a
 * no-grad scope. */
BP_API bp_status bp_grad_set_enabled(int32_t enabled, int32_t *previous);
/* This thread's grad mode: 1 or 0. */
BP_API int32_t bp_grad_is_enabled(void);

/* A new handle to the same elements that requires no gradient and records
 * nothing (PyTorch's detach). */
BP_API bp_status bp_detach(bp_tensor tensor, bp_tensor *out);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_AUTOGRAD_H */
