// Unary operators and COPY (conversion between any two dtypes): the
// functors of backplane_kernels/elementwise.hpp driven by map1.
#include <cstring>

#include "backplane_kernels/elementwise.hpp"
#include "dtype.hpp"
#include "kernels.hpp"
#include "map.hpp"

namespace cpu_backend {

namespace bk = bp_kernels;

namespace {

template <class F, class... Ts>
void unary(ThreadPool &pool, int64_t cost, const View &in, const View &out) {
  dispatch<Ts...>(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map1<T, T>(pool, cost, F{}, out, in);
  });
}

// Same dtype, both views dense in the same order: memcpy per piece (libc's
// copy beats any loop), or nothing at all when copying onto itself. The
// views never overlap otherwise (plugin.h).
bool copy_dense(ThreadPool &pool, const View &in, const View &out) {
  if (in.dtype != out.dtype || out.numel <= 1) return false;
  const Layout<2> layout = make_layout<2>(out.rank, out.shape, {out.strides, in.strides});
  if (layout.rank != 1 || layout.inner_stride(0) != 1 || layout.inner_stride(1) != 1) return false;
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
    case BP_OP_NEG: return unary<bk::Neg, BP_NUMERIC_TYPES>(pool, kCheap, in, out);
    case BP_OP_ABS: return unary<bk::Abs, BP_NUMERIC_TYPES>(pool, kCheap, in, out);
    case BP_OP_EXP: return unary<bk::Exp, BP_FLOAT_TYPES>(pool, kTranscendental, in, out);
    case BP_OP_LOG: return unary<bk::Log, BP_FLOAT_TYPES>(pool, kTranscendental, in, out);
    case BP_OP_SQRT: return unary<bk::Sqrt, BP_FLOAT_TYPES>(pool, kCheap, in, out);
    case BP_OP_TANH: return unary<bk::Tanh, BP_FLOAT_TYPES>(pool, kTranscendental, in, out);
    case BP_OP_SIGMOID: return unary<bk::Sigmoid, BP_FLOAT_TYPES>(pool, kTranscendental, in, out);
    case BP_OP_RELU: return unary<bk::Relu, BP_NUMERIC_TYPES>(pool, kCheap, in, out);
    case BP_OP_SQUARE: return unary<bk::Square, BP_NUMERIC_TYPES>(pool, kCheap, in, out);
    case BP_OP_SIN: return unary<bk::Sin, BP_FLOAT_TYPES>(pool, kTranscendental, in, out);
    case BP_OP_COS: return unary<bk::Cos, BP_FLOAT_TYPES>(pool, kTranscendental, in, out);
    case BP_OP_BITWISE_NOT: return unary<bk::BitwiseNot, BP_INTEGRAL_TYPES>(pool, kCheap, in, out);
    default: fail(BP_ERR_INTERNAL, "cpu-openblas: unary_kernel got op %d", op);
  }
}

void copy_kernel(ThreadPool &pool, const View &in, const View &out) {
  if (copy_dense(pool, in, out)) return;
  dispatch<BP_ALL_TYPES>(out.dtype, [&](auto out_tag) {
    using To = typename decltype(out_tag)::type;
    dispatch<BP_ALL_TYPES>(in.dtype, [&](auto in_tag) {
      using Ti = typename decltype(in_tag)::type;
      map1<To, Ti>(pool, kCheap, bk::Cast<To>{}, out, in);
    });
  });
}

}  // namespace cpu_backend
