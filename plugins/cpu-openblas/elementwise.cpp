// Binary operators, comparisons and WHERE: the functors of
// backplane/kernels/op_table.h driven by map2/map3.
#include <type_traits>

#include "backplane/kernels/elementwise.hpp"
#include "backplane/kernels/op_dispatch.hpp"
#include "backplane/kernels/op_table.h"

#include "dtype.hpp"
#include "half_convert.hpp"
#include "kernels.hpp"
#include "map.hpp"

namespace cpu_backend {

namespace bk = bp_kernels;

namespace {

// ADD, SUB, MUL and DIV of contiguous 16-bit floats: the fused vector
// kernels of half_convert.hpp over each thread's piece. False for any
// other case, which the blocks of map2 compute.
template <class F>
bool half_binary_dense(ThreadPool &pool, const View &a, const View &b, const View &out) {
  constexpr int op = std::is_same<F, bk::Add>::value   ? kHalfAdd
                     : std::is_same<F, bk::Sub>::value ? kHalfSub
                     : std::is_same<F, bk::Mul>::value ? kHalfMul
                     : std::is_same<F, bk::Div>::value ? kHalfDiv
                                                       : -1;
  if constexpr (op < 0) {
    return false;
  } else {
    if (out.dtype != BP_FLOAT16 && out.dtype != BP_BFLOAT16) return false;
    const Layout<3> layout = make_layout<3>(out.rank, out.shape, {out.strides, a.strides, b.strides});
    if (layout.rank != 1 || layout.inner_stride(0) != 1 || layout.inner_stride(1) != 1 || layout.inner_stride(2) != 1)
      return false;
    const HalfBinaryFn fn = out.dtype == BP_FLOAT16 ? converters().f16_binary[op] : converters().bf16_binary[op];
    const uint16_t *x = a.data<uint16_t>(), *y = b.data<uint16_t>();
    uint16_t *z = out.data<uint16_t>();
    parallel_for(pool, out.numel, kCheap, [&](int64_t begin, int64_t end) { fn(x + begin, y + begin, z + begin, end - begin); });
    return true;
  }
}

// Inputs and output of one dtype.
template <int32_t op, class F>
void same_dtype(ThreadPool &pool, int64_t cost, const View &a, const View &b, const View &out) {
  if (half_binary_dense<F>(pool, a, b, out)) return;
  bk::dispatch_op<op>(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map2<T, T>(pool, cost, F{}, out, a, b);
  });
}

// Inputs of any dtype, bool output.
template <int32_t op, class F>
void comparison(ThreadPool &pool, const View &a, const View &b, const View &out) {
  bk::dispatch_op<op>(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map2<boolean, T>(pool, kCheap, F{}, out, a, b);
  });
}

}  // namespace

void binary_kernel(ThreadPool &pool, int32_t op, const View &a, const View &b, const View &out) {
  switch (op) {
#define BP_CPU_BINARY_(id, functor, cost, ...) \
  case BP_OP_##id: return same_dtype<BP_OP_##id, bk::functor>(pool, k##cost, a, b, out);
    BP_KERNEL_BINARY_OPS(BP_CPU_BINARY_)
#undef BP_CPU_BINARY_
#define BP_CPU_COMPARE_(id, functor) \
  case BP_OP_##id: return comparison<BP_OP_##id, bk::functor>(pool, a, b, out);
    BP_KERNEL_COMPARE_OPS(BP_CPU_COMPARE_)
#undef BP_CPU_COMPARE_
    default: fail(BP_ERR_INTERNAL, "cpu-openblas: binary_kernel got op %d", op);
  }
}

void where_kernel(ThreadPool &pool, const View &cond, const View &a, const View &b, const View &out) {
  dispatch_set<BP_DTYPE_SET_ALL>(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map3<T, boolean, T>(pool, bk::Where{}, out, cond, a, b);
  });
}

}  // namespace cpu_backend
