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

static double value(const bp_plugin_tensor *t, const int64_t *index) {
  return ref_to_f64(ref_get(t, index), t->dtype);
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
  int64_t n, co, c, o[R] = {0}, k[R], p[R], index[BP_MAX_RANK];
  for (n = 0; n < g->n; ++n)
    for (co = 0; co < g->c_out; ++co) {
      const int64_t first = co / out_group * in_group;
      memset(o, 0, sizeof o);
      do {
        ref_sum total;
        ref_sum_start(&total);
        if (g->bias) {
          const int64_t b = co;
          ref_sum_add(&total, value(g->bias, &b));
        }
        for (c = 0; c < in_group; ++c) {
          memset(k, 0, sizeof k);
          do {
            double xv, wv;
            if (!window_position(g, o, k, p)) continue;
            at(g, n, first + c, p, index);
            xv = value(g->x, index);
            at(g, co, c, k, index);
            wv = value(g->w, index);
            ref_sum_add(&total, xv * wv);
          } while (next(k, g->kernel, g->rank));
        }
        at(g, n, co, o, index);
        ref_set(g->y, index, ref_from_f64(ref_sum_result(&total), g->y->dtype));
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
  int64_t n, c, co, p[R] = {0}, k[R], o[R], index[BP_MAX_RANK];
  for (n = 0; n < g->n; ++n)
    for (c = 0; c < g->c_in; ++c) {
      const int64_t group = c / in_group, local = c - group * in_group;
      memset(p, 0, sizeof p);
      do {
        ref_sum total;
        ref_sum_start(&total);
        if (g->bias) ref_sum_add(&total, value(g->bias, &c));
        for (co = group * out_group; co < (group + 1) * out_group; ++co) {
          memset(k, 0, sizeof k);
          do {
            double yv, wv;
            if (!source_position(g, p, k, o)) continue;
            at(g, n, co, o, index);
            yv = value(g->y, index);
            at(g, co, local, k, index);
            wv = value(g->w, index);
            ref_sum_add(&total, yv * wv);
          } while (next(k, g->kernel, g->rank));
        }
        at(g, n, c, p, index);
        ref_set(g->x, index, ref_from_f64(ref_sum_result(&total), g->x->dtype));
      } while (next(p, g->in, g->rank));
    }
}

static void conv_weight_grad(const bp_sdk_conv *g) {
  const int64_t in_group = g->c_in / g->groups, out_group = g->c_out / g->groups;
  int64_t co, c, n, k[R] = {0}, o[R], p[R], index[BP_MAX_RANK];
  for (co = 0; co < g->c_out; ++co)
    for (c = 0; c < in_group; ++c) {
      const int64_t source = co / out_group * in_group + c;
      memset(k, 0, sizeof k);
      do {
        ref_sum total;
        ref_sum_start(&total);
        for (n = 0; n < g->n; ++n) {
          memset(o, 0, sizeof o);
          do {
            double yv, xv;
            if (!window_position(g, o, k, p)) continue;
            at(g, n, co, o, index);
            yv = value(g->y, index);
            at(g, n, source, p, index);
            xv = value(g->x, index);
            ref_sum_add(&total, yv * xv);
          } while (next(o, g->out, g->rank));
        }
        at(g, co, c, k, index);
        ref_set(g->w, index, ref_from_f64(ref_sum_result(&total), g->w->dtype));
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
