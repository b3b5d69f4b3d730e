#include "fused_pairs.hpp"

#include <array>
#include <cstddef>
#include <tuple>
#include <utility>

#include "backplane_kernels/elementwise.hpp"

namespace cpu_backend {

namespace bk = bp_kernels;

namespace {

enum Side { kUnary, kScalarRhs, kScalarLhs };

// One instruction applied to one element; `exponent` fixes POW's scalar (2
// or 3) so that fmath::pow folds to its multiplies.
template <class F, int side, int exponent = 0>
struct Stage {
  template <class T>
  static T apply(T v, [[maybe_unused]] T s) {
    if constexpr (side == kUnary) return F{}(v);
    else if constexpr (exponent != 0) return F{}(v, T(exponent));
    else if constexpr (side == kScalarRhs) return F{}(v, s);
    else return F{}(s, v);
  }
};

// No NEG or ABS: gcc folds a sign operation into its neighbour ((-x) + s
// into s - x, |x| * |x| into x * x), exact but for the sign of a NaN, which
// execute()'s stored intermediate keeps.
using Stages = std::tuple<
    Stage<bk::Add, kScalarRhs>, Stage<bk::Sub, kScalarRhs>, Stage<bk::Mul, kScalarRhs>, Stage<bk::Div, kScalarRhs>,
    Stage<bk::Maximum, kScalarRhs>, Stage<bk::Minimum, kScalarRhs>, Stage<bk::Pow, kScalarRhs, 2>,
    Stage<bk::Pow, kScalarRhs, 3>, Stage<bk::Add, kScalarLhs>, Stage<bk::Sub, kScalarLhs>,
    Stage<bk::Mul, kScalarLhs>, Stage<bk::Div, kScalarLhs>, Stage<bk::Square, kUnary>, Stage<bk::Relu, kUnary>>;
constexpr size_t kStages = std::tuple_size<Stages>::value;

// Stages' index of an instruction, or -1.
int stage_of(const bp_fused_instr &in) {
  const int rhs = in.scalar_mode == BP_SCALAR_RHS, lhs = in.scalar_mode == BP_SCALAR_LHS;
  switch (in.op) {
    case BP_OP_ADD: return rhs ? 0 : lhs ? 8 : -1;
    case BP_OP_SUB: return rhs ? 1 : lhs ? 9 : -1;
    case BP_OP_MUL: return rhs ? 2 : lhs ? 10 : -1;
    case BP_OP_DIV: return rhs ? 3 : lhs ? 11 : -1;
    case BP_OP_MAXIMUM: return rhs ? 4 : -1;
    case BP_OP_MINIMUM: return rhs ? 5 : -1;
    case BP_OP_POW: {
      if (!rhs) return -1;
      // The exponent as execute() sees it: converted to the dtype first.
      alignas(8) unsigned char scalar[8];
      fused_scalar(in, scalar);
      const double e = in.dtype == BP_FLOAT32 ? double(*reinterpret_cast<const float *>(scalar))
                                              : *reinterpret_cast<const double *>(scalar);
      return e == 2.0 ? 6 : e == 3.0 ? 7 : -1;
    }
    case BP_OP_SQUARE: return 12;
    case BP_OP_RELU: return 13;
    default: return -1;
  }
}

template <class T, class First, class Second>
void pair_loop(int64_t n, void *dst, const void *a, const void *b, const void *c) {
  T *__restrict d = static_cast<T *>(dst);
  const T *__restrict x = static_cast<const T *>(a);
  const T s1 = *static_cast<const T *>(b), s2 = *static_cast<const T *>(c);
  for (int64_t i = 0; i < n; ++i) d[i] = Second::apply(First::apply(x[i], s1), s2);
}

using Table = std::array<std::array<FusedKernel, kStages>, kStages>;

template <class T, size_t First, size_t... Second>
constexpr std::array<FusedKernel, kStages> row(std::index_sequence<Second...>) {
  return {{pair_loop<T, std::tuple_element_t<First, Stages>, std::tuple_element_t<Second, Stages>>...}};
}

template <class T, size_t... First>
constexpr Table table(std::index_sequence<First...>) {
  return {{row<T, First>(std::make_index_sequence<kStages>{})...}};
}

constexpr Table kFloat32 = table<float>(std::make_index_sequence<kStages>{});
constexpr Table kFloat64 = table<double>(std::make_index_sequence<kStages>{});

}  // namespace

FusedKernel fused_pair_kernel(const bp_fused_instr &first, const bp_fused_instr &second) {
  if (first.dtype != second.dtype || first.out_dtype != first.dtype || second.out_dtype != second.dtype) return nullptr;
  if (first.dtype != BP_FLOAT32 && first.dtype != BP_FLOAT64) return nullptr;
  const int a = stage_of(first), b = stage_of(second);
  if (a < 0 || b < 0) return nullptr;
  return (first.dtype == BP_FLOAT32 ? kFloat32 : kFloat64)[size_t(a)][size_t(b)];
}

}  // namespace cpu_backend
