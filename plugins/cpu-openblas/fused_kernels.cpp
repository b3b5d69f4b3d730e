#include "fused_kernels.hpp"

#include <type_traits>

#include "backplane/kernels/elementwise.hpp"
#include "backplane/kernels/op_dispatch.hpp"
#include "backplane/kernels/op_table.h"
#include "dtype.hpp"
#include "errors.hpp"
#include "fused_plan.hpp"
#include "half_block.hpp"
#include "small_types.hpp"
#include "unary_vector.hpp"

namespace cpu_backend {

namespace bk = bp_kernels;

namespace {

enum Side { kBothTiles, kScalarRhs, kScalarLhs };

// A tile of 16-bit floats converts through one block buffer.
static_assert(kFusedMaxTile <= kHalfBlock, "a fused tile fits a half block");

// d[i] = f(x[i], s) for i < n, each x widened and each result narrowed to
// D (no-ops for the 1.0 dtypes and for a block of floats).
template <class F, class D, class X, class S>
void scalar_rhs_loop(int64_t n, D *__restrict d, const X *__restrict x, S s) {
  const F f{};
  if constexpr (std::is_same<F, bk::Pow>::value && std::is_floating_point<S>::value) {
    // bp_fpow multiplies for the exponents 2 and 3; with the exponent
    // a constant the functor folds to those multiplies and the loop
    // vectorises, where a variable one keeps powf's call in the loop.
    if (s == S(2)) {
      for (int64_t i = 0; i < n; ++i) d[i] = narrow<D>(f(widen(x[i]), S(2)));
      return;
    }
    if (s == S(3)) {
      for (int64_t i = 0; i < n; ++i) d[i] = narrow<D>(f(widen(x[i]), S(3)));
      return;
    }
  }
  for (int64_t i = 0; i < n; ++i) d[i] = narrow<D>(f(widen(x[i]), s));
}

// Operands never overlap the destination (the plan gives every value its own
// buffer), so the pointers are restrict and gcc vectorises without checks.
// Elements compute as execute()'s maps compute them: widened to their
// compute type, the result narrowed once (small_types.hpp), a tile of
// 16-bit floats through the block conversions.
template <class To, class Ti, class F, int side>
void binary_loop(int64_t n, void *dst, const void *a, const void *b, const void *) {
  To *__restrict d = static_cast<To *>(dst);
  const Ti *__restrict x = static_cast<const Ti *>(a);
  const Ti *__restrict y = static_cast<const Ti *>(b);
  const F f{};
  if constexpr (is_half<Ti>) {
    BlockBuffers<float, decltype(f(0.0f, 0.0f))> buf;
    load_compute(x, side == kScalarLhs ? 0 : 1, n, buf.a);
    if constexpr (side == kScalarRhs) {
      scalar_rhs_loop<F>(n, buf.r, buf.a, widen(*y));
    } else {
      load_compute(y, 1, n, buf.b);
      for (int64_t i = 0; i < n; ++i) buf.r[i] = f(buf.a[i], buf.b[i]);
    }
    store_results(buf.r, n, d, 1);
  } else if constexpr (side == kScalarRhs) {
    scalar_rhs_loop<F>(n, d, x, widen(*y));
  } else if constexpr (side == kScalarLhs) {
    const compute_t<Ti> s = widen(*x);
    for (int64_t i = 0; i < n; ++i) d[i] = narrow<To>(f(s, widen(y[i])));
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] = narrow<To>(f(widen(x[i]), widen(y[i])));
  }
}

template <class To, class Ti, class F>
void unary_loop(int64_t n, void *dst, const void *a, const void *, const void *) {
  To *__restrict d = static_cast<To *>(dst);
  const Ti *__restrict x = static_cast<const Ti *>(a);
  const F f{};
  if constexpr (is_half<To> || is_half<Ti>) {
    BlockBuffers<compute_t<Ti>, decltype(f(compute_t<Ti>()))> buf;
    load_compute(x, 1, n, buf.a);
    for (int64_t i = 0; i < n; ++i) buf.r[i] = f(buf.a[i]);
    store_results(buf.r, n, d, 1);
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] = narrow<To>(f(widen(x[i])));
  }
}

