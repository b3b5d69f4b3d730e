#include "conv_gemm.hpp"

#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "parallel.hpp"

namespace cpu_backend {

namespace {

// Extents of the flattened problem: spatial axes past the window's rank
// are extent 1 in bp_sdk_conv, so one loop nest serves 1-, 2- and 3-D.
struct Flat {
  int64_t in, out, taps, in_group, out_group;
  bool direct;  // a 1x1 window, stride 1, no padding: the columns are x itself
  explicit Flat(const bp_sdk_conv &g)
      : in(g.in[0] * g.in[1] * g.in[2]),
        out(g.out[0] * g.out[1] * g.out[2]),
        taps(g.kernel[0] * g.kernel[1] * g.kernel[2]),
        in_group(g.c_in / g.groups),
        out_group(g.c_out / g.groups),
        direct(true) {
    for (int i = 0; i < BP_WINDOW_MAX_RANK; ++i)
      direct = direct && g.kernel[i] == 1 && g.stride[i] == 1 && g.pad_begin[i] == 0 && g.pad_end[i] == 0;
  }
};

void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
          const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta, tb, int(m), int(n), int(k), 1.0f, a, int(lda), b, int(ldb), beta, c, int(ldc));
}
void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
          const double *b, int64_t ldb, double beta, double *c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta, tb, int(m), int(n), int(k), 1.0, a, int(lda), b, int(ldb), beta, c, int(ldc));
}

// c (m x n, row-major) = beta c + op(a) op(b); an empty contraction (k = 0)
// leaves beta c, which BLAS's leading-dimension rules would refuse.
template <class T>
void product(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n, int64_t k, const T *a, const T *b,
             T beta, T *c) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (beta == T(0)) std::fill(c, c + m * n, T(0));
    return;
  }
  gemm(ta, tb, m, n, k, a, ta == CblasNoTrans ? k : m, b, tb == CblasNoTrans ? n : k, beta, c, n);
}

// The first o of [0, count) whose position o s - pb + k d is >= 0, and one
// past the last whose position is < extent.
void valid_range(int64_t count, int64_t s, int64_t start, int64_t extent, int64_t &lo, int64_t &hi) {
  lo = start >= 0 ? 0 : (-start + s - 1) / s;
  hi = start >= extent ? 0 : std::min(count, (extent - start + s - 1) / s);
  lo = std::min(lo, count);
  hi = std::max(hi, lo);
}

// Kernel tap `tap`'s walk over the output rows (every output position but
// the last axis), in order: row(input, span) with the offset of the input
// row it reads, -1 when that row is in the padding. Along the last axis,
// outputs [span.lo, span.hi) read inside the input, output o at
// span.start + o * stride.
struct TapSpan {
  int64_t start, lo, hi;
};
template <class Row>
void walk_tap(const bp_sdk_conv &g, int64_t tap, Row &&row) {
  const int64_t k2 = tap % g.kernel[2], k1 = tap / g.kernel[2] % g.kernel[1], k0 = tap / (g.kernel[1] * g.kernel[2]);
  TapSpan span;
  span.start = k2 * g.dilation[2] - g.pad_begin[2];
  valid_range(g.out[2], g.stride[2], span.start, g.in[2], span.lo, span.hi);
  for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
    const int64_t p0 = o0 * g.stride[0] - g.pad_begin[0] + k0 * g.dilation[0];
    for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
      const int64_t p1 = o1 * g.stride[1] - g.pad_begin[1] + k1 * g.dilation[1];
      const bool inside = p0 >= 0 && p0 < g.in[0] && p1 >= 0 && p1 < g.in[1];
      row(inside ? (p0 * g.in[1] + p1) * g.in[2] : int64_t(-1), span);
    }
  }
}

// col [in_group * taps, out] of one batch item and group: row (c, tap)
// holds x[c] at every output position's window tap, 0 in the padding.
template <class T>
void im2col(ThreadPool &pool, const bp_sdk_conv &g, const Flat &f, const T *x, T *col) {
  parallel_for(pool, f.in_group * f.taps, f.out, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const T *xc = x + row / f.taps * f.in;
      T *dst = col + row * f.out;
      walk_tap(g, row % f.taps, [&](int64_t input, const TapSpan &span) {
        if (input < 0) {
          std::fill(dst, dst + g.out[2], T(0));
        } else {
          const T *src = xc + input;
          std::fill(dst, dst + span.lo, T(0));
          if (g.stride[2] == 1)
            std::copy(src + (span.start + span.lo), src + (span.start + span.hi), dst + span.lo);
          else
            for (int64_t o2 = span.lo; o2 < span.hi; ++o2) dst[o2] = src[span.start + o2 * g.stride[2]];
          std::fill(dst + span.hi, dst + g.out[2], T(0));
        }
        dst += g.out[2];
      });
    }
  });
}

