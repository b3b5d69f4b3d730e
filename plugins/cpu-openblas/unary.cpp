// Unary operators (ISNAN and ISINF with a bool output) and COPY (conversion between any two dtypes): the
// functors of backplane/kernels/op_table.h driven by map1.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "backplane/kernels/elementwise.hpp"
#include "backplane/kernels/op_dispatch.hpp"
#include "backplane/kernels/op_table.h"
#include "dtype.hpp"
#include "kernels.hpp"
#include "map.hpp"
#include "small_types.hpp"
#include "unary_vector.hpp"

namespace cpu_backend {

namespace bk = bp_kernels;

namespace {

// Both views dense in the same order (a run per piece, straight between the
// buffers).
bool dense_pair(const View &in, const View &out) {
  const Layout<2> layout = make_layout<2>(out.rank, out.shape, {out.strides, in.strides});
  return layout.rank == 1 && layout.inner_stride(0) == 1 && layout.inner_stride(1) == 1;
}

// EXP and ERF of float32: unary_vector.hpp's runs, on every layout (a
// strided run through a buffer), so that a result never depends on the
// layout, and fused programs (fused_kernels.cpp) get the same bits.
template <int32_t op>
bool unary_vector_run(ThreadPool &pool, int64_t cost, const View &in, const View &out) {
  if constexpr (op == BP_OP_EXP || op == BP_OP_ERF) {
    if (out.dtype != BP_FLOAT32 || out.numel == 0) return false;
    const UnaryRunFn run = op == BP_OP_EXP ? unary_vector().exp : unary_vector().erf;
    if (out.numel == 1) {  // as map1's one element: no layout, no pool
      run(in.data<float>(), out.data<float>(), 1);
      return true;
    }
    const Layout<2> layout = make_layout<2>(out.rank, out.shape, {out.strides, in.strides});
    const int64_t so = layout.inner_stride(0), si = layout.inner_stride(1);
    float *o = out.data<float>();
    const float *x = in.data<float>();
    parallel_for(pool, out.numel, cost, [&](int64_t begin, int64_t end) {
      walk(layout, begin, end, [&](const int64_t *off, int64_t n, int64_t) {
        if (so == 1 && si == 1) return run(x + off[1], o + off[0], n);
        constexpr int64_t kRun = 256;
        float buf[kRun];
        for (int64_t b = 0; b < n; b += kRun) {
          const int64_t m = std::min(kRun, n - b);
          for (int64_t i = 0; i < m; ++i) buf[i] = x[off[1] + (b + i) * si];
          run(buf, buf, m);
          for (int64_t i = 0; i < m; ++i) o[off[0] + (b + i) * so] = buf[i];
        }
      });
    });
    return true;
  } else {
    (void)pool, (void)cost, (void)in, (void)out;
    return false;
  }
}

template <int32_t op, class F>
void unary(ThreadPool &pool, int64_t cost, const View &in, const View &out) {
  if (unary_vector_run<op>(pool, cost, in, out)) return;
  bk::dispatch_op<op>(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map1<T, T>(pool, cost, F{}, out, in);
  });
}

// ISNAN, ISINF: the input's dtype in, bool out.
template <int32_t op, class F>
void unary_bool(ThreadPool &pool, const View &in, const View &out) {
  bk::dispatch_op<op>(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map1<boolean, T>(pool, kCheap, F{}, out, in);
  });
}

// Same dtype, both views dense in the same order: memcpy per piece (libc's
// copy beats any loop), or nothing at all when copying onto itself. The
// views never overlap otherwise (plugin.h).
bool copy_dense(ThreadPool &pool, const View &in, const View &out) {
  if (in.dtype != out.dtype || out.numel <= 1 || !dense_pair(in, out)) return false;
  if (in.base == out.base) return true;
  const int64_t size = dtype_size(out.dtype);
  parallel_for(pool, out.numel, kCheap, [&](int64_t begin, int64_t end) {
    std::memcpy(out.base + begin * size, in.base + begin * size, static_cast<size_t>((end - begin) * size));
  });
  return true;
}

}  // namespace

void unary_kernel(ThreadPool &pool, int32_t op, const View &in, const View &out) {
  switch (op) {
#define BP_CPU_UNARY_(id, functor, cost, ...) \
  case BP_OP_##id: return unary<BP_OP_##id, bk::functor>(pool, k##cost, in, out);
    BP_KERNEL_UNARY_OPS(BP_CPU_UNARY_)
#undef BP_CPU_UNARY_
#define BP_CPU_UNARY_BOOL_(id, functor) \
  case BP_OP_##id: return unary_bool<BP_OP_##id, bk::functor>(pool, in, out);
    BP_KERNEL_UNARY_BOOL_OPS(BP_CPU_UNARY_BOOL_)
#undef BP_CPU_UNARY_BOOL_
    default: fail(BP_ERR_INTERNAL, "cpu-openblas: unary_kernel got op %d", op);
  }
}

namespace {

// float32 <-> a 16-bit float, both views dense in the same order: the
// vector conversion over each thread's piece, straight between the buffers.
template <class H>
bool convert_dense(ThreadPool &pool, const View &in, const View &out) {
  const bool widening = out.dtype == BP_FLOAT32 && in.dtype == dtype_of<H>::value;
  const bool narrowing = in.dtype == BP_FLOAT32 && out.dtype == dtype_of<H>::value;
  if ((!widening && !narrowing) || out.numel <= 1 || !dense_pair(in, out)) return false;
  const HalfConverters &c = converters();
  const bool f16 = std::is_same<H, float16>::value;
  parallel_for(pool, out.numel, kCheap, [&](int64_t begin, int64_t end) {
    if (widening) {
      const uint16_t *x = in.data<uint16_t>() + begin;
      (f16 ? c.f16_to_f32 : c.bf16_to_f32)(x, out.data<float>() + begin, end - begin);
    } else {
      (f16 ? c.f32_to_f16 : c.f32_to_bf16)(in.data<float>() + begin, out.data<uint16_t>() + begin, end - begin);
    }
  });
  return true;
}

}  // namespace

void copy_kernel(ThreadPool &pool, const View &in, const View &out) {
  if (copy_dense(pool, in, out) || convert_dense<float16>(pool, in, out) || convert_dense<bfloat16>(pool, in, out))
    return;
  dispatch_set<BP_DTYPE_SET_ALL>(out.dtype, [&](auto out_tag) {
    using To = typename decltype(out_tag)::type;
    dispatch_set<BP_DTYPE_SET_ALL>(in.dtype, [&](auto in_tag) {
      using Ti = typename decltype(in_tag)::type;
      // Into a 16-bit float from float32 or the other 16-bit float: one
      // rounding of an exact float32 value, the vector one.
      if constexpr (is_half<To> && (std::is_same<Ti, float>::value || is_half<Ti>))
        map1<To, Ti>(pool, kCheap, AsFloat{}, out, in);
      else
        map1<To, Ti>(pool, kCheap, Convert<To>{}, out, in);
    });
  });
}

}  // namespace cpu_backend
