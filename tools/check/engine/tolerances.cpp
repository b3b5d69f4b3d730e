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
    // (x - m) - log(s) moves with s's rounding absolutely, on the scale of
    // |x - m| + 1 + log n, as LOGSUMEXP's m + log(s) does (judge.cpp).
    case BP_OP_LOG_SOFTMAX: return TolClass::log_sum_exp;
    case BP_OP_SOFTMAX: return TolClass::softmax;
    // A sum of the rows naming an element, in any order (plugin.h).
    case BP_OP_SCATTER_ADD_ND: return TolClass::accum_each;
    // Sums over windows, divided (AVG_POOL); dy terms added up (the gradients).
    case BP_OP_AVG_POOL: case BP_OP_MAX_POOL_GRAD: case BP_OP_AVG_POOL_GRAD: return TolClass::accum;
    default: break;
  }
  switch (op_family(op)) {
    case BP_OP_FAMILY_BINARY: return TolClass::rounded;
    case BP_OP_FAMILY_UNARY: case BP_OP_FAMILY_CREATE: return TolClass::math;
    // NORMALIZE: statistics accumulated, and y from them (judge.cpp scales each output).
    case BP_OP_FAMILY_REDUCE: case BP_OP_FAMILY_MATMUL: case BP_OP_FAMILY_SCAN: case BP_OP_FAMILY_NORMALIZE:
      return TolClass::accum;
    // Sums of products in the scores and the output, judged on the scale
    // attention_scale gives (judge.cpp).
    case BP_OP_FAMILY_ATTENTION: return TolClass::accum;
    case BP_OP_FAMILY_CONV: return TolClass::accum;
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
// per term. SOFTMAX is exp(x - m) / s with s a sum of n terms of at most 1:
// the sum's rounding in another order moves every element relatively, as
// the accumulation rows allow (5e-5 in float32), and x - m rounded moves
// the smallest elements' exponentials relatively by |x - m| eps, below the
// absolute floor (a contribution of e^-|t| |t| eps to an element under 1);
// its halves are a float32 function rounded once (2 ulps, as math).
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
    {TolClass::softmax,     {5e-5, 1e-7},   {1e-11, 1e-15},    {2, 0},              {2, 0}},
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

namespace {

// One dtype's column of a test bound: rtol + rtol_n * n and atol + atol_n * n.
struct Term {
  double rtol, rtol_n, atol, atol_n;
};
struct TestRow {
  TestBound which;
  Term f32, f64, f16, bf16;
};

// Each dtype's epsilon, the unit most bounds are written in.
constexpr double e32 = 0x1p-23, e64 = 0x1p-52, e16 = 0x1p-10, eb16 = 0x1p-7;

// THE table's second part: the build's own plugins in their tests and the
// fuzzer. Why each number:
// - rounded: one float32 or float64 operation; a half rounded from float32
//   results that differ in their last bits lands a few steps of the half apart.
// - scan: 4 epsilons per term of magnitude up to 3 (Values::general and small).
// - scatter_add: t additions, each off by at most half an epsilon of a
//   partial sum itself at most 3 (t + 1), in the output's dtype (GPU atomics).
// - compensated_sum: the reference adds exactly, cpu-openblas in float64 with
//   several accumulators: 8 epsilons per term of magnitude up to 3.
// - blas_matmul: each product's rounding bounded by 4 K eps 9, eps the
//   accumulator's (float32 for the halves, plugin.h).
// - threaded_sum: the same sums split at other points over threads.
// - running_sum, gemm: OpenCL's float32 results rounded once from float64
//   (or accumulated in float) against the reference's compensated float64.
// - opencl_math, opencl_normal, cuda_normal: the device's math builtins are
//   a few ulp from libm (cos near a zero crossing: absolute slack).
// - cuda_reduce, cuda_matmul: float32-or-wider sums in another order, terms
//   and products up to 9: 1e-6 (float32) and 1e-15 (float64) per term.
// - cuda_tf32: TF32 keeps 10 bits of each input: 1e-2 relative, and per
//   term 1e-2 of a product of 9 over 32.
// - half_matmul: the half's own rounding of the result (half a step), and K
//   float32 additions of a few units each (tensor cores align terms with few
//   extra bits): 2^-22 of the products' magnitudes per term.
// - float32_sum: compensated float32 sums of 3000 terms against the
//   reference's float64 ones rounded once.
// - libm, libm_rounded_once: the reference's own values against libm's in
//   double, and its float64 result rounded once into the dtype.
// - collective_sum: n + 1 roundings of the sum of the terms' magnitudes; a
//   half is the float32 sum rounded once (one ulp of the half, and its
//   smallest subnormal).
// - fuzz_*: the fuzzer's steps, in float32 terms whatever the dtype: libm's
//   last bits; LOGSUMEXP's sum of at most 64 terms of at most 1 moving the
//   log absolutely; k roundings of half an epsilon of a partial sum at most
//   k times the largest term; k relative roundings of a product; and a half
//   rounded from float32 results that differ in their last bits (two of its
//   epsilons and its smallest subnormal more).
// - softmax: a float32 row (the halves' too) against the reference's
//   float64 one rounded once: exp's last bits and the sum's order
//   (relative), and log_softmax's subtractions on the scale of log n and
//   the sum's relative error (absolute); the halves a rounding of float32
//   results a few bits apart, as `rounded`. fuzz_softmax: the same in
//   float32 terms whatever the dtype (log(s) of an s within an epsilon of 1
//   is absolute where x - m - log(s) nearly cancels).
constexpr Term kSame{0, 0, 0, 0};
constexpr TestRow kTestTable[] = {
    // bound                       float32                        float64                        float16                            bfloat16
    {TestBound::rounded,           {1e-5, 0, 0, 0},               {1e-12, 0, 0, 0},              {4 * e16, 0, 0, 0},                {4 * eb16, 0, 0, 0}},
    {TestBound::scan,              {1e-5, 0, 0, 12 * e32},        {1e-12, 0, 0, 12 * e64},       {4 * e16, 0, 0, 12 * e16},         {4 * eb16, 0, 0, 12 * eb16}},
    {TestBound::scatter_add,       {1e-5, 0, 0, 3 * e32},         {1e-12, 0, 0, 3 * e64},        {4 * e16, 0, 0, 3 * e16},          {4 * eb16, 0, 0, 3 * eb16}},
    {TestBound::compensated_sum,   {1e-5, 0, 0, 0},               {1e-11, 0, 0, 24 * e64},       {4 * e16, 0, 0, 0},                {4 * eb16, 0, 0, 0}},
    {TestBound::blas_matmul,       {1e-5, 0, 0, 36 * e32},        {1e-12, 0, 0, 36 * e64},       {4 * e16, 0, 0, 36 * e32},         {4 * eb16, 0, 0, 36 * e32}},
    {TestBound::threaded_sum,      {1e-5, 0, 0, 0},               {1e-12, 0, 1e-10, 0},          {4 * e16, 0, 0, 0},                {4 * eb16, 0, 0, 0}},
    {TestBound::running_sum,       {1e-6, 0, 1e-6, 0},            {1e-13, 0, 1e-13, 0},          kSame,                             kSame},
    {TestBound::gemm,              {1e-5, 0, 1e-5, 0},            {1e-13, 0, 1e-13, 0},          kSame,                             kSame},
    {TestBound::opencl_math,       {4e-6, 0, 1e-30, 0},           {1e-13, 0, 1e-300, 0},         {1e-13, 0, 1e-300, 0},             {1e-13, 0, 1e-300, 0}},
    {TestBound::opencl_normal,     {1e-5, 0, 1e-6, 0},            {1e-13, 0, 1e-14, 0},          kSame,                             kSame},
    {TestBound::cuda_reduce,       {1e-5, 0, 1e-6, 0},            {1e-12, 0, 0, 9e-15},          {2 * e16, 0, 0, 9e-6},             {2 * eb16, 0, 0, 9e-6}},
    {TestBound::cuda_matmul,       {1e-5, 0, 0, 3.6e-6},          {1e-12, 0, 0, 9e-15},          {2 * e16, 0, 0, 3.6e-6},           {2 * eb16, 0, 0, 3.6e-6}},
    {TestBound::cuda_normal,       {1e-5, 0, 1e-5, 0},            {1e-12, 0, 1e-13, 0},          {2 * e16, 0, 1e-7, 0},             {2 * eb16, 0, 1e-7, 0}},
    {TestBound::cuda_tf32,         {1e-2, 0, 0, 1e-2 * 9 / 32},   kSame,                         kSame,                             kSame},
    {TestBound::half_matmul,       kSame,                         kSame,                         {0x1p-11, 0, 0x1p-24, 0x1p-22},    {0x1p-8, 0, 0x1p-133, 0x1p-22}},
    {TestBound::float32_sum,       {1e-5, 0, 1e-4, 0},            kSame,                         kSame,                             kSame},
    {TestBound::libm,              {1e-6, 0, 0, 0},               {1e-14, 0, 0, 0},              kSame,                             kSame},
    {TestBound::libm_rounded_once, {1e-7, 0, 0, 0},               {1e-15, 0, 0, 0},              kSame,                             kSame},
    {TestBound::collective_sum,    {0, 0, 0, e32},                {0, 0, 0, e64},                {e16, 0, 0x1p-24, e32},            {eb16, 0, 0x1p-133, e32}},
    {TestBound::fuzz_math,         {1e-5, 0, 1e-30, 0},           {1e-5, 0, 1e-30, 0},           {1e-5, 0, 1e-30, 0},               {1e-5, 0, 1e-30, 0}},
    {TestBound::fuzz_log_sum_exp,  {1e-5, 0, 1e-12, 0},           {1e-5, 0, 1e-12, 0},           {1e-5, 0, 1e-12, 0},               {1e-5, 0, 1e-12, 0}},
    {TestBound::fuzz_sum,          {0, 0, 0, e32},                {0, 0, 0, e32},                {0, 0, 0, e32},                    {0, 0, 0, e32}},
    {TestBound::fuzz_product,      {0, 4 * e32, 0, 0},            {0, 4 * e32, 0, 0},            {0, 4 * e32, 0, 0},                {0, 4 * e32, 0, 0}},
    {TestBound::fuzz_half,         kSame,                         kSame,                         {2 * e16, 0, 0x1p-24, 0},          {2 * eb16, 0, 0x1p-133, 0}},
    {TestBound::softmax,           {2e-5, 0, 1e-6, 0},            {1e-12, 0, 1e-14, 0},          {4 * e16, 0, 1e-5, 0},             {4 * eb16, 0, 1e-5, 0}},
    {TestBound::fuzz_softmax,      {2e-5, 0, 1e-6, 0},            {2e-5, 0, 1e-6, 0},            {2e-5, 0, 1e-6, 0},                {2e-5, 0, 1e-6, 0}},
};

}  // namespace

Bound test_bound(TestBound which, int32_t dtype, double n) {
  if (!is_float(dtype)) return {};
  for (const TestRow &r : kTestTable) {
    if (r.which != which) continue;
    const Term &t = dtype == BP_FLOAT16    ? r.f16
                    : dtype == BP_BFLOAT16 ? r.bf16
                    : bp_vocab_dtype_size(dtype) <= 4 ? r.f32
                                                      : r.f64;
    return {t.rtol + t.rtol_n * n, t.atol + t.atol_n * n};
  }
  return {};
}

bool within_bound(const Bound &b, double got, double want) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (b.exact()) return got == want && std::signbit(got) == std::signbit(want);
  if (got == want) return true;  // also equal infinities, and -0 == +0
  if (std::isinf(got) || std::isinf(want)) return false;
  return std::fabs(got - want) <= b.atol + b.rtol * std::max(std::fabs(got), std::fabs(want));
}

}  // namespace bpcheck
