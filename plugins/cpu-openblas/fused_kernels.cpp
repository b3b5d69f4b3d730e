#include "fused_kernels.hpp"

#include <type_traits>

#include "backplane_kernels/elementwise.hpp"
#include "dtype.hpp"
#include "errors.hpp"

namespace cpu_backend {

namespace bk = bp_kernels;

namespace {

enum Side { kBothTiles, kScalarRhs, kScalarLhs };

// Operands never overlap the destination (the plan gives every value its own
// buffer), so the pointers are restrict and gcc vectorises without checks.
template <class To, class Ti, class F, int side>
void binary_loop(int64_t n, void *dst, const void *a, const void *b, const void *) {
  To *__restrict d = static_cast<To *>(dst);
  const Ti *__restrict x = static_cast<const Ti *>(a);
  const Ti *__restrict y = static_cast<const Ti *>(b);
  const F f{};
  if constexpr (side == kScalarRhs) {
    const Ti s = *y;
    if constexpr (std::is_same<F, bk::Pow>::value && std::is_floating_point<Ti>::value) {
      // fmath::pow multiplies for the exponents 2 and 3; with the exponent
      // a constant the functor folds to those multiplies and the loop
      // vectorises, where a variable one keeps powf's call in the loop.
      if (s == Ti(2)) {
        for (int64_t i = 0; i < n; ++i) d[i] = f(x[i], Ti(2));
        return;
      }
      if (s == Ti(3)) {
        for (int64_t i = 0; i < n; ++i) d[i] = f(x[i], Ti(3));
        return;
      }
    }
    for (int64_t i = 0; i < n; ++i) d[i] = f(x[i], s);
  } else if constexpr (side == kScalarLhs) {
    const Ti s = *x;
    for (int64_t i = 0; i < n; ++i) d[i] = f(s, y[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] = f(x[i], y[i]);
  }
}

template <class To, class Ti, class F>
void unary_loop(int64_t n, void *dst, const void *a, const void *, const void *) {
  To *__restrict d = static_cast<To *>(dst);
  const Ti *__restrict x = static_cast<const Ti *>(a);
  const F f{};
  for (int64_t i = 0; i < n; ++i) d[i] = f(x[i]);
}

template <class T>
void where_loop(int64_t n, void *dst, const void *a, const void *b, const void *c) {
  T *__restrict d = static_cast<T *>(dst);
  const boolean *__restrict cond = static_cast<const boolean *>(a);
  const T *__restrict x = static_cast<const T *>(b);
  const T *__restrict y = static_cast<const T *>(c);
  const bk::Where f{};
  for (int64_t i = 0; i < n; ++i) d[i] = f(cond[i], x[i], y[i]);
}

template <class To, class Ti, class F>
FusedKernel with_side(int32_t scalar_mode) {
  switch (scalar_mode) {
    case BP_SCALAR_RHS: return binary_loop<To, Ti, F, kScalarRhs>;
    case BP_SCALAR_LHS: return binary_loop<To, Ti, F, kScalarLhs>;
    default: return binary_loop<To, Ti, F, kBothTiles>;
  }
}

// The dtype lists are elementwise.cpp's and unary.cpp's, so a fused
// instruction runs exactly the instantiations execute() would.
template <class F, class... Ts>
FusedKernel same_dtype(const bp_fused_instr &in) {
  FusedKernel k = nullptr;
  dispatch<Ts...>(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    k = with_side<T, T, F>(in.scalar_mode);
  });
  return k;
}

template <class F>
FusedKernel comparison(const bp_fused_instr &in) {
  FusedKernel k = nullptr;
  dispatch<BP_ALL_TYPES>(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    k = with_side<boolean, T, F>(in.scalar_mode);
  });
  return k;
}

template <class F, class... Ts>
FusedKernel unary(const bp_fused_instr &in) {
  FusedKernel k = nullptr;
  dispatch<Ts...>(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    k = unary_loop<T, T, F>;
  });
  return k;
}

FusedKernel conversion(const bp_fused_instr &in) {
  FusedKernel k = nullptr;
  dispatch<BP_ALL_TYPES>(in.out_dtype, [&](auto out_tag) {
    using To = typename decltype(out_tag)::type;
    dispatch<BP_ALL_TYPES>(in.dtype, [&](auto in_tag) {
      using Ti = typename decltype(in_tag)::type;
      k = unary_loop<To, Ti, bk::Cast<To>>;
    });
  });
  return k;
}

