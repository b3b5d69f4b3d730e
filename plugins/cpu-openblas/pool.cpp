// MAX_POOL, AVG_POOL and their gradients (families POOL and POOL_GRAD),
// with the window math of backplane/kernels/pool.hpp. The forward splits
// rows of outputs over the thread pool.
// The gradients scatter: each (n, c) plane on its own thread adds its dy
// terms into a float64 plane of sums (MAX_POOL_GRAD one term per dy
// element, at its index; AVG_POOL_GRAD dy / n over its window), then
// stores the plane once, so the result does not depend on the thread count.
#include "backplane/kernels/pool.hpp"

#include <algorithm>
#include <cinttypes>
#include <vector>

#include "dtype.hpp"
#include "kernels.hpp"
#include "parallel.hpp"
#include "small_types.hpp"
#if BP_CPU_HAVE_ONEDNN
#include "pool_onednn.hpp"
#endif

namespace cpu_backend {

namespace bk = bp_kernels;

namespace {

struct Widen {
  template <class T>
  compute_t<T> operator()(T x) const {
    return widen(x);
  }
};

// Taps of one window: the cost of an output element, for splitting.
int64_t window_taps(const bp_window_params &w) {
  int64_t taps = 1;
  for (int32_t d = 0; d < w.spatial_rank; ++d) taps *= w.kernel[d];
  return taps;
}

// A view's spatial strides as the geometry's three axes (leading added
// axes get 0), for a view that shares the pooled shape (the indices).
void spatial_strides(const bp_window_params &w, const View &v, int64_t *strides) {
  const int32_t lead = 3 - w.spatial_rank;
  for (int32_t d = 0; d < 3; ++d) strides[d] = d < lead ? 0 : v.strides[2 + d - lead];
}

// Element offset of plane (n, c) in v.
int64_t plane_offset(const View &v, int64_t n, int64_t c) { return n * v.strides[0] + c * v.strides[1]; }

// body(n, c, o0) for every plane and first-axis row of the pooled view,
// split over the thread pool (cost: elements' work per row).
template <class Body>
void for_rows(ThreadPool &pool, const View &pooled, const bk::PoolGeometry &g, int64_t cost, Body &&body) {
  const int64_t channels = pooled.shape[1], rows = g.out[0];
  parallel_for(pool, pooled.shape[0] * channels * rows, cost * g.out[1] * g.out[2], [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t plane = r / rows;
      body(plane / channels, plane % channels, r % rows);
    }
  });
}

// AVG_POOL walks one row of outputs (fixed o0, o1) per tap: for every tap
// (k0, k1) of the row's windows and every k2, the outputs whose tap k2
// lands inside the input add their element, in a loop over o2 that the
// compiler vectorises for stride 1.
template <class T, class Step>
void each_row_tap(const bk::PoolGeometry &g, const T *xp, int64_t o0, int64_t o1, Step &&step) {
  int64_t b0, e0, b1, e1;
  bk::pool_taps_inside(g, 0, o0, &b0, &e0);
  bk::pool_taps_inside(g, 1, o1, &b1, &e1);
  for (int64_t k0 = b0; k0 < e0; ++k0) {
    const int64_t p0 = o0 * g.stride[0] - g.pad_begin[0] + k0 * g.dilation[0];
    for (int64_t k1 = b1; k1 < e1; ++k1) {
      const int64_t p1 = o1 * g.stride[1] - g.pad_begin[1] + k1 * g.dilation[1];
      const T *row = xp + p0 * g.full_stride[0] + p1 * g.full_stride[1];
      for (int64_t k2 = 0; k2 < g.kernel[2]; ++k2) {
        int64_t lo, hi;
        bk::pool_outputs_reading(g, 2, k2, &lo, &hi);
        // Output o2 reads position o2 * stride + off of the row.
        step(row, (p0 * g.size[1] + p1) * g.size[2], k2 * g.dilation[2] - g.pad_begin[2], lo, hi);
      }
    }
  }
}

// MAX_POOL keeps one window's best value and position in registers, output
// by output (faster here than a row of them per tap, whose compares and
// index updates do not vectorise).
template <class T>
void max_pool(ThreadPool &pool, const bp_window_params &w, const View &x, const View &y, const View *indices) {
  const bk::PoolGeometry g = bk::pool_geometry(w, x.shape, x.strides, y.shape, y.strides);
  int64_t is[3] = {0, 0, 0};
  if (indices) spatial_strides(w, *indices, is);
  for_rows(pool, y, g, window_taps(w), [&](int64_t n, int64_t c, int64_t o0) {
    const T *xp = x.data<T>() + plane_offset(x, n, c);
    T *yp = y.data<T>() + plane_offset(y, n, c);
    int64_t *ip = indices ? indices->data<int64_t>() + plane_offset(*indices, n, c) : nullptr;
    for (int64_t o1 = 0; o1 < g.out[1]; ++o1)
      for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
        const int64_t o[3] = {o0, o1, o2};
        T value;
        int64_t at;
        bk::pool_max_window<compute_t<T>>(g, xp, o, Widen(), &value, &at);
        yp[o0 * g.pooled_stride[0] + o1 * g.pooled_stride[1] + o2 * g.pooled_stride[2]] = value;
        if (ip) ip[o0 * is[0] + o1 * is[1] + o2 * is[2]] = at;
      }
  });
}

