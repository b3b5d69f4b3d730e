// How closely a float result must match the reference's: the one table of
// tolerances (tolerances.cpp; README.md and docs/writing-a-plugin.md print
// it). Two parts: the kit's rows, by operator class and dtype, which every
// plugin is held to; and the bounds the tests of the build's own plugins
// and the fuzzer hold them to, tighter where both sides are known code.
// Integers and bool are always compared bit for bit.
#pragma once

#include <cstdint>

namespace bpcheck {

// The operator classes the table has a row for.
enum class TolClass {
  exact,        // bit for bit in every dtype (NaN payloads aside)
  rounded,      // one correctly rounded float32 operation: exact in float16/bfloat16
  sqrt,         // likewise, though float32 libraries may round it differently
  math,         // a math-library function: inexact in every float dtype
  log_sum_exp,  // m + log(sum exp(x - m)): math, on the scale of |m| + 1 + log(n)
  accum,        // sums and products accumulated in float32 or wider, rounded once
  accum_each,   // SCATTER_ADD_ND: a float16/bfloat16 sum may round after each term
  softmax,      // exp(x - m) / s: math, relative to the result (LOG_SOFTMAX is log_sum_exp's)
};

TolClass tol_class(int32_t op);

// One dtype's entry of a row. float32 and float64 (and any float dtype the
// table has no column for):
//   |got - want| <= atol + rtol * max(|want|, scale)
// float16 and bfloat16, in units of the dtype's epsilon eps (2^-10, 2^-7):
//   |got - want| <= eps * (ulps * max(|want|, floor) + term_ulps * n * max(|want|, S))
//                   + ulps * (the dtype's smallest subnormal)
// where S is the sum of the magnitudes of the n terms behind the element
// (accumulations) and floor the scale of a result that is not relative to
// itself (LOGSUMEXP's |m| + 1 + log n, RANDOM_NORMAL's |mean| + 3 std).
struct Tolerance {
  bool exact = false;
  double rtol = 0, atol = 0;
  double ulps = 0, term_ulps = 0;
};

Tolerance tolerance(int32_t op, int32_t dtype);

// Whether got is within tol of want (neither NaN nor infinite: the caller
// has judged those), for an element whose result rests on n terms whose
// magnitudes sum to sum_scale (0 and 0 when not an accumulation) and whose
// scale is at least floor.
bool within(const Tolerance &tol, int32_t dtype, double got, double want, double floor, double sum_scale,
            int64_t terms);

// The largest finite value of the dtype a sum of op runs in: past it a
// partial sum may overflow in one order and not in another (plugin.h).
double accumulator_max(int32_t op, int32_t dtype);

// ---- the build's own plugins: tests and fuzzer -----------------------------
//
// The plugin tests (tests/support/plugin_harness.hpp) compare a plugin with
// the reference, |got - ref| <= atol + rtol * max(|got|, |ref|); the fuzzer
// (fuzz/ops_fuzzer.cpp) cpu with reference through the core, relative to
// the reference's value. Where a bound grows with the work behind a result
// it does so with n, which each entry defines (tolerances.cpp says why each
// number is what it is).
enum class TestBound {
  rounded,           // one rounded operation, or a half rounded from float32 results a few bits apart
  scan,              // n = the length of a running sum of terms of magnitude up to 3
  scatter_add,       // n = t (t + 1) for at most t terms of magnitude up to 3 added one at a time
  compensated_sum,   // a float64 reduction, compensated in the reference: n = its terms (1 for MEAN)
  blas_matmul,       // cpu-openblas GEMM, |a|, |b| <= 3: n = K
  threaded_sum,      // a float64 sum or GEMM split over threads
  running_sum,       // OpenCL's scans and reductions against the compensated reference
  gemm,              // OpenCL's float32 GEMM against the compensated float64 reference
  opencl_math,       // EXP LOG TANH SIGMOID POW in OpenCL's builtins
  opencl_normal,     // RANDOM_NORMAL's cos and log in OpenCL
  cuda_reduce,       // CUDA's sums in another order, terms up to 3: n = their number
  cuda_matmul,       // cuBLAS, |a|, |b| <= 3: n = K
  cuda_normal,       // RANDOM_NORMAL's cos and log in CUDA
  cuda_tf32,         // cuBLAS with allow_tf32: 10-bit inputs, |a|, |b| <= 3: n = K
  half_matmul,       // a half GEMM against the exact product: n = K times the magnitude of the products' sum
  float32_sum,       // OpenCL without float64: float32 sums and scans, compensated
  libm,              // a value the reference computes against libm's, in the reference's own tests
  libm_rounded_once, // the reference's float64 result rounded once into the dtype (LOGSUMEXP)
  collective_sum,    // a collective's float SUM or MEAN: n = (participants + 1) * the terms' magnitudes
  fuzz_math,         // the fuzzer: a math-library function, cpu against reference
  fuzz_log_sum_exp,  // the fuzzer: LOGSUMEXP, whose log moves by the sum's rounding absolutely
  fuzz_sum,          // the fuzzer: a float32-accumulated sum, n = its terms' count times the largest magnitude
  fuzz_product,      // the fuzzer: PROD of n terms, each rounding relative
  fuzz_half,         // the fuzzer: what rounding into a half adds to an inexact result
  softmax,           // SOFTMAX and LOG_SOFTMAX of a backend against the reference's float64 ones
  fuzz_softmax,      // the fuzzer: SOFTMAX and LOG_SOFTMAX of at most 4 terms, cpu against reference
};

// A test bound resolved for one dtype and n; both 0 is exact (integers and
// bool always are).
struct Bound {
  double rtol = 0, atol = 0;
  bool exact() const { return rtol == 0 && atol == 0; }
};
Bound test_bound(TestBound which, int32_t dtype, double n = 0);

// Whether a float result got agrees with want under bound b:
// |got - want| <= atol + rtol * max(|got|, |want|); a NaN agrees with a NaN
// only, an infinity with the same infinity only; an exact bound asks for the
// same value, zeros of the same sign.
bool within_bound(const Bound &b, double got, double want);

}  // namespace bpcheck
