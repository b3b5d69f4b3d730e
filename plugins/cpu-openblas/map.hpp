// Elementwise drivers: apply a functor to every element of same-shaped
// strided views (output first), in parallel for large tensors. The inner
// loops over one run are written as plain loops over raw pointers, with the
// contiguous and broadcast (stride 0) cases split out so that gcc
// vectorises them; other strides take the generic loop. Small integers
// compute widened to int32 element by element; 16-bit floats a block at a
// time in float32 (half_block.hpp).
#pragma once

#include "half_block.hpp"
#include "layout.hpp"
#include "parallel.hpp"
#include "view.hpp"

namespace cpu_backend {

// map1 and map2 where an operand is a 16-bit float: each run in blocks.
template <class To, class Ti, class F>
void map1_blocks(ThreadPool &pool, int64_t cost, F f, const View &out, const View &in) {
  using R = decltype(f(compute_t<Ti>()));
  To *o = out.data<To>();
  const Ti *x = in.data<Ti>();
  const Layout<2> layout = make_layout<2>(out.rank, out.shape, {out.strides, in.strides});
  const int64_t so = layout.inner_stride(0), si = layout.inner_stride(1);
  parallel_for(pool, out.numel, cost, [&](int64_t begin, int64_t end) {
    walk(layout, begin, end, [&](const int64_t *off, int64_t n, int64_t) {
      BlockBuffers<compute_t<Ti>, R> buf;
      for (int64_t b = 0; b < n; b += kHalfBlock) {
        const int64_t m = std::min(kHalfBlock, n - b);
        load_compute(x + off[1] + b * si, si, m, buf.a);
        for (int64_t i = 0; i < m; ++i) buf.r[i] = f(buf.a[i]);
        store_results(buf.r, m, o + off[0] + b * so, so);
      }
    });
  });
}

template <class To, class Ti, class F>
void map2_blocks(ThreadPool &pool, int64_t cost, F f, const View &out, const View &a, const View &b) {
  using R = decltype(f(compute_t<Ti>(), compute_t<Ti>()));
  To *o = out.data<To>();
  const Ti *x = a.data<Ti>();
  const Ti *y = b.data<Ti>();
  const Layout<3> layout = make_layout<3>(out.rank, out.shape, {out.strides, a.strides, b.strides});
  const int64_t so = layout.inner_stride(0), sa = layout.inner_stride(1), sb = layout.inner_stride(2);
  parallel_for(pool, out.numel, cost, [&](int64_t begin, int64_t end) {
    walk(layout, begin, end, [&](const int64_t *off, int64_t n, int64_t) {
      BlockBuffers<compute_t<Ti>, R> buf;
      for (int64_t k = 0; k < n; k += kHalfBlock) {
        const int64_t m = std::min(kHalfBlock, n - k);
        load_compute(x + off[1] + k * sa, sa, m, buf.a);
        load_compute(y + off[2] + k * sb, sb, m, buf.b);
        for (int64_t i = 0; i < m; ++i) buf.r[i] = f(buf.a[i], buf.b[i]);
        store_results(buf.r, m, o + off[0] + k * so, so);
      }
    });
  });
}

// out[i] = f(in[i]), any shape but one element (see map1).
template <class To, class Ti, class F>
__attribute__((noinline)) void map1_strided(ThreadPool &pool, int64_t cost, F f, const View &out, const View &in) {
  if constexpr (is_half<To> || is_half<Ti>) return map1_blocks<To, Ti>(pool, cost, f, out, in);
  To *o = out.data<To>();
  const Ti *x = in.data<Ti>();
  const Layout<2> layout = make_layout<2>(out.rank, out.shape, {out.strides, in.strides});
  const int64_t so = layout.inner_stride(0), si = layout.inner_stride(1);
  parallel_for(pool, out.numel, cost, [&](int64_t begin, int64_t end) {
    walk(layout, begin, end, [&](const int64_t *off, int64_t n, int64_t) {
      To *po = o + off[0];
      const Ti *pi = x + off[1];
      if (so == 1 && si == 1) {
        for (int64_t i = 0; i < n; ++i) po[i] = narrow<To>(f(widen(pi[i])));
      } else if (so == 1 && si == 0) {
        const To v = narrow<To>(f(widen(*pi)));
        for (int64_t i = 0; i < n; ++i) po[i] = v;
      } else {
        for (int64_t i = 0; i < n; ++i) po[i * so] = narrow<To>(f(widen(pi[i * si])));
      }
    });
  });
}

// out[i] = f(a[i], b[i]), any shape but one element (see map2).
template <class To, class Ti, class F>
__attribute__((noinline)) void map2_strided(ThreadPool &pool, int64_t cost, F f, const View &out, const View &a,
                                            const View &b) {
  if constexpr (is_half<Ti>) return map2_blocks<To, Ti>(pool, cost, f, out, a, b);
  To *o = out.data<To>();
  const Ti *x = a.data<Ti>();
  const Ti *y = b.data<Ti>();
  const Layout<3> layout = make_layout<3>(out.rank, out.shape, {out.strides, a.strides, b.strides});
  const int64_t so = layout.inner_stride(0), sa = layout.inner_stride(1), sb = layout.inner_stride(2);
  parallel_for(pool, out.numel, cost, [&](int64_t begin, int64_t end) {
    walk(layout, begin, end, [&](const int64_t *off, int64_t n, int64_t) {
      To *po = o + off[0];
      const Ti *pa = x + off[1];
      const Ti *pb = y + off[2];
      if (so == 1 && sa == 1 && sb == 1) {
        for (int64_t i = 0; i < n; ++i) po[i] = narrow<To>(f(widen(pa[i]), widen(pb[i])));
      } else if (so == 1 && sa == 1 && sb == 0) {
        const auto vb = widen(*pb);
        for (int64_t i = 0; i < n; ++i) po[i] = narrow<To>(f(widen(pa[i]), vb));
      } else if (so == 1 && sa == 0 && sb == 1) {
        const auto va = widen(*pa);
        for (int64_t i = 0; i < n; ++i) po[i] = narrow<To>(f(va, widen(pb[i])));
      } else {
        for (int64_t i = 0; i < n; ++i) po[i * so] = narrow<To>(f(widen(pa[i * sa]), widen(pb[i * sb])));
      }
    });
  });
}

// out[i] = f(c[i], a[i], b[i]) with c of type Tc, any shape but one element (see map3).
template <class To, class Tc, class Ti, class F>
__attribute__((noinline)) void map3_strided(ThreadPool &pool, F f, const View &out, const View &c, const View &a,
                                            const View &b) {
  To *o = out.data<To>();
  const Tc *z = c.data<Tc>();
  const Ti *x = a.data<Ti>();
  const Ti *y = b.data<Ti>();
  const Layout<4> layout =
      make_layout<4>(out.rank, out.shape, {out.strides, c.strides, a.strides, b.strides});
  const int64_t so = layout.inner_stride(0), sc = layout.inner_stride(1), sa = layout.inner_stride(2),
                sb = layout.inner_stride(3);
  parallel_for(pool, out.numel, kCheap, [&](int64_t begin, int64_t end) {
    walk(layout, begin, end, [&](const int64_t *off, int64_t n, int64_t) {
      To *po = o + off[0];
      const Tc *pc = z + off[1];
      const Ti *pa = x + off[2];
      const Ti *pb = y + off[3];
      if (so == 1 && sc == 1 && sa == 1 && sb == 1) {
        for (int64_t i = 0; i < n; ++i) po[i] = f(pc[i], pa[i], pb[i]);
      } else {
        for (int64_t i = 0; i < n; ++i) po[i * so] = f(pc[i * sc], pa[i * sa], pb[i * sb]);
      }
    });
  });
}

// The entry points. One element (the scalar path) is computed right here:
// no layout, no pool, and none of the strided path's stack frame.
template <class To, class Ti, class F>
inline void map1(ThreadPool &pool, int64_t cost, F f, const View &out, const View &in) {
  if (out.numel == 1) *out.data<To>() = narrow<To>(f(widen(*in.data<Ti>())));
  else if (out.numel > 1) map1_strided<To, Ti>(pool, cost, f, out, in);
}

template <class To, class Ti, class F>
inline void map2(ThreadPool &pool, int64_t cost, F f, const View &out, const View &a, const View &b) {
  if (out.numel == 1) *out.data<To>() = narrow<To>(f(widen(*a.data<Ti>()), widen(*b.data<Ti>())));
  else if (out.numel > 1) map2_strided<To, Ti>(pool, cost, f, out, a, b);
}

template <class To, class Tc, class Ti, class F>
inline void map3(ThreadPool &pool, F f, const View &out, const View &c, const View &a, const View &b) {
  if (out.numel == 1) *out.data<To>() = f(*c.data<Tc>(), *a.data<Ti>(), *b.data<Ti>());
  else if (out.numel > 1) map3_strided<To, Tc, Ti>(pool, f, out, c, a, b);
}

// out[i] = f(i), i the C-order position (creation ops).
template <class To, class F>
void generate(ThreadPool &pool, int64_t cost, F f, const View &out) {
  To *o = out.data<To>();
  const Layout<1> layout = make_layout<1>(out.rank, out.shape, {out.strides});
  const int64_t so = layout.inner_stride(0);
  parallel_for(pool, out.numel, cost, [&](int64_t begin, int64_t end) {
    walk(layout, begin, end, [&](const int64_t *off, int64_t n, int64_t pos) {
      To *po = o + off[0];
      if (so == 1) {
        for (int64_t i = 0; i < n; ++i) po[i] = f(pos + i);
      } else {
        for (int64_t i = 0; i < n; ++i) po[i * so] = f(pos + i);
      }
    });
  });
}

}  // namespace cpu_backend