// float32 EXP and ERF: the vector runs execute() takes (unary.cpp), for its bits.
template <int32_t op>
void vector_unary_loop(int64_t n, void *dst, const void *a, const void *, const void *) {
  (op == BP_OP_EXP ? unary_vector().exp : unary_vector().erf)(static_cast<const float *>(a), static_cast<float *>(dst), n);
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

// The loop of an operator of op_table.h: a binary one (output of the
// operands' dtype), a comparison (bool output), a unary one or a unary
// predicate (bool output).
enum class Form { Binary, Comparison, Unary, UnaryBool };

// Instantiated from op_table.h like elementwise.cpp's and unary.cpp's
// kernels, so a fused instruction runs exactly the functors execute()
// would, on the same types.
template <int32_t op, class F, Form form>
FusedKernel functor_loop(const bp_fused_instr &in) {
  FusedKernel k = nullptr;
  bk::dispatch_op<op>(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (form == Form::Unary && (op == BP_OP_EXP || op == BP_OP_ERF) && std::is_same<T, float>::value)
      k = vector_unary_loop<op>;
    else if constexpr (form == Form::Unary) k = unary_loop<T, T, F>;
    else if constexpr (form == Form::UnaryBool) k = unary_loop<boolean, T, F>;
    else k = with_side<std::conditional_t<form == Form::Comparison, boolean, T>, T, F>(in.scalar_mode);
  });
  return k;
}

FusedKernel conversion(const bp_fused_instr &in) {
  FusedKernel k = nullptr;
  dispatch_set<BP_DTYPE_SET_ALL>(in.out_dtype, [&](auto out_tag) {
    using To = typename decltype(out_tag)::type;
    dispatch_set<BP_DTYPE_SET_ALL>(in.dtype, [&](auto in_tag) {
      using Ti = typename decltype(in_tag)::type;
      // copy_kernel's choice: float32 or a 16-bit float into a 16-bit float
      // is one rounding of an exact float32 value, the others Convert.
      if constexpr (is_half<To> && (std::is_same<Ti, float>::value || is_half<Ti>))
        k = unary_loop<To, Ti, AsFloat>;
      else
        k = unary_loop<To, Ti, Convert<To>>;
    });
  });
  return k;
}

FusedKernel where(const bp_fused_instr &in) {
  FusedKernel k = nullptr;
  dispatch_set<BP_DTYPE_SET_ALL>(in.dtype, [&](auto tag) { k = where_loop<typename decltype(tag)::type>; });
  return k;
}

}  // namespace

FusedKernel fused_kernel(const bp_fused_instr &in) {
  switch (in.op) {
#define BP_CPU_FUSED_BINARY_(id, functor, ...) \
  case BP_OP_##id: return functor_loop<BP_OP_##id, bk::functor, Form::Binary>(in);
    BP_KERNEL_BINARY_OPS(BP_CPU_FUSED_BINARY_)
#undef BP_CPU_FUSED_BINARY_
#define BP_CPU_FUSED_COMPARE_(id, functor) \
  case BP_OP_##id: return functor_loop<BP_OP_##id, bk::functor, Form::Comparison>(in);
    BP_KERNEL_COMPARE_OPS(BP_CPU_FUSED_COMPARE_)
#undef BP_CPU_FUSED_COMPARE_
#define BP_CPU_FUSED_UNARY_(id, functor, ...) \
  case BP_OP_##id: return functor_loop<BP_OP_##id, bk::functor, Form::Unary>(in);
    BP_KERNEL_UNARY_OPS(BP_CPU_FUSED_UNARY_)
#undef BP_CPU_FUSED_UNARY_
#define BP_CPU_FUSED_UNARY_BOOL_(id, functor) \
  case BP_OP_##id: return functor_loop<BP_OP_##id, bk::functor, Form::UnaryBool>(in);
    BP_KERNEL_UNARY_BOOL_OPS(BP_CPU_FUSED_UNARY_BOOL_)
#undef BP_CPU_FUSED_UNARY_BOOL_
    case BP_OP_WHERE: return where(in);
    case BP_OP_COPY: return conversion(in);
  }
  fail(BP_ERR_UNSUPPORTED, "cpu-openblas: no fused loop for %s", bp_plugin::op_name(in.op));
}

void fused_scalar(const bp_fused_instr &in, void *storage) {
  dispatch_set<BP_DTYPE_SET_ALL>(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    *static_cast<T *>(storage) = from_double<T>(in.scalar);
  });
}

}  // namespace cpu_backend
