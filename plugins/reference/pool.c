/*
 * pool.c — MAX_POOL and AVG_POOL (family POOL) and their gradients
 * MAX_POOL_GRAD and AVG_POOL_GRAD (family POOL_GRAD), as plugin.h defines
 * them, written the naive way: for every output element, every tap of its
 * window, in C order.
 *
 * The views are [N, C, spatial...] (bp_sdk_check_execute has checked the
 * window, the ranks and the extents). A tap is padding when it falls
 * outside the input; the divisor of AVG_POOL is counted here tap by tap
 * rather than by the SDK's closed forms, so that the oracle and the fast
 * backends share no arithmetic. The gradients scatter each dy term into a
 * float64 compensated sum per dx element, then store every dx element once.
 */
#include <math.h>
#include <stdlib.h>

#include "reference.h"

/* One output position's window: where each tap of it lands. */
typedef struct pool_window {
  int32_t rank;                      /* spatial axes */
  int64_t size[BP_WINDOW_MAX_RANK];  /* the input's extents */
  int64_t kernel[BP_WINDOW_MAX_RANK];
  int64_t start[BP_WINDOW_MAX_RANK]; /* position of tap 0: o * stride - pad_begin */
  int64_t dilation[BP_WINDOW_MAX_RANK];
  int64_t pad_begin[BP_WINDOW_MAX_RANK], pad_end[BP_WINDOW_MAX_RANK];
} pool_window;

static void window_at(const bp_window_params *w, const bp_plugin_tensor *full, const int64_t *o,
                      pool_window *out) {
  int32_t d;
  out->rank = w->spatial_rank;
  for (d = 0; d < w->spatial_rank; ++d) {
    out->size[d] = full->shape[2 + d];
    out->kernel[d] = w->kernel[d];
    out->start[d] = o[d] * w->stride[d] - w->pad_begin[d];
    out->dilation[d] = w->dilation[d];
    out->pad_begin[d] = w->pad_begin[d];
    out->pad_end[d] = w->pad_end[d];
  }
}

/* The positions of tap k (an index into the kernel's shape); 1 when every
 * one lies in [low[d], high[d]). */
static int tap_in(const pool_window *win, const int64_t *k, const int64_t *low, const int64_t *high,
                  int64_t *position) {
  int inside = 1;
  int32_t d;
  for (d = 0; d < win->rank; ++d) {
    position[d] = win->start[d] + k[d] * win->dilation[d];
    if (position[d] < low[d] || position[d] >= high[d]) inside = 0;
  }
  return inside;
}

/* AVG_POOL's divisor: the taps inside the input, or with include_pad those
 * inside [-pad_begin, size + pad_end). */
static int64_t window_count(const pool_window *win, int include_pad) {
  int64_t low[BP_WINDOW_MAX_RANK], high[BP_WINDOW_MAX_RANK], position[BP_WINDOW_MAX_RANK];
  int64_t count = 0;
  int32_t d;
  ref_walk k;
  for (d = 0; d < win->rank; ++d) {
    low[d] = include_pad ? -win->pad_begin[d] : 0;
    high[d] = win->size[d] + (include_pad ? win->pad_end[d] : 0);
  }
  for (ref_walk_start(&k, win->rank, win->kernel); !k.done; ref_walk_next(&k))
    count += tap_in(win, k.index, low, high, position);
  return count;
}

static void input_bounds(const pool_window *win, int64_t *low, int64_t *high) {
  int32_t d;
  for (d = 0; d < win->rank; ++d) {
    low[d] = 0;
    high[d] = win->size[d];
  }
}

/* The flat position of a spatial index in its plane (C order). */
static int64_t flat_position(const pool_window *win, const int64_t *position) {
  int64_t flat = 0;
  int32_t d;
  for (d = 0; d < win->rank; ++d) flat = flat * win->size[d] + position[d];
  return flat;
}

/* Whether x beats the best so far (plugin.h): NaN above everything, the
 * first of equals kept. */
static int beats(int32_t dtype, ref_value x, ref_value best) {
  if (ref_dtype_is_float(dtype)) {
    const double a = ref_to_f64(x, dtype), b = ref_to_f64(best, dtype);
    if (isnan(b)) return 0;
    return isnan(a) || a > b;
  }
  return ref_to_i64(x, dtype) > ref_to_i64(best, dtype);
}

