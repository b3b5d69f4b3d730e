/*
 * backplane/kernels/reduce.hpp — the per-element math of the reductions
 * (SUM, MEAN, NORM, PROD, MAX, MIN, ARGMAX, ARGMIN, LOGSUMEXP, VAR; semantics
 * in backplane/plugin.h),
 * shared by every backend. Header-only C++17, host and nvcc device code.
 *
 * A reducer is a struct of static functions over an accumulator:
 *   init()                 the empty accumulator
 *   step(acc, x, pos)      folds in element x found at C-order position pos
 *                          of the reduced axes (only ARGMAX/ARGMIN look at it)
 *   merge(a, b)            combines two partial accumulators; `a` covers
 *                          earlier positions than `b` when that matters
 *   finish(acc, count)     the output value, count = elements reduced (VAR:
 *                          that less the correction, its divisor)
 * and `lanes`: how many independent accumulators a backend may run over a
 * contiguous stretch and merge afterwards (1 = strictly sequential).
 */
#ifndef BACKPLANE_KERNELS_REDUCE_HPP
#define BACKPLANE_KERNELS_REDUCE_HPP

#include "backplane/kernels/elementwise.hpp"

namespace bp_kernels {

/* Smallest and largest value of an element type; constexpr std::
 * numeric_limits is not callable from nvcc device code without flags. */
template <class T>
struct limits;
template <>
struct limits<float> {
  BP_HD static float lowest() { return -INFINITY; }
  BP_HD static float highest() { return INFINITY; }
};
template <>
struct limits<double> {
  BP_HD static double lowest() { return -(double)INFINITY; }
  BP_HD static double highest() { return (double)INFINITY; }
};
template <>
struct limits<int32_t> {
  BP_HD static int32_t lowest() { return INT32_MIN; }
  BP_HD static int32_t highest() { return INT32_MAX; }
};
template <>
struct limits<int64_t> {
  BP_HD static int64_t lowest() { return INT64_MIN; }
  BP_HD static int64_t highest() { return INT64_MAX; }
};

/* Accumulator of SUM/MEAN/NORM: floats add up in double (a float32 sum of
 * millions of elements stays within float rounding of the exact value);
 * integers and bool in uint64, which wraps like int64 two's complement. */
template <class T>
struct sum_traits {
  using acc = double;
  using out = T;
  BP_HD static double widen(T x) { return static_cast<double>(x); }
  BP_HD static T narrow(double a) { return static_cast<T>(a); }
};
template <class I>
struct integer_sum_traits {
  using acc = uint64_t;
  using out = int64_t;
  BP_HD static uint64_t widen(I x) { return static_cast<uint64_t>(static_cast<int64_t>(x)); }
  BP_HD static int64_t narrow(uint64_t a) { return static_cast<int64_t>(a); }
};
template <>
struct sum_traits<int32_t> : integer_sum_traits<int32_t> {};
template <>
struct sum_traits<int64_t> : integer_sum_traits<int64_t> {};
template <>
struct sum_traits<boolean> {
  using acc = uint64_t;
  using out = int64_t;
  BP_HD static uint64_t widen(boolean x) { return truth(x) ? 1u : 0u; }
  BP_HD static int64_t narrow(uint64_t a) { return static_cast<int64_t>(a); }
};

/* The types a reducer names (see the top), for those whose functions spell
 * them out. */
template <class In, class Acc, class Out>
struct ReducerTypes {
  using in_t = In;
  using acc_t = Acc;
  using out_t = Out;
  static constexpr int lanes = 8;
};

/* SUM, and PROD when `product`: in sum_traits' accumulators, floats in
 * double, integers and bool in uint64, whose sums and products wrap like
 * int64's in any order. */
template <class T, bool product>
struct AccumulateReducer {
  using in_t = T;
  using acc_t = typename sum_traits<T>::acc;
  using out_t = typename sum_traits<T>::out;
  static constexpr int lanes = 8;
  BP_HD static acc_t init() { return acc_t(product ? 1 : 0); }
  BP_HD static acc_t step(acc_t a, T x, int64_t) { return merge(a, sum_traits<T>::widen(x)); }
  BP_HD static acc_t merge(acc_t a, acc_t b) { return product ? a * b : a + b; }
  BP_HD static out_t finish(acc_t a, int64_t) { return sum_traits<T>::narrow(a); }
};
template <class T>
using SumReducer = AccumulateReducer<T, false>;
/* PROD: numeric inputs. */
template <class T>
using ProdReducer = AccumulateReducer<T, true>;

/* Float inputs only. The mean of nothing is 0/0 = NaN, as plugin.h asks. */
template <class T>
struct MeanReducer : SumReducer<T> {
  using out_t = T;
  BP_HD static T finish(double a, int64_t count) { return static_cast<T>(a / static_cast<double>(count)); }
};

/* Frobenius norm sqrt(sum(x*x)), float inputs, squares added in double. */
template <class T>
struct NormReducer : ReducerTypes<T, double, T> {
  BP_HD static double init() { return 0.0; }
  BP_HD static double step(double a, T x, int64_t) { return a + static_cast<double>(x) * static_cast<double>(x); }
  BP_HD static double merge(double a, double b) { return a + b; }
  BP_HD static T finish(double a, int64_t) { return static_cast<T>(fmath::sqrt(a)); }
};

/* LOGSUMEXP's accumulator: the largest term so far and the sum of exp(x -
 * max) over the terms so far, in double. */
struct LogSumExpAcc {
  double max;
  double sum;
};

/* LOGSUMEXP (float inputs) in one pass: a term is the accumulator {x, 1},
 * and merging rescales the smaller maximum's sum by exp(its max - the
 * larger), a factor in [0, 1], so nothing overflows. Equal maxima add their
 * sums without subtracting (inf - inf would be NaN), and a NaN maximum stays
 * NaN. finish() returns a maximum that is not finite as it is: NaN, +inf, or
 * -inf for a set of -inf only and for the empty set (plugin.h). */
template <class T>
struct LogSumExpReducer {
  using in_t = T;
  using acc_t = LogSumExpAcc;
  using out_t = T;
  static constexpr int lanes = 8;
  BP_HD static acc_t init() { return acc_t{-static_cast<double>(INFINITY), 0.0}; }
  BP_HD static acc_t merge(acc_t a, acc_t b) {
    if (is_nan(a.max) || is_nan(b.max)) return acc_t{a.max + b.max, 0.0};
    if (a.max == b.max) return acc_t{a.max, a.sum + b.sum};
    if (a.max > b.max) return acc_t{a.max, a.sum + b.sum * fmath::exp(b.max - a.max)};
    return acc_t{b.max, b.sum + a.sum * fmath::exp(a.max - b.max)};
  }
  BP_HD static acc_t step(acc_t a, T x, int64_t) { return merge(a, acc_t{static_cast<double>(x), 1.0}); }
  BP_HD static T finish(acc_t a, int64_t) {
    const double inf = static_cast<double>(INFINITY);
    if (is_nan(a.max) || a.max == inf || a.max == -inf) return static_cast<T>(a.max);
    return static_cast<T>(a.max + fmath::log(a.sum));
  }
};

/* VAR's accumulator: how many elements, their mean and the sum of their
 * squared deviations from it (m2), in double. */
struct MomentsAcc {
  double n;
  double mean;
  double m2;
};

/* VAR (float inputs, since 1.6): Welford's update, stable where
 * sum(x^2) - sum(x)^2 / n cancels, and Chan's merge of two partial sets.
 * finish() gets the divisor n - correction (plugin.h: m2 / max(0, n - c),
 * so m2 > 0 over 0 is +inf and 0 / 0 NaN, the empty set's value). An
 * infinity makes the deviations inf - inf: NaN, as plugin.h says. */
template <class T>
struct VarReducer {
  using in_t = T;
  using acc_t = MomentsAcc;
  using out_t = T;
  static constexpr int lanes = 8;
  BP_HD static acc_t init() { return acc_t{0.0, 0.0, 0.0}; }
  BP_HD static acc_t step(acc_t a, T x, int64_t) {
    const double v = static_cast<double>(x), n = a.n + 1.0, delta = v - a.mean;
    const double mean = a.mean + delta / n;
    return acc_t{n, mean, a.m2 + delta * (v - mean)};
  }
  BP_HD static acc_t merge(acc_t a, acc_t b) {
    if (a.n == 0.0) return b;
    if (b.n == 0.0) return a;
    const double n = a.n + b.n, delta = b.mean - a.mean;
    return acc_t{n, a.mean + delta * (b.n / n), a.m2 + b.m2 + delta * delta * (a.n * b.n / n)};
  }
  BP_HD static T finish(acc_t a, int64_t divisor) {
    return static_cast<T>(a.m2 / (divisor > 0 ? static_cast<double>(divisor) : 0.0));
  }
};

/* MAX (is_max) and MIN: the same fold, mirrored. Both propagate NaN: a NaN
 * x replaces the accumulator, and a NaN accumulator is never replaced (no
 * comparison with it is true). */
template <class T, bool is_max>
struct ExtremeReducer : ReducerTypes<T, T, T> {
  BP_HD static T init() { return is_max ? limits<T>::lowest() : limits<T>::highest(); }
  BP_HD static T step(T a, T x, int64_t) { return ((is_max ? x > a : x < a) || is_nan(x)) ? x : a; }
  BP_HD static T merge(T a, T b) { return step(a, b, 0); }
  BP_HD static T finish(T a, int64_t) { return a; }
};
template <class T>
using MaxReducer = ExtremeReducer<T, true>;
template <class T>
using MinReducer = ExtremeReducer<T, false>;

/* Best value so far and its position; index -1 means "nothing seen yet". */
template <class T>
struct ArgBest {
  T value;
  int64_t index;
};

/* ARGMAX (is_max) and ARGMIN: position of the first maximum (minimum); a
 * NaN counts as both, so the first NaN wins. step() sees positions in
 * increasing order; merge() compares positions itself, so partials may be
 * merged in any order. */
template <class T, bool is_max>
struct ArgExtremeReducer {
  using in_t = T;
  using acc_t = ArgBest<T>;
  using out_t = int64_t;
  static constexpr int lanes = 1;
  BP_HD static bool better(T x, T than) { return is_max ? x > than : x < than; }
  BP_HD static acc_t init() { return acc_t{is_max ? limits<T>::lowest() : limits<T>::highest(), -1}; }
  BP_HD static acc_t step(acc_t a, T x, int64_t pos) {
    if (a.index < 0 || (!is_nan(a.value) && (is_nan(x) || better(x, a.value)))) return acc_t{x, pos};
    return a;
  }
  BP_HD static acc_t merge(acc_t a, acc_t b) {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    const bool a_nan = is_nan(a.value), b_nan = is_nan(b.value);
    if (a_nan != b_nan) return a_nan ? a : b;
    if (!a_nan && a.value != b.value) return better(a.value, b.value) ? a : b;
    return a.index < b.index ? a : b;
  }
  BP_HD static int64_t finish(acc_t a, int64_t) { return a.index; }
};
template <class T>
using ArgmaxReducer = ArgExtremeReducer<T, true>;
template <class T>
using ArgminReducer = ArgExtremeReducer<T, false>;

}  // namespace bp_kernels

#endif /* BACKPLANE_KERNELS_REDUCE_HPP */
