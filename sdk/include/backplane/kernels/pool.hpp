/*
 * backplane/kernels/pool.hpp — the per-window math of MAX_POOL, AVG_POOL
 * and their gradients (family POOL and POOL_GRAD; semantics in
 * backplane/plugin.h), shared by the C++ and CUDA backends. Header-only
 * C++17, host and nvcc device code.
 *
 * A window of 1 or 2 spatial axes is taken as one of 3 whose leading axes
 * have extent 1 (kernel 1, stride 1, no padding), so one set of loops
 * serves every rank. The functions work on one (n, c) plane: `x` (or `dy`)
 * points at its first element and the geometry holds the spatial strides.
 * Taps outside the input are skipped by computing, per axis, the range of
 * kernel positions that land inside, so no loop tests a bound per element.
 */
#ifndef BACKPLANE_KERNELS_POOL_HPP
#define BACKPLANE_KERNELS_POOL_HPP

#include <stdint.h>

#include "backplane/kernels/elementwise.hpp"
#include "backplane/plugin.h"
#include "backplane/sdk/window.h"

namespace bp_kernels {

/* One pooling problem on 3 spatial axes: the unpooled view's extents
 * (`size`: x, or dx for the gradients) and the pooled one's (`out`: y or
 * dy), the window, and the spatial strides of both views in elements. */
struct PoolGeometry {
  int64_t size[3], out[3];
  int64_t kernel[3], stride[3], dilation[3], pad_begin[3], pad_end[3];
  int64_t full_stride[3], pooled_stride[3];
  int32_t include_pad;
};

/* The geometry of views of rank 2 + w.spatial_rank (checked by the SDK):
 * the unpooled one's shape and strides, the pooled one's, axes 2.. of each.
 * Host code. */
inline PoolGeometry pool_geometry(const bp_window_params &w, const int64_t *full_shape, const int64_t *full_strides,
                                  const int64_t *pooled_shape, const int64_t *pooled_strides) {
  PoolGeometry g;
  const int32_t lead = 3 - w.spatial_rank;
  for (int32_t d = 0; d < 3; ++d) {
    const int32_t a = d - lead; /* the window's axis, or < 0 for an added one */
    g.size[d] = a < 0 ? 1 : full_shape[2 + a];
    g.out[d] = a < 0 ? 1 : pooled_shape[2 + a];
    g.kernel[d] = a < 0 ? 1 : w.kernel[a];
    g.stride[d] = a < 0 ? 1 : w.stride[a];
    g.dilation[d] = a < 0 ? 1 : w.dilation[a];
    g.pad_begin[d] = a < 0 ? 0 : w.pad_begin[a];
    g.pad_end[d] = a < 0 ? 0 : w.pad_end[a];
    g.full_stride[d] = a < 0 ? 0 : full_strides[2 + a];
    g.pooled_stride[d] = a < 0 ? 0 : pooled_strides[2 + a];
  }
  g.include_pad = (w.flags & BP_WINDOW_COUNT_INCLUDE_PAD) != 0;
  return g;
}

/* The kernel positions [*begin, *end) of output position o along axis d
 * whose taps lie inside the input. */
BP_HD inline void pool_taps_inside(const PoolGeometry &g, int d, int64_t o, int64_t *begin, int64_t *end) {
  const int64_t start = o * g.stride[d] - g.pad_begin[d], dil = g.dilation[d];
  const int64_t b = start >= 0 ? 0 : (-start + dil - 1) / dil;
  int64_t e = start >= g.size[d] ? 0 : (g.size[d] - start + dil - 1) / dil;
  if (e > g.kernel[d]) e = g.kernel[d];
  *begin = b;
  *end = e > b ? e : b;
}

/* The output positions [*lo, *hi) along axis d whose tap k lies inside the
 * input: for a backend that walks a row of outputs per tap. */
BP_HD inline void pool_outputs_reading(const PoolGeometry &g, int d, int64_t k, int64_t *lo, int64_t *hi) {
  const int64_t off = k * g.dilation[d] - g.pad_begin[d], s = g.stride[d]; /* the tap at o * s + off */
  int64_t l = off >= 0 ? 0 : (-off + s - 1) / s;
  int64_t h = g.size[d] - 1 - off < 0 ? 0 : (g.size[d] - 1 - off) / s + 1;
  if (h > g.out[d]) h = g.out[d];
  if (l > h) l = h;
  *lo = l;
  *hi = h;
}

/* AVG_POOL's divisor n(o) for the output position o[3]. */
BP_HD inline int64_t pool_divisor(const PoolGeometry &g, const int64_t *o) {
  int64_t n = 1;
  for (int d = 0; d < 3; ++d)
    n *= bp_sdk_window_count(o[d], g.size[d], g.kernel[d], g.stride[d], g.dilation[d], g.pad_begin[d], g.pad_end[d],
                             g.include_pad);
  return n;
}

/* The flat position of the input tap p[3] in its plane (plugin.h). */
BP_HD inline int64_t pool_flat(const PoolGeometry &g, const int64_t *p) {
  return (p[0] * g.size[1] + p[1]) * g.size[2] + p[2];
}

/* MAX_POOL of one window: the winning element (as stored) and its flat
 * position. C is T's compute type, widen(x) the exact conversion into it.
 * A NaN beats everything and nothing beats a NaN; a later equal value
 * never replaces an earlier one. The window has a tap inside the input
 * (the SDK refuses others). */
template <class C, class T, class Widen>
BP_HD inline void pool_max_window(const PoolGeometry &g, const T *x, const int64_t *o, Widen widen, T *value,
                                  int64_t *position) {
  int64_t b[3], e[3], start[3];
  for (int d = 0; d < 3; ++d) {
    pool_taps_inside(g, d, o[d], &b[d], &e[d]);
    start[d] = o[d] * g.stride[d] - g.pad_begin[d];
  }
  bool found = false, best_nan = false;
  C best = C(0);
  T raw = T();
  int64_t at = 0;
  for (int64_t k0 = b[0]; k0 < e[0] && !best_nan; ++k0) {
    const int64_t p0 = start[0] + k0 * g.dilation[0];
    for (int64_t k1 = b[1]; k1 < e[1] && !best_nan; ++k1) {
      const int64_t p1 = start[1] + k1 * g.dilation[1];
      const T *row = x + p0 * g.full_stride[0] + p1 * g.full_stride[1];
      for (int64_t k2 = b[2]; k2 < e[2]; ++k2) {
        const int64_t p2 = start[2] + k2 * g.dilation[2];
        const T t = row[p2 * g.full_stride[2]];
        const C v = widen(t);
        const bool nan = v != v;
        if (!found || nan || v > best) {
          found = true;
          best = v;
          raw = t;
          at = (p0 * g.size[1] + p1) * g.size[2] + p2;
          if (nan) {
            best_nan = true;
            break;
          }
        }
      }
    }
  }
  *value = raw;
  *position = at;
}

/* AVG_POOL's sum over one window's taps inside the input, in Acc. */
template <class Acc, class T, class Widen>
BP_HD inline Acc pool_window_sum(const PoolGeometry &g, const T *x, const int64_t *o, Widen widen) {
  int64_t b[3], e[3], start[3];
  for (int d = 0; d < 3; ++d) {
    pool_taps_inside(g, d, o[d], &b[d], &e[d]);
    start[d] = o[d] * g.stride[d] - g.pad_begin[d];
  }
  Acc sum = Acc(0);
  for (int64_t k0 = b[0]; k0 < e[0]; ++k0) {
    const int64_t p0 = start[0] + k0 * g.dilation[0];
    for (int64_t k1 = b[1]; k1 < e[1]; ++k1) {
      const T *row = x + p0 * g.full_stride[0] + (start[1] + k1 * g.dilation[1]) * g.full_stride[1];
      for (int64_t k2 = b[2]; k2 < e[2]; ++k2)
        sum += static_cast<Acc>(widen(row[(start[2] + k2 * g.dilation[2]) * g.full_stride[2]]));
    }
  }
  return sum;
}

/* The output positions along axis d whose windows have a tap at input
 * position p, as kernel positions k: o = (p + pad_begin - k * dilation) /
 * stride for each k where that divides and 0 <= o < out. Visits them with
 * k rising (o falling), calling f(o). */
template <class F>
BP_HD inline void pool_windows_at(const PoolGeometry &g, int d, int64_t p, F &&f) {
  for (int64_t k = 0; k < g.kernel[d]; ++k) {
    const int64_t q = p + g.pad_begin[d] - k * g.dilation[d];
    if (q < 0) break;
    if (q % g.stride[d] != 0) continue;
    const int64_t o = q / g.stride[d];
    if (o < g.out[d]) f(o);
  }
}

/* One element of dx at input position p[3], gathered from the windows that
 * reach it: MAX_POOL_GRAD (index non-null: dy[o] where index[o] is p's flat
 * position) or AVG_POOL_GRAD (dy[o] / n(o)). index and dy share the pooled
 * strides only when index_stride is null; else index uses its own. */
template <class Acc, class T, class Widen>
BP_HD inline Acc pool_grad_at(const PoolGeometry &g, const T *dy, const int64_t *index, const int64_t *index_stride,
                              const int64_t *p, Widen widen) {
  const int64_t flat = pool_flat(g, p);
  Acc sum = Acc(0);
  pool_windows_at(g, 0, p[0], [&](int64_t o0) {
    pool_windows_at(g, 1, p[1], [&](int64_t o1) {
      pool_windows_at(g, 2, p[2], [&](int64_t o2) {
        const T t = dy[o0 * g.pooled_stride[0] + o1 * g.pooled_stride[1] + o2 * g.pooled_stride[2]];
        if (index) {
          if (index[o0 * index_stride[0] + o1 * index_stride[1] + o2 * index_stride[2]] == flat)
            sum += static_cast<Acc>(widen(t));
        } else {
          const int64_t o[3] = {o0, o1, o2};
          sum += static_cast<Acc>(widen(t)) / static_cast<Acc>(pool_divisor(g, o));
        }
      });
    });
  });
  return sum;
}

}  // namespace bp_kernels

#endif /* BACKPLANE_KERNELS_POOL_HPP */
