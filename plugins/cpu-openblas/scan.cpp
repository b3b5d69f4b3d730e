// CUMSUM: every line along the last axis is scanned on its own
// (backplane/kernels/scan.hpp), so lines are split over the thread pool and
// the result does not depend on the thread count.
#include "backplane/kernels/scan.hpp"

#include "dtype.hpp"
#include "kernels.hpp"
#include "layout.hpp"
#include "parallel.hpp"
#include "small_types.hpp"

namespace cpu_backend {

namespace bk = bp_kernels;

namespace {

// CUMSUM of a 1.4 dtype: the float64 (16-bit floats, each output rounded
// once) or int64 (small integers, wrapping) scanner over widened elements.
template <class T>
struct WideCumsum {
  using Wide = bk::CumsumScanner<std::conditional_t<is_half<T>, double, int64_t>>;
  using in_t = T;
  using acc_t = typename Wide::acc_t;
  using out_t = std::conditional_t<is_half<T>, T, int64_t>;
  static acc_t init() { return Wide::init(); }
  static acc_t step(acc_t a, T x, int64_t pos) { return Wide::step(a, static_cast<typename Wide::in_t>(widen(x)), pos); }
  static out_t finish(acc_t a, int64_t count) { return narrow<out_t>(Wide::finish(a, count)); }
};

template <class R>
void scan_lines(ThreadPool &pool, const View &in, const View &out) {
  const int last = out.rank - 1;
  const int64_t length = out.shape[last];
  const int64_t so = out.strides[last], si = in.strides[last];
  // The outer axes locate each line's first element; operand 0 is the output.
  const Layout<2> lines = make_layout<2>(last, out.shape, {out.strides, in.strides});
  const int64_t lo = lines.inner_stride(0), li = lines.inner_stride(1);
  const auto *x = in.data<typename R::in_t>();
  auto *y = out.data<typename R::out_t>();
  parallel_for(pool, out.numel / length, length, [&](int64_t begin, int64_t end) {
    walk(lines, begin, end, [&](const int64_t *off, int64_t n, int64_t) {
      for (int64_t i = 0; i < n; ++i) bk::inclusive_scan<R>(x + off[1] + i * li, si, y + off[0] + i * lo, so, length);
    });
  });
}

}  // namespace

void scan_kernel(ThreadPool &pool, int32_t op, const View &in, const View &out) {
  if (out.numel == 0) return;
  switch (op) {
    case BP_OP_CUMSUM:
      return dispatch_set<BP_DTYPE_SET_ALL>(in.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (is_half<T> || is_small_int<T>) scan_lines<WideCumsum<T>>(pool, in, out);
        else scan_lines<bk::CumsumScanner<T>>(pool, in, out);
      });
    default: fail(BP_ERR_INTERNAL, "cpu-openblas: scan_kernel got op %d", op);
  }
}

}  // namespace cpu_backend