template <class T>
void avg_pool(ThreadPool &pool, const bp_window_params &w, const View &x, const View &y) {
  const bk::PoolGeometry g = bk::pool_geometry(w, x.shape, x.strides, y.shape, y.strides);
  const int64_t s2 = g.stride[2], fs2 = g.full_stride[2];
  // The divisor's factor of axis 2, per output position (plugin.h: a product over axes).
  std::vector<double> count2(static_cast<size_t>(g.out[2]));
  for (int64_t o2 = 0; o2 < g.out[2]; ++o2)
    count2[size_t(o2)] = double(bp_sdk_window_count(o2, g.size[2], g.kernel[2], g.stride[2], g.dilation[2],
                                                    g.pad_begin[2], g.pad_end[2], g.include_pad));
  auto count = [&](int d, int64_t o) {
    return double(bp_sdk_window_count(o, g.size[d], g.kernel[d], g.stride[d], g.dilation[d], g.pad_begin[d],
                                      g.pad_end[d], g.include_pad));
  };
  for_rows(pool, y, g, window_taps(w), [&](int64_t n, int64_t c, int64_t o0) {
    const T *xp = x.data<T>() + plane_offset(x, n, c);
    T *yp = y.data<T>() + plane_offset(y, n, c);
    std::vector<double> sum(static_cast<size_t>(g.out[2]));
    for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
      std::fill(sum.begin(), sum.end(), 0.0);
      double *acc = sum.data();
      each_row_tap(g, xp, o0, o1, [&](const T *row, int64_t, int64_t off, int64_t lo, int64_t hi) {
        for (int64_t o2 = lo; o2 < hi; ++o2) acc[o2] += double(widen(row[(o2 * s2 + off) * fs2]));
      });
      const double c01 = count(0, o0) * count(1, o1);
      T *yr = yp + o0 * g.pooled_stride[0] + o1 * g.pooled_stride[1];
      for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
        const double n_taps = c01 * count2[size_t(o2)];
        yr[o2 * g.pooled_stride[2]] = narrow<T>(n_taps == 0 ? 0.0 : acc[o2] / n_taps);
      }
    }
  });
}

// BP_ERR_INDEX, before anything is written, for an index outside its plane.
void check_indices(const View &indices, int64_t plane) {
  for (int64_t i = 0; i < indices.numel; ++i) {
    int64_t off = 0, rest = i;
    for (int32_t d = indices.rank - 1; d >= 0; --d) {
      off += (rest % indices.shape[d]) * indices.strides[d];
      rest /= indices.shape[d];
    }
    const int64_t v = indices.data<int64_t>()[off];
    if (v < 0 || v >= plane)
      fail(BP_ERR_INDEX,
           "cpu-openblas: max_pool_grad: index %" PRId64 " at element %" PRId64 " is outside the plane of %" PRId64
           " positions",
           v, i, plane);
  }
}

