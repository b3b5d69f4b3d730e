/*
 * backplane/kernels/scan.hpp — the scans (CUMSUM; semantics in
 * backplane/plugin.h), shared by every backend. Header-only C++17, host and
 * nvcc device code.
 *
 * A scan is a reduction whose running accumulator is finished at every
 * position (init/step/finish of reduce.hpp's reducers), run front to back
 * along one line; the backends only decide which line each thread walks.
 */
#ifndef BACKPLANE_KERNELS_SCAN_HPP
#define BACKPLANE_KERNELS_SCAN_HPP

#include "backplane/kernels/reduce.hpp"

namespace bp_kernels {

/* Float CUMSUM: every term added in double with Neumaier's compensation
 * (the reference's accumulate.c), so each output is within a rounding of
 * its exact prefix sum however long the line. A plain running sum drifts by
 * up to one rounding of the prefix per term: past some ten thousand terms,
 * more than the Accumulation rule's few units. Needs no contraction into
 * fused multiply-adds (the backends build with it off). */
struct CompensatedSum {
  double sum, error;
};
template <class T>
struct CompensatedCumsum {
  using in_t = T;
  using acc_t = CompensatedSum;
  using out_t = T;
  BP_HD static acc_t init() { return acc_t{0.0, 0.0}; }
  BP_HD static acc_t step(acc_t a, T x, int64_t) {
    const double v = static_cast<double>(x), t = a.sum + v;
    /* The exact error of sum + v, recovered from the larger term. */
    a.error += fmath::abs(a.sum) >= fmath::abs(v) ? (a.sum - t) + v : (v - t) + a.sum;
    a.sum = t;
    return a;
  }
  /* An infinite or NaN sum makes the error term NaN (inf - inf): the plain
   * sum then already is the IEEE answer. s - s is 0 exactly when s is finite. */
  BP_HD static T finish(acc_t a, int64_t) {
    return static_cast<T>(a.sum - a.sum == 0.0 ? a.sum + a.error : a.sum);
  }
};

/* Integers and bool: SumReducer's uint64 sum, wrapping into int64. */
template <class T>
struct CumsumScanner : SumReducer<T> {};
template <>
struct CumsumScanner<float> : CompensatedCumsum<float> {};
template <>
struct CumsumScanner<double> : CompensatedCumsum<double> {};

/* out[j * out_stride] = R's fold of in[0], in[in_stride], ..., in[j *
 * in_stride], for j < n. Each input element is read before the output
 * element at the same position is written, so the output may be the very
 * same line as the input (in place). */
template <class R>
BP_HD inline void inclusive_scan(const typename R::in_t *in, int64_t in_stride, typename R::out_t *out,
                                 int64_t out_stride, int64_t n) {
  typename R::acc_t acc = R::init();
  for (int64_t j = 0; j < n; ++j) {
    acc = R::step(acc, in[j * in_stride], j);
    out[j * out_stride] = R::finish(acc, j + 1);
  }
}

}  // namespace bp_kernels

#endif /* BACKPLANE_KERNELS_SCAN_HPP */
