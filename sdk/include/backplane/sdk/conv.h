/*
 * backplane/sdk/conv.h — the geometry of a call of the CONV family (CONV,
 * CONV_TRANSPOSE, CONV_WEIGHT_GRAD; since 1.6): which view plays which part
 * (activation x, result or gradient y, weight w, bias), the extents and the
 * window, checked against plugin.h's rules. bp_sdk_check_execute applies it;
 * a kernel calls it once more for the geometry (it is cheap) instead of
 * reading views and window again. C99, C++ and CUDA host code.
 */
#ifndef BACKPLANE_SDK_CONV_H
#define BACKPLANE_SDK_CONV_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "backplane/plugin.h"

/* One convolution problem in plugin.h's terms. */
typedef struct bp_sdk_conv {
  int32_t rank;   /* spatial axes r, 1..BP_WINDOW_MAX_RANK */
  int32_t groups; /* G */
  int64_t n;      /* batch N */
  int64_t c_in;   /* x's channels C_in (the weight holds C_in / G of them) */
  int64_t c_out;  /* y's channels C_out, the weight's axis 0 */
  int64_t in[BP_WINDOW_MAX_RANK];  /* x's spatial extents S_i */
  int64_t out[BP_WINDOW_MAX_RANK]; /* y's spatial extents O_i */
  int64_t kernel[BP_WINDOW_MAX_RANK], stride[BP_WINDOW_MAX_RANK], dilation[BP_WINDOW_MAX_RANK];
  int64_t pad_begin[BP_WINDOW_MAX_RANK], pad_end[BP_WINDOW_MAX_RANK];
  /* The views by their part: CONV reads x, w, bias and writes y;
   * CONV_TRANSPOSE reads y (dy), w, bias and writes x (dx); CONV_WEIGHT_GRAD
   * reads x and y (dy) and writes w (dw). bias is NULL when absent. */
  const bp_plugin_tensor *x, *y, *w, *bias;
} bp_sdk_conv;

/* The output extent plugin.h's CONV gives along one axis, or a value below 1
 * when the dilated kernel does not fit the padded input. */
static inline int64_t bp_sdk_conv_out_extent(int64_t in, int64_t kernel, int64_t stride, int64_t dilation,
                                             int64_t pad_begin, int64_t pad_end) {
  const int64_t span = in + pad_begin + pad_end - dilation * (kernel - 1) - 1;
  return span < 0 ? 0 : span / stride + 1;
}

/* snprintf through a va_list: a message cut short is fine, and the
 * compiler's truncation warnings (errors under -Werror) do not apply. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static inline void bp_sdk_conv_say_(char *message, size_t capacity, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(message, capacity, format, args);
  va_end(args);
}

static inline void bp_sdk_conv_shape_text_(const bp_plugin_tensor *t, char *text, size_t capacity) {
  size_t used;
  int32_t d;
  int n = snprintf(text, capacity, "[");
  used = n > 0 ? (size_t)n : 0;
  for (d = 0; d < t->rank && d < BP_MAX_RANK && used < capacity; ++d) {
    n = snprintf(text + used, capacity - used, d ? ", %lld" : "%lld", (long long)t->shape[d]);
    used += n > 0 ? (size_t)n : 0;
  }
  if (used < capacity) snprintf(text + used, capacity - used, "]");
}

/* Fills *g from an execute() call of a CONV-family operator whose views are
 * well formed (bp_sdk_check_view) and checks plugin.h's rules: BP_OK, or
 * BP_ERR_INVALID_ARGUMENT (no window, a window field out of range, a bias
 * given to CONV_WEIGHT_GRAD) or BP_ERR_SHAPE (ranks, channels, kernel, bias
 * or extents that do not fit), with a message naming the operator and the
 * shapes in `message`. */
