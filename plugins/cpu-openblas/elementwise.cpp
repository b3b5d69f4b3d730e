// Binary operators, comparisons and WHERE: the functors of
// backplane_kernels/elementwise.hpp driven by map2/map3.
#include "backplane_kernels/elementwise.hpp"

#include "dtype.hpp"
#include "kernels.hpp"
#include "map.hpp"

namespace cpu_backend {

namespace bk = bp_kernels;

namespace {

// Inputs and output of one dtype.
template <class F, class... Ts>
void same_dtype(ThreadPool &pool, int64_t cost, const View &a, const View &b, const View &out) {
  dispatch<Ts...>(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map2<T, T>(pool, cost, F{}, out, a, b);
  });
}

// Inputs of any dtype, bool output.
template <class F>
void comparison(ThreadPool &pool, const View &a, const View &b, const View &out) {
  dispatch<CPU_ALL_TYPES>(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map2<boolean, T>(pool, kCheap, F{}, out, a, b);
  });
}

}  // namespace

void binary_kernel(ThreadPool &pool, int32_t op, const View &a, const View &b, const View &out) {
  switch (op) {
    case BP_OP_ADD: return same_dtype<bk::Add, CPU_NUMERIC_TYPES>(pool, kCheap, a, b, out);
    case BP_OP_SUB: return same_dtype<bk::Sub, CPU_NUMERIC_TYPES>(pool, kCheap, a, b, out);
    case BP_OP_MUL: return same_dtype<bk::Mul, CPU_NUMERIC_TYPES>(pool, kCheap, a, b, out);
    case BP_OP_DIV: return same_dtype<bk::Div, CPU_FLOAT_TYPES>(pool, kCheap, a, b, out);
    case BP_OP_POW: return same_dtype<bk::Pow, CPU_NUMERIC_TYPES>(pool, kTranscendental, a, b, out);
    case BP_OP_MAXIMUM: return same_dtype<bk::Maximum, CPU_NUMERIC_TYPES>(pool, kCheap, a, b, out);
    case BP_OP_MINIMUM: return same_dtype<bk::Minimum, CPU_NUMERIC_TYPES>(pool, kCheap, a, b, out);
    case BP_OP_FLOOR_DIVIDE: return same_dtype<bk::FloorDivide, CPU_NUMERIC_TYPES>(pool, kCheap, a, b, out);
    case BP_OP_REMAINDER: return same_dtype<bk::Remainder, CPU_NUMERIC_TYPES>(pool, kCheap, a, b, out);
    case BP_OP_BITWISE_AND: return same_dtype<bk::BitwiseAnd, CPU_INTEGRAL_TYPES>(pool, kCheap, a, b, out);
    case BP_OP_BITWISE_OR: return same_dtype<bk::BitwiseOr, CPU_INTEGRAL_TYPES>(pool, kCheap, a, b, out);
    case BP_OP_BITWISE_XOR: return same_dtype<bk::BitwiseXor, CPU_INTEGRAL_TYPES>(pool, kCheap, a, b, out);
    case BP_OP_EQ: return comparison<bk::Eq>(pool, a, b, out);
    case BP_OP_NE: return comparison<bk::Ne>(pool, a, b, out);
    case BP_OP_LT: return comparison<bk::Lt>(pool, a, b, out);
    case BP_OP_LE: return comparison<bk::Le>(pool, a, b, out);
    case BP_OP_GT: return comparison<bk::Gt>(pool, a, b, out);
    case BP_OP_GE: return comparison<bk::Ge>(pool, a, b, out);
    default: fail(BP_ERR_INTERNAL, "cpu-openblas: binary_kernel got op %d", op);
  }
}

void where_kernel(ThreadPool &pool, const View &cond, const View &a, const View &b, const View &out) {
  dispatch<CPU_ALL_TYPES>(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    map3<T, boolean, T>(pool, bk::Where{}, out, cond, a, b);
  });
}

}  // namespace cpu_backend