// dx[c] = init[c] + every column entry added back where im2col took it
// from (init: the bias value, or 0); threaded over the channels, whose
// rows touch their own channel only.
template <class T>
void col2im(ThreadPool &pool, const bp_sdk_conv &g, const Flat &f, const T *col, const T *bias, T *dx) {
  parallel_for(pool, f.in_group, f.taps * f.out, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      T *dxc = dx + c * f.in;
      std::fill(dxc, dxc + f.in, bias ? bias[c] : T(0));
      for (int64_t tap = 0; tap < f.taps; ++tap) {
        const T *src = col + (c * f.taps + tap) * f.out;
        walk_tap(g, tap, [&](int64_t input, const TapSpan &span) {
          if (input >= 0) {
            T *dst = dxc + input;
            for (int64_t o2 = span.lo; o2 < span.hi; ++o2) dst[span.start + o2 * g.stride[2]] += src[o2];
          }
          src += g.out[2];
        });
      }
    }
  });
}

}  // namespace

template <class T>
void gemm_conv_forward(ThreadPool &pool, const bp_sdk_conv &g, const T *x, const T *w, const T *bias, T *y) {
  const Flat f(g);
  const int64_t depth = f.in_group * f.taps;
  std::vector<T> col(f.direct ? 0 : size_t(depth * f.out));
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const T *xg = x + (n * g.c_in + grp * f.in_group) * f.in;
      if (!f.direct) im2col(pool, g, f, xg, col.data());
      T *yg = y + (n * g.c_out + grp * f.out_group) * f.out;
      product(CblasNoTrans, CblasNoTrans, f.out_group, f.out, depth, w + grp * f.out_group * depth,
              f.direct ? xg : col.data(), T(0), yg);
    }
  if (!bias) return;
  parallel_for(pool, g.n * g.c_out, f.out, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const T b = bias[row % g.c_out];
      for (T *p = y + row * f.out, *e = p + f.out; p < e; ++p) *p += b;
    }
  });
}

template <class T>
void gemm_conv_backward_data(ThreadPool &pool, const bp_sdk_conv &g, const T *dy, const T *w, const T *bias,
                             T *dx) {
  const Flat f(g);
  const int64_t depth = f.in_group * f.taps;
  std::vector<T> col(size_t(depth * f.out));
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const T *dyg = dy + (n * g.c_out + grp * f.out_group) * f.out;
      T *dxg = dx + (n * g.c_in + grp * f.in_group) * f.in;
      product(CblasTrans, CblasNoTrans, depth, f.out, f.out_group, w + grp * f.out_group * depth, dyg, T(0),
              col.data());
      col2im(pool, g, f, col.data(), bias ? bias + grp * f.in_group : nullptr, dxg);
    }
}

template <class T>
void gemm_conv_backward_weights(ThreadPool &pool, const bp_sdk_conv &g, const T *x, const T *dy, T *dw) {
  const Flat f(g);
  const int64_t depth = f.in_group * f.taps;
  std::fill(dw, dw + g.c_out * depth, T(0));
  std::vector<T> col(f.direct ? 0 : size_t(depth * f.out));
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const T *xg = x + (n * g.c_in + grp * f.in_group) * f.in;
      if (!f.direct) im2col(pool, g, f, xg, col.data());
      product(CblasNoTrans, CblasTrans, f.out_group, depth, f.out, dy + (n * g.c_out + grp * f.out_group) * f.out,
              f.direct ? xg : col.data(), T(1), dw + grp * f.out_group * depth);
    }
}

template void gemm_conv_forward<float>(ThreadPool &, const bp_sdk_conv &, const float *, const float *,
                                       const float *, float *);
template void gemm_conv_forward<double>(ThreadPool &, const bp_sdk_conv &, const double *, const double *,
                                        const double *, double *);
template void gemm_conv_backward_data<float>(ThreadPool &, const bp_sdk_conv &, const float *, const float *,
                                             const float *, float *);
template void gemm_conv_backward_data<double>(ThreadPool &, const bp_sdk_conv &, const double *, const double *,
                                              const double *, double *);
template void gemm_conv_backward_weights<float>(ThreadPool &, const bp_sdk_conv &, const float *, const float *,
                                                float *);
template void gemm_conv_backward_weights<double>(ThreadPool &, const bp_sdk_conv &, const double *, const double *,
                                                 double *);

}  // namespace cpu_backend
