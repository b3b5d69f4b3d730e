// SOFTMAX and LOG_SOFTMAX (plugin.h): every row along the last axis is
// normalised on its own, so rows are split over the thread pool and a
// result does not depend on the thread count.
//
// A dense float32 or float64 row runs the vector row kernel of
// softmax_rows.hpp in place between the buffers. Any other row (strided, or
// of a 16-bit float) is widened into a compute-type row first and narrowed
// back once at the end, which is plugin.h's rule for the halves: float32
// arithmetic, one rounding. Rows of an output larger than the caches are
// written with non-temporal stores: such an output could not stay in cache
// for its reader anyway, and writing it through the cache would first read
// every line of it from memory, half again the traffic of the input.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>

#include "dtype.hpp"
#include "half_convert.hpp"
#include "kernels.hpp"
#include "layout.hpp"
#include "parallel.hpp"
#include "small_types.hpp"
#include "softmax_rows.hpp"

namespace cpu_backend {

namespace {

// A row in place, with no memory of its own: three passes over the strided
// elements, in their compute type (each element is read before it is
// written, so y may be x). For the rows the vector path does not take when
// a piece could not get its scratch rows.
template <class T>
void softmax_row_strided(const T *x, int64_t sx, T *y, int64_t sy, int64_t n, bool log) {
  using C = compute_t<T>;
  C m = -std::numeric_limits<C>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    const C v = widen(x[i * sx]);
    m = v > m ? v : m;
  }
  C s = 0;
  for (int64_t i = 0; i < n; ++i) s += std::exp(widen(x[i * sx]) - m);
  const C inv = C(1) / s, ls = std::log(s);
  for (int64_t i = 0; i < n; ++i) {
    const C t = widen(x[i * sx]) - m;
    y[i * sy] = narrow<T>(log ? t - ls : std::exp(t) * inv);
  }
}

// The vector row kernel of T's compute type (float for the halves).
template <class C>
SoftmaxRowFn<C> row_kernel() {
  if constexpr (std::is_same<C, double>::value) return softmax_rows().f64;
  else return softmax_rows().f32;
}

// A half row to float32 and back, by the vector conversions when dense.
template <class T>
void widen_row(const T *x, int64_t sx, float *b, int64_t n) {
  const HalfConverters &c = converters();
  if (sx == 1) return (std::is_same<T, float16>::value ? c.f16_to_f32 : c.bf16_to_f32)(reinterpret_cast<const uint16_t *>(x), b, n);
  for (int64_t i = 0; i < n; ++i) b[i] = widen(x[i * sx]);
}
template <class T>
void narrow_row(const float *b, T *y, int64_t sy, int64_t n) {
  const HalfConverters &c = converters();
  if (sy == 1) return (std::is_same<T, float16>::value ? c.f32_to_f16 : c.f32_to_bf16)(b, reinterpret_cast<uint16_t *>(y), n);
  for (int64_t i = 0; i < n; ++i) y[i * sy] = narrow<T>(b[i]);
}

// Output bytes from which rows are streamed past the caches: twice what
// the pool's threads hold in their second-level caches (4 MiB at least).
int64_t stream_threshold(int threads) {
  static const int64_t l2 = [] {
    const long size = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return size > 0 ? int64_t(size) : int64_t(1) << 20;
  }();
  return std::max<int64_t>(int64_t(4) << 20, 2 * l2 * threads);
}

template <class T>
void softmax_lines(ThreadPool &pool, bool log, const View &in, const View &out) {
  using C = compute_t<T>;
  const int last = out.rank - 1;
  const int64_t n = out.shape[last];
  const int64_t so = out.strides[last], si = in.strides[last];
  // The outer axes locate each row's first element; operand 0 is the output.
  const Layout<2> lines = make_layout<2>(last, out.shape, {out.strides, in.strides});
  const int64_t lo = lines.inner_stride(0), li = lines.inner_stride(1);
  const T *x = in.data<T>();
  T *y = out.data<T>();
  // Dense rows of the compute type need no staging row, only the
  // exponentials' scratch.
  const bool direct = std::is_same<T, C>::value && si == 1 && so == 1;
  const bool stream = direct && out.numel * int64_t(sizeof(T)) >= stream_threshold(pool.threads());
  const SoftmaxRowFn<C> kernel = row_kernel<C>();
  parallel_for(pool, out.numel / n, n * kTranscendental, [&](int64_t begin, int64_t end) {
    // Staging and scratch rows for this piece; without them (no memory)
    // each row takes the strided path, which needs none.
    const size_t rows_needed = direct ? 1 : 2;
    std::unique_ptr<C[]> scratch(new (std::nothrow) C[rows_needed * size_t(n)]);
    walk(lines, begin, end, [&](const int64_t *off, int64_t count, int64_t) {
      for (int64_t r = 0; r < count; ++r) {
        const T *xr = x + off[1] + r * li;
        T *yr = y + off[0] + r * lo;
        if (!scratch) {
          softmax_row_strided(xr, si, yr, so, n, log);
        } else if constexpr (std::is_same<T, C>::value) {
          if (direct) {
            kernel(xr, yr, n, log, scratch.get(), stream, r + 1 < count ? xr + li : nullptr);
          } else {
            C *b = scratch.get() + n;
            for (int64_t i = 0; i < n; ++i) b[i] = xr[i * si];
            kernel(b, b, n, log, scratch.get(), false, nullptr);
            for (int64_t i = 0; i < n; ++i) yr[i * so] = b[i];
          }
        } else {
          C *b = scratch.get() + n;
          widen_row(xr, si, b, n);
          kernel(b, b, n, log, scratch.get(), false, nullptr);
          narrow_row(b, yr, so, n);
        }
      }
    });
    if (stream) stream_fence();
  });
}

}  // namespace

void softmax_kernel(ThreadPool &pool, int32_t op, const View &in, const View &out) {
  if (out.numel == 0) return;
  const bool log = op == BP_OP_LOG_SOFTMAX;
  dispatch_set<BP_DTYPE_SET_FLOAT>(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    softmax_lines<T>(pool, log, in, out);
  });
}

const char *softmax_path() { return softmax_rows().path; }

}  // namespace cpu_backend
