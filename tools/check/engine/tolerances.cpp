#include "tolerances.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "backplane/plugin.h"
#include "vocab.hpp"

namespace bpcheck {

TolClass tol_class(int32_t op) {
  switch (op) {
    // ARANGE and RANDOM_UNIFORM are a few correctly rounded operations with
    // no contraction (plugin.h): the same seed gives the same bits anywhere.
    // SQUARE, FLOOR_DIVIDE and REMAINDER are one correctly rounded operation
    // each (fmod is exact).
    case BP_OP_MAXIMUM: case BP_OP_MINIMUM: case BP_OP_NEG: case BP_OP_ABS: case BP_OP_RELU: case BP_OP_MAX:
    case BP_OP_MIN: case BP_OP_ARGMAX: case BP_OP_ARGMIN: case BP_OP_FILL: case BP_OP_ARANGE:
    case BP_OP_RANDOM_UNIFORM: case BP_OP_SQUARE: case BP_OP_FLOOR_DIVIDE: case BP_OP_REMAINDER:
      return TolClass::exact;
    case BP_OP_SQRT: return TolClass::sqrt;
    case BP_OP_POW: return TolClass::math;
    case BP_OP_LOGSUMEXP: return TolClass::log_sum_exp;
    // A sum of the rows naming an element, in any order (plugin.h).
    case BP_OP_SCATTER_ADD_ND: return TolClass::accum_each;
    default: break;
  }
  switch (op_family(op)) {
    case BP_OP_FAMILY_BINARY: return TolClass::rounded;
    case BP_OP_FAMILY_UNARY: case BP_OP_FAMILY_CREATE: return TolClass::math;
    case BP_OP_FAMILY_REDUCE: case BP_OP_FAMILY_MATMUL: case BP_OP_FAMILY_SCAN: return TolClass::accum;
    default: return TolClass::exact;
  }
}

namespace {

struct Rel {
  double rtol, atol;
};
struct Ulps {
  double ulps, term_ulps;  // ulps < 0: exact
};
constexpr Ulps kExact{-1, 0};

// THE table. float16 and bfloat16 compute in float32 and round once
// (plugin.h), so where float32 has one correctly rounded operation they are
// exact, and where float32 is inexact they get 2 ulps of their own: the
// rounding of float32 results a few float32 ulps apart can fall on either
// side of a half's rounding boundary (1 ulp), with room for a float32
// function as far off as the float32 column allows (2e-5 is 0.02 ulp of a
// float16). Their sums and products run in float32 (plugin.h's
// Accumulation rule) and round once: 1 ulp for that rounding, plus 2
// float32 ulps per term of the sum of magnitudes for the float32
// accumulation in another order (2^-22: 2^-12 of float16's epsilon, 2^-15
// of bfloat16's). SCATTER_ADD_ND may round in the dtype after each term: 1 ulp
// per term.
struct Row {
  TolClass cls;
  Rel f32, f64;
  Ulps f16, bf16;
};
constexpr Row kTable[] = {
    // class                  float32         float64             float16              bfloat16
    {TolClass::exact,       {0, 0},         {0, 0},            kExact,              kExact},
    {TolClass::rounded,     {1e-5, 1e-30},  {1e-12, 1e-300},   kExact,              kExact},
    {TolClass::sqrt,        {2e-5, 1e-7},   {1e-12, 1e-14},    kExact,              kExact},
    {TolClass::math,        {2e-5, 1e-7},   {1e-12, 1e-14},    {2, 0},              {2, 0}},
    {TolClass::log_sum_exp, {5e-5, 1e-6},   {1e-11, 1e-13},    {2, 0},              {2, 0}},
    {TolClass::accum,       {5e-5, 1e-6},   {1e-11, 1e-13},    {1, 0x1p-12},        {1, 0x1p-15}},
    {TolClass::accum_each,  {5e-5, 1e-6},   {1e-11, 1e-13},    {1, 1},              {1, 1}},
};

// A half dtype's epsilon (2^-mantissa bits) and smallest subnormal.
double epsilon(int32_t dtype) { return dtype == BP_BFLOAT16 ? 0x1p-7 : 0x1p-10; }
double smallest_subnormal(int32_t dtype) { return dtype == BP_BFLOAT16 ? 0x1p-133 : 0x1p-24; }

}  // namespace

Tolerance tolerance(int32_t op, int32_t dtype) {
  Tolerance t;
  if (!is_float(dtype)) {
    t.exact = true;
    return t;
  }
  const TolClass cls = tol_class(op);
  for (const Row &r : kTable) {
    if (r.cls != cls) continue;
    if (dtype == BP_FLOAT16 || dtype == BP_BFLOAT16) {
      const Ulps u = dtype == BP_FLOAT16 ? r.f16 : r.bf16;
      t.exact = u.ulps < 0;
      t.ulps = u.ulps;
      t.term_ulps = u.term_ulps;
    } else {
      const Rel rel = bp_vocab_dtype_size(dtype) <= 4 ? r.f32 : r.f64;
      t.exact = cls == TolClass::exact;
      t.rtol = rel.rtol;
      t.atol = rel.atol;
    }
    return t;
  }
  t.exact = true;
  return t;
}

bool within(const Tolerance &tol, int32_t dtype, double got, double want, double floor, double sum_scale,
            int64_t terms) {
  const double diff = std::fabs(got - want), mag = std::fabs(want);
  if (dtype == BP_FLOAT16 || dtype == BP_BFLOAT16) {
    const double eps = epsilon(dtype);
    return diff <= eps * (tol.ulps * std::max(mag, floor) + tol.term_ulps * double(terms) * std::max(mag, sum_scale)) +
                       tol.ulps * smallest_subnormal(dtype);
  }
  return diff <= tol.atol + tol.rtol * std::max(std::max(mag, floor), sum_scale);
}

double accumulator_max(int32_t op, int32_t dtype) {
  if (dtype == BP_FLOAT16) return op == BP_OP_SCATTER_ADD_ND ? 65504.0 : FLT_MAX;
  if (dtype == BP_BFLOAT16) return FLT_MAX;  // bfloat16's range is float32's
  return bp_vocab_dtype_size(dtype) == 4 ? FLT_MAX : DBL_MAX;
}

}  // namespace bpcheck
