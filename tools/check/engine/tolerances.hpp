// How closely a float result must match the reference's: the one table of
// the kit's tolerances, by operator class and dtype (tolerances.cpp; the
// same numbers are written in README.md and docs/writing-a-plugin.md).
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

}  // namespace bpcheck
