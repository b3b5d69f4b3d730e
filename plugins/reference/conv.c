/*
 * conv.c — the CONV family, written as plugin.h's formulas read:
 *   CONV              y[n, co, o]  = bias[co] + sum x[n, c, o s - pb + k d] w[co, c', k]
 *   CONV_TRANSPOSE    dx[n, c, p]  = bias[c]  + sum dy[n, co, o] w[co, c', k] over o s - pb + k d = p
 *   CONV_WEIGHT_GRAD  dw[co, c', k] =           sum dy[n, co, o] x[n, c, o s - pb + k d]
 * one output element at a time, every term added in compensated float64
 * (accumulate.c) and rounded once. Spatial axes past the window's rank are
 * treated as extent 1 so that one loop nest serves 1-, 2- and 3-D.
 */
#include <string.h>

#include "reference.h"

#define R BP_WINDOW_MAX_RANK

/* The input position along each axis that output position o and kernel
 * tap k read; 0 when one falls into the padding. */
static int window_position(const bp_sdk_conv *g, const int64_t *o, const int64_t *k, int64_t *p) {
  int32_t i;
  for (i = 0; i < g->rank; ++i) {
    p[i] = o[i] * g->stride[i] - g->pad_begin[i] + k[i] * g->dilation[i];
    if (p[i] < 0 || p[i] >= g->in[i]) return 0;
  }
  return 1;
}

/* Index [a, b, spatial...] of a view of rank g->rank + 2. */
static void at(const bp_sdk_conv *g, int64_t a, int64_t b, const int64_t *spatial, int64_t *index) {
  int32_t i;
  index[0] = a;
  index[1] = b;
  for (i = 0; i < g->rank; ++i) index[2 + i] = spatial[i];
}

/* Element [a, b, spatial...] of t, as a double. */
static double value(const bp_sdk_conv *g, const bp_plugin_tensor *t, int64_t a, int64_t b, const int64_t *spatial) {
  int64_t index[BP_MAX_RANK];
  at(g, a, b, spatial, index);
  return ref_to_f64(ref_get(t, index), t->dtype);
}

/* Element [a, b, spatial...] of t set to the sum, rounded once. */
static void store(const bp_sdk_conv *g, const bp_plugin_tensor *t, int64_t a, int64_t b, const int64_t *spatial,
                  const ref_sum *total) {
  int64_t index[BP_MAX_RANK];
  at(g, a, b, spatial, index);
  ref_set(t, index, ref_from_f64(ref_sum_result(total), t->dtype));
}

/* The bias of channel c, the sum's first term, when there is one. */
static void add_bias(const bp_sdk_conv *g, int64_t c, ref_sum *total) {
  if (g->bias) ref_sum_add(total, ref_to_f64(ref_get(g->bias, &c), g->bias->dtype));
}

/* Steps the multi-index i over extents e (rank r); 0 once it wrapped. */
static int next(int64_t *i, const int64_t *e, int32_t r) {
  int32_t d;
  for (d = r - 1; d >= 0; --d) {
    if (++i[d] < e[d]) return 1;
    i[d] = 0;
  }
  return 0;
}

static void conv_forward(const bp_sdk_conv *g) {
  const int64_t in_group = g->c_in / g->groups, out_group = g->c_out / g->groups;
  int64_t n, co, c, o[R] = {0}, k[R], p[R];
  for (n = 0; n < g->n; ++n)
    for (co = 0; co < g->c_out; ++co) {
      const int64_t first = co / out_group * in_group;
      memset(o, 0, sizeof o);
      do {
        ref_sum total;
        ref_sum_start(&total);
        add_bias(g, co, &total);
        for (c = 0; c < in_group; ++c) {
          memset(k, 0, sizeof k);
          do
            if (window_position(g, o, k, p))
              ref_sum_add(&total, value(g, g->x, n, first + c, p) * value(g, g->w, co, c, k));
          while (next(k, g->kernel, g->rank));
        }
        store(g, g->y, n, co, o, &total);
      } while (next(o, g->out, g->rank));
    }
}

/* Along every axis, output position o = (p + pb - k d) / s when that
 * divides exactly and lands inside the output; 0 otherwise. */
static int source_position(const bp_sdk_conv *g, const int64_t *p, const int64_t *k, int64_t *o) {
  int32_t i;
  for (i = 0; i < g->rank; ++i) {
    const int64_t t = p[i] + g->pad_begin[i] - k[i] * g->dilation[i];
    if (t < 0 || t % g->stride[i] != 0) return 0;
    o[i] = t / g->stride[i];
    if (o[i] >= g->out[i]) return 0;
  }
  return 1;
}

static void conv_transpose(const bp_sdk_conv *g) {
  const int64_t in_group = g->c_in / g->groups, out_group = g->c_out / g->groups;
  int64_t n, c, co, p[R] = {0}, k[R], o[R];
  for (n = 0; n < g->n; ++n)
    for (c = 0; c < g->c_in; ++c) {
      const int64_t group = c / in_group, local = c - group * in_group;
      memset(p, 0, sizeof p);
      do {
        ref_sum total;
        ref_sum_start(&total);
        add_bias(g, c, &total);
        for (co = group * out_group; co < (group + 1) * out_group; ++co) {
          memset(k, 0, sizeof k);
          do
            if (source_position(g, p, k, o))
              ref_sum_add(&total, value(g, g->y, n, co, o) * value(g, g->w, co, local, k));
          while (next(k, g->kernel, g->rank));
        }
        store(g, g->x, n, c, p, &total);
      } while (next(p, g->in, g->rank));
    }
}

static void conv_weight_grad(const bp_sdk_conv *g) {
  const int64_t in_group = g->c_in / g->groups, out_group = g->c_out / g->groups;
  int64_t co, c, n, k[R] = {0}, o[R], p[R];
  for (co = 0; co < g->c_out; ++co)
    for (c = 0; c < in_group; ++c) {
      const int64_t source = co / out_group * in_group + c;
      memset(k, 0, sizeof k);
      do {
        ref_sum total;
        ref_sum_start(&total);
        for (n = 0; n < g->n; ++n) {
          memset(o, 0, sizeof o);
          do
            if (window_position(g, o, k, p))
              ref_sum_add(&total, value(g, g->y, n, co, o) * value(g, g->x, n, source, p));
          while (next(o, g->out, g->rank));
        }
        store(g, g->w, co, c, k, &total);
      } while (next(k, g->kernel, g->rank));
    }
}

bp_status ref_run_conv(int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *inputs,
                       const bp_plugin_tensor *output) {
  char message[512];
  bp_sdk_conv g;
  const bp_status s = bp_sdk_conv_geometry(op, bp_sdk_window_params(attrs), inputs, output, &g, message, sizeof message);
  if (s != BP_OK) return ref_fail(s, "%s", message);
  if (op == BP_OP_CONV)
    conv_forward(&g);
  else if (op == BP_OP_CONV_TRANSPOSE)
    conv_transpose(&g);
  else
    conv_weight_grad(&g);
  return BP_OK;
}