FusedKernel where(const bp_fused_instr &in) {
  FusedKernel k = nullptr;
  dispatch<BP_ALL_TYPES>(in.dtype, [&](auto tag) { k = where_loop<typename decltype(tag)::type>; });
  return k;
}

}  // namespace

FusedKernel fused_kernel(const bp_fused_instr &in) {
  switch (in.op) {
    case BP_OP_ADD: return same_dtype<bk::Add, BP_NUMERIC_TYPES>(in);
    case BP_OP_SUB: return same_dtype<bk::Sub, BP_NUMERIC_TYPES>(in);
    case BP_OP_MUL: return same_dtype<bk::Mul, BP_NUMERIC_TYPES>(in);
    case BP_OP_DIV: return same_dtype<bk::Div, BP_FLOAT_TYPES>(in);
    case BP_OP_POW: return same_dtype<bk::Pow, BP_NUMERIC_TYPES>(in);
    case BP_OP_MAXIMUM: return same_dtype<bk::Maximum, BP_NUMERIC_TYPES>(in);
    case BP_OP_MINIMUM: return same_dtype<bk::Minimum, BP_NUMERIC_TYPES>(in);
    case BP_OP_FLOOR_DIVIDE: return same_dtype<bk::FloorDivide, BP_NUMERIC_TYPES>(in);
    case BP_OP_REMAINDER: return same_dtype<bk::Remainder, BP_NUMERIC_TYPES>(in);
    case BP_OP_BITWISE_AND: return same_dtype<bk::BitwiseAnd, BP_INTEGRAL_TYPES>(in);
    case BP_OP_BITWISE_OR: return same_dtype<bk::BitwiseOr, BP_INTEGRAL_TYPES>(in);
    case BP_OP_BITWISE_XOR: return same_dtype<bk::BitwiseXor, BP_INTEGRAL_TYPES>(in);
    case BP_OP_EQ: return comparison<bk::Eq>(in);
    case BP_OP_NE: return comparison<bk::Ne>(in);
    case BP_OP_LT: return comparison<bk::Lt>(in);
    case BP_OP_LE: return comparison<bk::Le>(in);
    case BP_OP_GT: return comparison<bk::Gt>(in);
    case BP_OP_GE: return comparison<bk::Ge>(in);
    case BP_OP_WHERE: return where(in);
    case BP_OP_NEG: return unary<bk::Neg, BP_NUMERIC_TYPES>(in);
    case BP_OP_ABS: return unary<bk::Abs, BP_NUMERIC_TYPES>(in);
    case BP_OP_EXP: return unary<bk::Exp, BP_FLOAT_TYPES>(in);
    case BP_OP_LOG: return unary<bk::Log, BP_FLOAT_TYPES>(in);
    case BP_OP_SQRT: return unary<bk::Sqrt, BP_FLOAT_TYPES>(in);
    case BP_OP_TANH: return unary<bk::Tanh, BP_FLOAT_TYPES>(in);
    case BP_OP_SIGMOID: return unary<bk::Sigmoid, BP_FLOAT_TYPES>(in);
    case BP_OP_RELU: return unary<bk::Relu, BP_NUMERIC_TYPES>(in);
    case BP_OP_SQUARE: return unary<bk::Square, BP_NUMERIC_TYPES>(in);
    case BP_OP_SIN: return unary<bk::Sin, BP_FLOAT_TYPES>(in);
    case BP_OP_COS: return unary<bk::Cos, BP_FLOAT_TYPES>(in);
    case BP_OP_BITWISE_NOT: return unary<bk::BitwiseNot, BP_INTEGRAL_TYPES>(in);
    case BP_OP_COPY: return conversion(in);
  }
  fail(BP_ERR_UNSUPPORTED, "cpu-openblas: no fused loop for %s", bp_plugin::op_name(in.op));
}

void fused_scalar(const bp_fused_instr &in, void *storage) {
  dispatch<BP_ALL_TYPES>(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    *static_cast<T *>(storage) = bk::Cast<T>()(in.scalar);
  });
}

}  // namespace cpu_backend