static inline bp_status bp_sdk_conv_geometry(int32_t op, const bp_window_params *window,
                                             const bp_plugin_tensor *inputs, const bp_plugin_tensor *output,
                                             bp_sdk_conv *g, char *message, size_t capacity) {
  const char *name = bp_vocab_op_name(op);
  char xs[160], ys[160], ws[160];
  int32_t i, rank;
  int64_t per_group_in;
  if (name == NULL || bp_vocab_op_family(op) != BP_OP_FAMILY_CONV) {
    bp_sdk_conv_say_(message, capacity, "operator %d is not of the conv family", (int)op);
    return BP_ERR_INVALID_ARGUMENT;
  }
  g->bias = NULL;
  switch (op) {
    case BP_OP_CONV:
      g->x = &inputs[0], g->w = &inputs[1], g->y = output;
      break;
    case BP_OP_CONV_TRANSPOSE:
      g->y = &inputs[0], g->w = &inputs[1], g->x = output;
      break;
    default:
      g->x = &inputs[0], g->y = &inputs[1], g->w = output;
      break;
  }
  if (inputs[2].dtype != BP_DTYPE_INVALID) {
    if (op == BP_OP_CONV_WEIGHT_GRAD) {
      bp_sdk_conv_say_(message, capacity, "%s: input 2 must be absent (it takes no bias)", name);
      return BP_ERR_INVALID_ARGUMENT;
    }
    g->bias = &inputs[2];
  }
  if (window == NULL) {
    bp_sdk_conv_say_(message, capacity, "%s: attrs.params must be a bp_window_params (of the 1.6 size or more)", name);
    return BP_ERR_INVALID_ARGUMENT;
  }
  rank = window->spatial_rank;
  if (rank < 1 || rank > BP_WINDOW_MAX_RANK) {
    bp_sdk_conv_say_(message, capacity, "%s: the window's spatial_rank is %d (1..%d allowed)", name, (int)rank,
                     BP_WINDOW_MAX_RANK);
    return BP_ERR_INVALID_ARGUMENT;
  }
  if (window->groups < 1) {
    bp_sdk_conv_say_(message, capacity, "%s: the window's groups is %d (>= 1 allowed)", name, (int)window->groups);
    return BP_ERR_INVALID_ARGUMENT;
  }
  bp_sdk_conv_shape_text_(g->x, xs, sizeof xs);
  bp_sdk_conv_shape_text_(g->y, ys, sizeof ys);
  bp_sdk_conv_shape_text_(g->w, ws, sizeof ws);
  if (g->x->rank != rank + 2 || g->y->rank != rank + 2 || g->w->rank != rank + 2) {
    bp_sdk_conv_say_(message, capacity,
                     "%s: x %s, y %s and weight %s must all have rank %d (N, channels and the window's %d spatial axes)",
                     name, xs, ys, ws, (int)rank + 2, (int)rank);
    return BP_ERR_SHAPE;
  }
  for (i = 0; i < rank; ++i)
    if (window->stride[i] < 1 || window->dilation[i] < 1 || window->pad_begin[i] < 0 || window->pad_end[i] < 0 ||
        window->kernel[i] < 1) {
      bp_sdk_conv_say_(message, capacity,
                       "%s: spatial axis %d of the window has kernel %lld, stride %lld, dilation %lld, padding %lld "
                       "and %lld (kernel, stride and dilation >= 1, padding >= 0 allowed)",
                       name, (int)i, (long long)window->kernel[i], (long long)window->stride[i],
                       (long long)window->dilation[i], (long long)window->pad_begin[i], (long long)window->pad_end[i]);
      return BP_ERR_INVALID_ARGUMENT;
    }
  g->rank = rank;
  g->groups = window->groups;
  g->n = g->x->shape[0];
  g->c_in = g->x->shape[1];
  g->c_out = g->y->shape[1];
  per_group_in = g->c_in / g->groups;
  if (g->y->shape[0] != g->n || g->c_in % g->groups != 0 || g->c_out % g->groups != 0 ||
      g->w->shape[0] != g->c_out || g->w->shape[1] != per_group_in) {
    bp_sdk_conv_say_(message, capacity,
                     "%s: x %s, y %s and weight %s do not fit x [N, C_in, ...], y [N, C_out, ...] and weight "
                     "[C_out, C_in / groups, ...] with groups %d dividing C_in and C_out",
                     name, xs, ys, ws, (int)g->groups);
    return BP_ERR_SHAPE;
  }
  for (i = 0; i < rank; ++i) {
    const int64_t s = window->stride[i], d = window->dilation[i];
    const int64_t reach = g->x->shape[2 + i] + window->pad_begin[i] + window->pad_end[i] -
                          d * (window->kernel[i] - 1) - 1 - (g->y->shape[2 + i] - 1) * s;
    g->in[i] = g->x->shape[2 + i];
    g->out[i] = g->y->shape[2 + i];
    g->kernel[i] = window->kernel[i];
    g->stride[i] = s;
    g->dilation[i] = d;
    g->pad_begin[i] = window->pad_begin[i];
    g->pad_end[i] = window->pad_end[i];
    if (g->w->shape[2 + i] != g->kernel[i]) {
      bp_sdk_conv_say_(message, capacity, "%s: the weight %s has extent %lld on spatial axis %d but the window's kernel %lld",
                       name, ws, (long long)g->w->shape[2 + i], (int)i, (long long)g->kernel[i]);
      return BP_ERR_SHAPE;
    }
    if (g->in[i] < 1 || g->out[i] < 1 || reach < 0 || reach >= (s > d ? s : d)) {
      bp_sdk_conv_say_(message, capacity,
                       "%s: spatial axis %d: x extent %lld and y extent %lld do not fit kernel %lld, stride %lld, "
                       "dilation %lld and padding %lld + %lld (y = floor((x + padding - dilation (kernel - 1) - 1) / "
                       "stride) + 1, plus less than max(stride, dilation) of output padding on x)",
                       name, (int)i, (long long)g->in[i], (long long)g->out[i], (long long)g->kernel[i], (long long)s,
                       (long long)d, (long long)g->pad_begin[i], (long long)g->pad_end[i]);
      return BP_ERR_SHAPE;
    }
  }
  for (; i < BP_WINDOW_MAX_RANK; ++i)
    g->in[i] = g->out[i] = g->kernel[i] = g->stride[i] = g->dilation[i] = 1, g->pad_begin[i] = g->pad_end[i] = 0;
  if (g->bias != NULL) {
    const int64_t channels = op == BP_OP_CONV ? g->c_out : g->c_in;
    if (g->bias->rank != 1 || g->bias->shape[0] != channels) {
      char bs[160];
      bp_sdk_conv_shape_text_(g->bias, bs, sizeof bs);
      bp_sdk_conv_say_(message, capacity, "%s: the bias %s must be [%lld], one value per %s channel", name, bs,
                       (long long)channels, op == BP_OP_CONV ? "output (y)" : "output (x)");
      return BP_ERR_SHAPE;
    }
  }
  return BP_OK;
}

#endif /* BACKPLANE_SDK_CONV_H */
