/*
 * backplane_kernels/scan.hpp — the scans (CUMSUM; semantics in
 * backplane/plugin.h), shared by every backend. Header-only C++17, host and
 * nvcc device code.
 *
 * A scan is a reduction whose running accumulator is finished at every
 * position, so it reuses the reducers of reduce.hpp: CUMSUM is SumReducer's
 * fold (int and bool in uint64 wrapping into int64, floats in double), and
 * the backends only decide which line each thread walks.
 */
#ifndef BACKPLANE_KERNELS_SCAN_HPP
#define BACKPLANE_KERNELS_SCAN_HPP

#include "backplane_kernels/reduce.hpp"

namespace bp_kernels {

template <class T>
using CumsumScanner = SumReducer<T>;

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