void ref_run_pool(int32_t op, const bp_window_params *w, const bp_plugin_tensor *x,
                  const bp_plugin_tensor *outputs) {
  const bp_plugin_tensor *y = &outputs[0], *indices = &outputs[1];
  const int32_t r = w->spatial_rank;
  const int with_indices = !bp_sdk_absent(indices);
  const int include_pad = (w->flags & BP_WINDOW_COUNT_INCLUDE_PAD) != 0;
  ref_walk o;
  for (ref_walk_start(&o, y->rank, y->shape); !o.done; ref_walk_next(&o)) {
    int64_t low[BP_WINDOW_MAX_RANK], high[BP_WINDOW_MAX_RANK];
    int64_t at[BP_MAX_RANK], best_at = -1;
    pool_window win;
    ref_value best;
    ref_sum sum;
    ref_walk k;
    window_at(w, x, o.index + 2, &win);
    input_bounds(&win, low, high);
    at[0] = o.index[0];
    at[1] = o.index[1];
    ref_sum_start(&sum);
    best.i64 = 0;
    for (ref_walk_start(&k, r, win.kernel); !k.done; ref_walk_next(&k)) {
      ref_value v;
      if (!tap_in(&win, k.index, low, high, at + 2)) continue; /* padding */
      v = ref_get(x, at);
      if (op == BP_OP_AVG_POOL) {
        ref_sum_add(&sum, ref_to_f64(v, x->dtype));
      } else if (best_at < 0 || beats(x->dtype, v, best)) {
        best = v;
        best_at = flat_position(&win, at + 2);
      }
    }
    if (op == BP_OP_AVG_POOL) {
      const int64_t count = window_count(&win, include_pad);
      ref_set(y, o.index, ref_from_f64(count == 0 ? 0.0 : ref_sum_result(&sum) / (double)count, y->dtype));
      continue;
    }
    /* The SDK refused windows that reach no input element: best_at >= 0. */
    ref_set(y, o.index, best);
    if (with_indices) ref_set(indices, o.index, ref_from_i64(best_at, BP_INT64));
  }
}

/* BP_OK when every index lies in its plane. */
static bp_status check_indices(const bp_plugin_tensor *indices, int64_t plane) {
  ref_walk o;
  for (ref_walk_start(&o, indices->rank, indices->shape); !o.done; ref_walk_next(&o)) {
    const int64_t at = ref_get(indices, o.index).i64;
    if (at < 0 || at >= plane)
      return ref_fail(BP_ERR_INDEX, "max_pool_grad: index %lld at element %lld is outside the plane of %lld positions",
                      (long long)at, (long long)o.position, (long long)plane);
  }
  return BP_OK;
}

bp_status ref_run_pool_grad(int32_t op, const bp_window_params *w, const bp_plugin_tensor *dy,
                            const bp_plugin_tensor *indices, const bp_plugin_tensor *dx) {
  const int32_t r = w->spatial_rank;
  const int include_pad = (w->flags & BP_WINDOW_COUNT_INCLUDE_PAD) != 0;
  const int64_t total = ref_numel(dx);
  int64_t plane = 1;
  ref_sum *sums;
  ref_walk o;
  int32_t d;
  for (d = 0; d < r; ++d) plane *= dx->shape[2 + d];
  if (op == BP_OP_MAX_POOL_GRAD) {
    const bp_status status = check_indices(indices, plane);
    if (status != BP_OK) return status;
  }
  sums = (ref_sum *)malloc(total > 0 ? (size_t)total * sizeof *sums : 1);
  if (sums == NULL)
    return ref_fail(BP_ERR_OUT_OF_MEMORY, "%s: no memory for the sums of %lld elements", bp_vocab_op_name(op),
                    (long long)total);
  for (ref_walk_start(&o, dx->rank, dx->shape); !o.done; ref_walk_next(&o)) ref_sum_start(&sums[o.position]);
  for (ref_walk_start(&o, dy->rank, dy->shape); !o.done; ref_walk_next(&o)) {
    const double g = ref_to_f64(ref_get(dy, o.index), dy->dtype);
    const int64_t base = (o.index[0] * dx->shape[1] + o.index[1]) * plane; /* dx's (n, c) plane */
    int64_t low[BP_WINDOW_MAX_RANK], high[BP_WINDOW_MAX_RANK], position[BP_WINDOW_MAX_RANK];
    pool_window win;
    int64_t count;
    ref_walk k;
    if (op == BP_OP_MAX_POOL_GRAD) {
      ref_sum_add(&sums[base + ref_get(indices, o.index).i64], g);
      continue;
    }
    window_at(w, dx, o.index + 2, &win);
    input_bounds(&win, low, high);
    count = window_count(&win, include_pad);
    for (ref_walk_start(&k, r, win.kernel); !k.done; ref_walk_next(&k))
      if (tap_in(&win, k.index, low, high, position)) ref_sum_add(&sums[base + flat_position(&win, position)], g / (double)count);
  }
  for (ref_walk_start(&o, dx->rank, dx->shape); !o.done; ref_walk_next(&o))
    ref_set(dx, o.index, ref_from_f64(ref_sum_result(&sums[o.position]), dx->dtype));
  free(sums);
  return BP_OK;
}
