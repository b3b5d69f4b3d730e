// The reducer (and CUMSUM scanner) each dtype runs: the SDK kernels'
// own for the 1.0 dtypes; for the 8- and 16-bit ones a reducer of their
// compute type behind an adapter that widens every element and converts the
// finished value once (plugin.h: the halves accumulate in float32 or wider
// and round once at the end, small integers sum and multiply into int64).
#pragma once

#include <cstdint>
#include <type_traits>

#include "backplane/kernels/reduce.hpp"
#include "backplane/kernels/scan.hpp"
#include "narrow_types.hpp"

namespace bp_cuda {

// Red over Red::in_t, fed elements of T and finishing into Out (Convert:
// from a float64 sum to a half, one rounding).
template <class Red, class T, class Out>
struct Widened {
  using in_t = T;
  using acc_t = typename Red::acc_t;
  using out_t = Out;
  BP_HD static acc_t init() { return Red::init(); }
  BP_HD static acc_t step(acc_t a, T x, int64_t pos) {
    return Red::step(a, static_cast<typename Red::in_t>(widen(x)), pos);
  }
  BP_HD static acc_t merge(acc_t a, acc_t b) { return Red::merge(a, b); }
  BP_HD static out_t finish(acc_t a, int64_t count) { return Convert<Out>()(Red::finish(a, count)); }
};

// Sums, products and the float-only reductions: the halves in float64 (the
// accumulators of float64), the small integers in int64's.
template <template <class> class Red, class T>
using sum_like_t = std::conditional_t<
    is_half<T>, Widened<Red<double>, T, T>,
    std::conditional_t<is_small_int<T>, Widened<Red<int64_t>, T, int64_t>, Red<T>>>;

// MAX and MIN: in the compute type, the result narrowed back (exactly).
template <template <class> class Red, class T>
using extreme_t = std::conditional_t<is_narrow<T>, Widened<Red<compute_t<T>>, T, T>, Red<T>>;

// ARGMAX and ARGMIN: in the compute type, an int64 position out.
template <template <class> class Red, class T>
using arg_t = std::conditional_t<is_narrow<T>, Widened<Red<compute_t<T>>, T, int64_t>, Red<T>>;

}  // namespace bp_cuda