// The gradients, one (n, c) plane per task: sums in float64, stored once.
template <class T>
void pool_grad(ThreadPool &pool, const bp_window_params &w, const View &dy, const View *indices,
               const View &dx) {
  const bk::PoolGeometry g = bk::pool_geometry(w, dx.shape, dx.strides, dy.shape, dy.strides);
  const int64_t plane = g.size[0] * g.size[1] * g.size[2], channels = dx.shape[1];
  int64_t is[3] = {0, 0, 0};
  if (indices) spatial_strides(w, *indices, is);
  const int64_t cost = g.out[0] * g.out[1] * g.out[2] * (indices ? 1 : window_taps(w)) + plane;
  // AVG_POOL_GRAD's divisors, a product of one factor per axis (plugin.h).
  std::vector<double> counts[3];
  for (int d = 0; d < 3 && !indices; ++d)
    for (int64_t o = 0; o < g.out[d]; ++o)
      counts[d].push_back(double(bp_sdk_window_count(o, g.size[d], g.kernel[d], g.stride[d], g.dilation[d],
                                                     g.pad_begin[d], g.pad_end[d], g.include_pad)));
  parallel_for(pool, dx.shape[0] * channels, cost, [&](int64_t begin, int64_t end) {
    std::vector<double> sums(static_cast<size_t>(plane));
    for (int64_t p = begin; p < end; ++p) {
      const int64_t n = p / channels, c = p % channels;
      const T *gp = dy.data<T>() + plane_offset(dy, n, c);
      const int64_t *ip = indices ? indices->data<int64_t>() + plane_offset(*indices, n, c) : nullptr;
      std::fill(sums.begin(), sums.end(), 0.0);
      for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
        for (int64_t o1 = 0; o1 < g.out[1]; ++o1)
          for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
            const double v = double(widen(gp[o0 * g.pooled_stride[0] + o1 * g.pooled_stride[1] + o2 * g.pooled_stride[2]]));
            if (ip) {
              sums[size_t(ip[o0 * is[0] + o1 * is[1] + o2 * is[2]])] += v;
              continue;
            }
            const int64_t o[3] = {o0, o1, o2};
            const double share = v / (counts[0][size_t(o0)] * counts[1][size_t(o1)] * counts[2][size_t(o2)]);
            int64_t b[3], e[3], start[3];
            for (int d = 0; d < 3; ++d) {
              bk::pool_taps_inside(g, d, o[d], &b[d], &e[d]);
              start[d] = o[d] * g.stride[d] - g.pad_begin[d];
            }
            for (int64_t k0 = b[0]; k0 < e[0]; ++k0)
              for (int64_t k1 = b[1]; k1 < e[1]; ++k1) {
                double *row = sums.data() + ((start[0] + k0 * g.dilation[0]) * g.size[1] + start[1] + k1 * g.dilation[1]) * g.size[2];
                for (int64_t k2 = b[2]; k2 < e[2]; ++k2) row[start[2] + k2 * g.dilation[2]] += share;
              }
          }
      T *xp = dx.data<T>() + plane_offset(dx, n, c);
      for (int64_t s0 = 0; s0 < g.size[0]; ++s0)
        for (int64_t s1 = 0; s1 < g.size[1]; ++s1)
          for (int64_t s2 = 0; s2 < g.size[2]; ++s2)
            xp[s0 * g.full_stride[0] + s1 * g.full_stride[1] + s2 * g.full_stride[2]] =
                narrow<T>(sums[size_t((s0 * g.size[1] + s1) * g.size[2] + s2)]);
    }
  });
}

}  // namespace

void pool_kernel(ThreadPool &pool, int32_t op, const bp_window_params &w, const View &x, const View &y,
                 const View *indices) {
  if (y.numel == 0) return;
#if BP_CPU_HAVE_ONEDNN
  if (!indices && onednn_pool(pool, op, w, x, y)) return;
#endif
  if (op == BP_OP_MAX_POOL)
    return dispatch_set<BP_DTYPE_SET_NUMERIC>(x.dtype, [&](auto tag) {
      max_pool<typename decltype(tag)::type>(pool, w, x, y, indices);
    });
  if (op == BP_OP_AVG_POOL)
    return dispatch_set<BP_DTYPE_SET_FLOAT>(x.dtype, [&](auto tag) { avg_pool<typename decltype(tag)::type>(pool, w, x, y); });
  fail(BP_ERR_INTERNAL, "cpu-openblas: pool_kernel got op %d", op);
}

void pool_grad_kernel(ThreadPool &pool, int32_t op, const bp_window_params &w, const View &dy, const View *indices,
                      const View &dx) {
  if (dx.numel == 0) return;
  if (op == BP_OP_MAX_POOL_GRAD) {
    int64_t plane = 1;
    for (int32_t d = 0; d < w.spatial_rank; ++d) plane *= dx.shape[2 + d];
    check_indices(*indices, plane);
  } else if (op != BP_OP_AVG_POOL_GRAD) {
    fail(BP_ERR_INTERNAL, "cpu-openblas: pool_grad_kernel got op %d", op);
  }
#if BP_CPU_HAVE_ONEDNN
  else if (onednn_avg_pool_grad(pool, w, dy, dx)) {
    return;
  }
#endif
  dispatch_set<BP_DTYPE_SET_FLOAT>(dy.dtype, [&](auto tag) {
    pool_grad<typename decltype(tag)::type>(pool, w, dy, op == BP_OP_MAX_POOL_GRAD ? indices : nullptr, dx);
  });
}

}  // namespace cpu_backend
