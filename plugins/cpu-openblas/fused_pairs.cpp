#include "fused_pairs.hpp"

#include <array>
#include <cstddef>
#include <tuple>
#include <utility>

#include "backplane/kernels/op_dispatch.hpp"

namespace cpu_backend {

namespace bk = bp_kernels;

namespace {

enum Side { kUnary, kScalarRhs, kScalarLhs };

// One instruction applied to one element: op_table.h's functor of `op`;
// `exponent` fixes POW's scalar (2 or 3) so that bp_fpow folds to its
// multiplies.
template <int32_t op_, int side_, int exponent_ = 0>
struct Stage {
  static constexpr int32_t op = op_;
  static constexpr int side = side_, exponent = exponent_;
  template <class T>
  static T apply(T v, [[maybe_unused]] T s) {
    const bk::functor_of<op> f{};
    if constexpr (side == kUnary) return f(v);
    else if constexpr (exponent != 0) return f(v, T(exponent));
    else if constexpr (side == kScalarRhs) return f(v, s);
    else return f(s, v);
  }
};

// No NEG or ABS: gcc folds a sign operation into its neighbour ((-x) + s
// into s - x, |x| * |x| into x * x), exact but for the sign of a NaN, which
// execute()'s stored intermediate keeps.
using Stages = std::tuple<
    Stage<BP_OP_ADD, kScalarRhs>, Stage<BP_OP_SUB, kScalarRhs>, Stage<BP_OP_MUL, kScalarRhs>,
    Stage<BP_OP_DIV, kScalarRhs>, Stage<BP_OP_MAXIMUM, kScalarRhs>, Stage<BP_OP_MINIMUM, kScalarRhs>,
    Stage<BP_OP_POW, kScalarRhs, 2>, Stage<BP_OP_POW, kScalarRhs, 3>, Stage<BP_OP_ADD, kScalarLhs>,
    Stage<BP_OP_SUB, kScalarLhs>, Stage<BP_OP_MUL, kScalarLhs>, Stage<BP_OP_DIV, kScalarLhs>,
    Stage<BP_OP_SQUARE, kUnary>, Stage<BP_OP_RELU, kUnary>>;
constexpr size_t kStages = std::tuple_size<Stages>::value;

struct StageKey {
  int32_t op;
  int side, exponent;
};

template <size_t... I>
constexpr std::array<StageKey, kStages> stage_keys(std::index_sequence<I...>) {
  return {{StageKey{std::tuple_element_t<I, Stages>::op, std::tuple_element_t<I, Stages>::side,
                    std::tuple_element_t<I, Stages>::exponent}...}};
}
constexpr std::array<StageKey, kStages> kStageKeys = stage_keys(std::make_index_sequence<kStages>{});

// POW's exponent as execute() sees it (converted to the dtype first): 2 or
// 3, else -1 (no stage).
int pow_exponent(const bp_fused_instr &in) {
  alignas(8) unsigned char scalar[8];
  fused_scalar(in, scalar);
  const double e = in.dtype == BP_FLOAT32 ? double(*reinterpret_cast<const float *>(scalar))
                                          : *reinterpret_cast<const double *>(scalar);
  return e == 2.0 ? 2 : e == 3.0 ? 3 : -1;
}

// Stages' index of an instruction, or -1.
int stage_of(const bp_fused_instr &in) {
  const int side = in.scalar_mode == BP_SCALAR_RHS ? kScalarRhs : in.scalar_mode == BP_SCALAR_LHS ? kScalarLhs : kUnary;
  const int exponent = in.op == BP_OP_POW && side == kScalarRhs ? pow_exponent(in) : 0;
  for (size_t i = 0; i < kStages; ++i)
    if (kStageKeys[i].op == in.op && kStageKeys[i].side == side && kStageKeys[i].exponent == exponent)
      return int(i);
  return -1;
}

template <class T, class First, class Second>
inline __attribute__((always_inline)) void pair_body(int64_t n, void *dst, const void *a, const void *b,
                                                     const void *c) {
  T *__restrict d = static_cast<T *>(dst);
  const T *__restrict x = static_cast<const T *>(a);
  const T s1 = *static_cast<const T *>(b), s2 = *static_cast<const T *>(c);
  for (int64_t i = 0; i < n; ++i) d[i] = Second::apply(First::apply(x[i], s1), s2);
}

template <class T, class First, class Second>
void pair_loop(int64_t n, void *dst, const void *a, const void *b, const void *c) {
  pair_body<T, First, Second>(n, dst, a, b, c);
}

// The same loop compiled for AVX-512, picked at run time where the CPU has
// it: the same operations on each element, so the same bits
// (-ffp-contract=off keeps multiply-adds apart), 16 lanes wide. (GCC's
// target_clones would pick it by itself, but its load-time resolver
// crashes under ThreadSanitizer.)
template <class T, class First, class Second>
__attribute__((target("avx512f"))) void pair_loop_avx512(int64_t n, void *dst, const void *a, const void *b,
                                                         const void *c) {
  pair_body<T, First, Second>(n, dst, a, b, c);
}

using Table = std::array<std::array<FusedKernel, kStages>, kStages>;

template <class T, bool avx512, size_t First, size_t... Second>
constexpr std::array<FusedKernel, kStages> row(std::index_sequence<Second...>) {
  if constexpr (avx512)
    return {{pair_loop_avx512<T, std::tuple_element_t<First, Stages>, std::tuple_element_t<Second, Stages>>...}};
  else
    return {{pair_loop<T, std::tuple_element_t<First, Stages>, std::tuple_element_t<Second, Stages>>...}};
}

template <class T, bool avx512, size_t... First>
constexpr Table table(std::index_sequence<First...>) {
  return {{row<T, avx512, First>(std::make_index_sequence<kStages>{})...}};
}

constexpr Table kFloat32 = table<float, false>(std::make_index_sequence<kStages>{});
constexpr Table kFloat64 = table<double, false>(std::make_index_sequence<kStages>{});
constexpr Table kFloat32Avx512 = table<float, true>(std::make_index_sequence<kStages>{});
constexpr Table kFloat64Avx512 = table<double, true>(std::make_index_sequence<kStages>{});

}  // namespace

FusedKernel fused_pair_kernel(const bp_fused_instr &first, const bp_fused_instr &second) {
  if (first.dtype != second.dtype || first.out_dtype != first.dtype || second.out_dtype != second.dtype) return nullptr;
  if (first.dtype != BP_FLOAT32 && first.dtype != BP_FLOAT64) return nullptr;
  const int a = stage_of(first), b = stage_of(second);
  if (a < 0 || b < 0) return nullptr;
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  const Table &t = first.dtype == BP_FLOAT32 ? (avx512 ? kFloat32Avx512 : kFloat32)
                                             : (avx512 ? kFloat64Avx512 : kFloat64);
  return t[size_t(a)][size_t(b)];
}

}  // namespace cpu_backend
