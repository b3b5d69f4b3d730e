/*
 * backplane/half.h against an independent computation of the same
 * conversions: every float16 and bfloat16 bit pattern widened, and float32,
 * float64 and int64 values narrowed, among them every tie between two
 * neighbouring half values and the values just beside it, the boundary
 * with infinity and the subnormals. The expected values come from the
 * formats' definitions (sign, exponent, fraction, ldexp) and from choosing
 * the nearer of the two neighbours by exact comparison, never from the
 * header's own bit manipulation.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/half.h"

static long g_failures;

static void fail(const char *what, const char *input, unsigned got, unsigned want) {
  if (g_failures++ < 20) printf("FAIL %s of %s: 0x%04x, expected 0x%04x\n", what, input, got, want);
}

/* A half format: fraction bits, exponent bias; the bits of +infinity. */
typedef struct {
  const char *name;
  int fraction_bits;
  int bias;
  unsigned inf_bits;
} Format;

static const Format kF16 = {"float16", 10, 15, 0x7c00u};
static const Format kBF16 = {"bfloat16", 7, 127, 0x7f80u};

/* The value of a finite, non-negative pattern by the format's definition.
 * For the pattern of infinity, the value the exponent would have next
 * (2^(emax+1)): the even neighbour past the largest finite value, so that
 * rounding to it is overflow. */
static double value_of(const Format *f, unsigned bits) {
  const unsigned exponent = bits >> f->fraction_bits, fraction = bits & ((1u << f->fraction_bits) - 1u);
  if (exponent == 0) return ldexp((double)fraction, 1 - f->bias - f->fraction_bits);
  return ldexp((double)(fraction + (1u << f->fraction_bits)), (int)exponent - f->bias - f->fraction_bits);
}

/* The non-negative patterns 0 .. inf_bits by value (value_of is increasing). */
static double g_f16_values[0x7c01], g_bf16_values[0x7f81];

static const double *values_of(const Format *f) { return f == &kF16 ? g_f16_values : g_bf16_values; }

/* Nearest pattern to a non-negative finite magnitude, ties to the even
 * pattern, by exact comparison of 2a with the sum of the neighbours (both
 * exact in long double: the neighbours have at most 12 significant bits). */
static unsigned nearest(const Format *f, long double a) {
  const double *v = values_of(f);
  unsigned lo = 0, hi = f->inf_bits;
  if (a >= v[hi]) return hi;
  while (hi - lo > 1) { /* v[lo] <= a < v[hi] */
    const unsigned mid = (lo + hi) / 2;
    if ((long double)v[mid] <= a)
      lo = mid;
    else
      hi = mid;
  }
  {
    const long double twice = 2 * a, sum = (long double)v[lo] + (long double)v[hi];
    if (twice < sum) return lo;
    if (twice > sum) return hi;
    return (lo & 1u) ? hi : lo;
  }
}

/* What narrowing x must give: nearest to |x| with x's sign, a quiet NaN of
 * x's sign for NaN (checked apart: the payload is the header's choice). */
static unsigned expected_narrow(const Format *f, long double x) {
  const unsigned sign = signbit(x) ? 0x8000u : 0u;
  return sign | nearest(f, x < 0 ? -x : x);
}

static int is_quiet_nan(const Format *f, unsigned bits) {
  const unsigned exponent_mask = f->inf_bits, quiet = 1u << (f->fraction_bits - 1);
  return (bits & exponent_mask) == exponent_mask && (bits & quiet) != 0;
}

/* h and b (the input in text narrowed to float16 and bfloat16) against the
 * input's value x rounded once. */
static void check_narrowed(const char *text, unsigned h, unsigned b, long double x) {
  if (h != expected_narrow(&kF16, x)) fail("float16 narrowing", text, h, expected_narrow(&kF16, x));
  if (b != expected_narrow(&kBF16, x)) fail("bfloat16 narrowing", text, b, expected_narrow(&kBF16, x));
}

static void check_f32(float x) {
  char text[64];
  const unsigned h = bp_f16_from_f32(x), b = bp_bf16_from_f32(x);
  snprintf(text, sizeof text, "float32 %a (0x%08x)", (double)x, (unsigned)bp_f32_bits(x));
  if (isnan(x)) {
    const unsigned sign = signbit(x) ? 0x8000u : 0u;
    if (!is_quiet_nan(&kF16, h) || (h & 0x8000u) != sign) fail("float16 narrowing (NaN)", text, h, 0x7e00u | sign);
    if (!is_quiet_nan(&kBF16, b) || (b & 0x8000u) != sign) fail("bfloat16 narrowing (NaN)", text, b, 0x7fc0u | sign);
    return;
  }
  check_narrowed(text, h, b, x);
}

static void check_f64(double x) {
  char text[64];
  const unsigned h = bp_f16_from_f64(x), b = bp_bf16_from_f64(x);
  snprintf(text, sizeof text, "float64 %a", x);
  if (isnan(x)) {
    if (!is_quiet_nan(&kF16, h)) fail("float16 narrowing (NaN)", text, h, 0x7e00u);
    if (!is_quiet_nan(&kBF16, b)) fail("bfloat16 narrowing (NaN)", text, b, 0x7fc0u);
    return;
  }
  check_narrowed(text, h, b, x);
}

static void check_i64(int64_t x) {
  char text[64];
  const unsigned h = bp_f16_from_i64(x), b = bp_bf16_from_i64(x);
  /* Every int64 is exact in a long double of 64 significant bits or more. */
  const long double v = (long double)x;
  snprintf(text, sizeof text, "int64 %lld", (long long)x);
  check_narrowed(text, h, b, v);
}

/* Every pattern widened: the value by definition, signed zeros, infinities,
 * and NaN as a quiet NaN of its sign (bfloat16 keeping its very bits). */
static void check_widening(const Format *f) {
  unsigned bits;
  for (bits = 0; bits < 0x10000u; ++bits) {
    const unsigned magnitude = bits & 0x7fffu, sign = bits >> 15;
    const float got = f == &kF16 ? bp_f32_from_f16((uint16_t)bits) : bp_f32_from_bf16((uint16_t)bits);
    char text[64];
    snprintf(text, sizeof text, "%s 0x%04x", f->name, bits);
    if (magnitude > f->inf_bits) {
      /* float16: F16C's quiet NaN, the fraction moved up with its top bit
       * set; bfloat16: the very bits, a float32 NaN already. */
      const uint32_t u = bp_f32_bits(got);
      const uint32_t want = f == &kF16 ? ((uint32_t)sign << 31) | 0x7fc00000u | ((uint32_t)(bits & 0x3ffu) << 13)
                                       : (uint32_t)bits << 16;
      if (u != want) fail("widening (NaN)", text, (unsigned)(u >> 16), (unsigned)(want >> 16));
      continue;
    }
    {
      const double want = magnitude == f->inf_bits ? HUGE_VAL : value_of(f, magnitude);
      if ((double)got != (sign ? -want : want) || (signbit(got) != 0) != (sign != 0))
        fail("widening", text, (unsigned)(bp_f32_bits(got) >> 16), bits);
    }
  }
}

/* A small generator of its own (xorshift64*), so the inputs are the same everywhere. */
static uint64_t g_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void) {
  g_state ^= g_state >> 12;
  g_state ^= g_state << 25;
  g_state ^= g_state >> 27;
  return g_state * 0x2545F4914F6CDD1Dull;
}

/* The inputs around every pair of neighbours (a, b) of a format: both, the
 * tie between them, and the nearest values on either side of each, as
 * float32 and float64 and, for a tie that is an integer, int64. */
static void check_neighbours(const Format *f) {
  const double *v = values_of(f);
  unsigned i;
  int s;
  for (i = 0; i < f->inf_bits; ++i) {
    const double a = v[i], b = v[i + 1], tie = (a + b) / 2; /* exact: few significant bits */
    for (s = 0; s < 2; ++s) {
      const double sign = s ? -1.0 : 1.0;
      const double d[] = {a, tie, nextafter(tie, 0), nextafter(tie, HUGE_VAL), tie * (1 + 0x1p-40),
                          tie * (1 - 0x1p-40), nextafter(a, HUGE_VAL)};
      size_t k;
      for (k = 0; k < sizeof d / sizeof d[0]; ++k) {
        const float x = (float)(sign * d[k]);
        check_f64(sign * d[k]);
        check_f32(x);
        check_f32(nextafterf(x, 0));
        check_f32(nextafterf(x, (float)HUGE_VAL * (float)sign));
      }
      if (tie >= 1 && tie == floor(tie) && tie < 0x1p62) {
        const int64_t t = (int64_t)tie * (s ? -1 : 1);
        check_i64(t);
        check_i64(t - 1);
        check_i64(t + 1);
      }
    }
  }
}

static void check_random(void) {
  long k;
  for (k = 0; k < 1000000; ++k) {
    const uint64_t r = next_random();
    double d;
    check_f32(bp_f32_from_bits((uint32_t)r));
    memcpy(&d, &r, sizeof d);
    check_f64(d);
    /* float64 values where a half's neighbours are: small exponents. */
    check_f64(ldexp((double)(r >> 11) * 0x1p-53, (int)(r % 300) - 150) * (r & 1 ? -1 : 1));
    check_i64((int64_t)r);
    check_i64((int64_t)r >> (r % 63));
  }
}

static void check_edges(void) {
  const float f32[] = {0.0f, -0.0f, (float)HUGE_VAL, -(float)HUGE_VAL, FLT_MAX, -FLT_MAX, FLT_MIN, 0x1p-149f,
                       -0x1p-149f, 65504.0f, 65519.99609375f, 65520.0f, 65536.0f, 0x1p-24f, 0x1p-25f, 0x1.8p-24f,
                       0x1.fep127f, 0x1.ffp127f, 0x1.fefffep127f, 0x1p-133f, 0x1p-134f, 0x1.8p-133f};
  const double f64[] = {DBL_MAX, -DBL_MAX, DBL_MIN, 0x1p-1074, 1e300, 1 + 0x1p-11 + 0x1p-40, 1 + 0x1p-8 + 0x1p-40,
                        65520 - 0x1p-30, 0x1p-25 + 0x1p-60, 0x1.fefffffffffffp127, 0x1p-134 + 0x1p-170};
  const int64_t i64[] = {0, 1, -1, INT64_MAX, INT64_MIN, INT64_MIN + 1, 2049, 2051, 65519, 65520, -65520,
                         16842753, 1077936129, (int64_t)1 << 62};
  size_t k;
  for (k = 0; k < sizeof f32 / sizeof f32[0]; ++k) check_f32(f32[k]);
  for (k = 0; k < sizeof f64 / sizeof f64[0]; ++k) check_f64(f64[k]);
  for (k = 0; k < sizeof i64 / sizeof i64[0]; ++k) check_i64(i64[k]);
  check_f32(bp_f32_from_bits(0x7f800001u)); /* a signalling NaN becomes quiet */
  check_f32(bp_f32_from_bits(0xffc01234u));
  check_f64(nan(""));
}

/* The cases the brief names, spelled out: one rounding from float64 and
 * int64, never through a float32 rounded on the way. */
static void check_named(void) {
  const int64_t x = ((int64_t)1 << 62) + ((int64_t)1 << 54) + 1;
  const uint16_t b = bp_bf16_from_i64(x);
  if (b != 0x5e81u || (double)bp_f32_from_bf16(b) != 0x1p62 + 0x1p55)
    fail("bfloat16 narrowing", "int64 2^62 + 2^54 + 1 (must be 2^62 + 2^55)", b, 0x5e81u);
  if (bp_bf16_from_i64(-x) != 0xde81u) fail("bfloat16 narrowing", "int64 -(2^62 + 2^54 + 1)", bp_bf16_from_i64(-x), 0xde81u);
  if (bp_f16_from_f64(1 + 0x1p-11 + 0x1p-40) != 0x3c01u)
    fail("float16 narrowing", "float64 1 + 2^-11 + 2^-40 (must be 1 + 2^-10)", bp_f16_from_f64(1 + 0x1p-11 + 0x1p-40), 0x3c01u);
  if (bp_f16_from_f64(65520 - 0x1p-30) != 0x7bffu)
    fail("float16 narrowing", "float64 65520 - 2^-30 (must be 65504)", bp_f16_from_f64(65520 - 0x1p-30), 0x7bffu);
  if (bp_f16_from_f32(65520.0f) != 0x7c00u) fail("float16 narrowing", "float32 65520 (must be inf)", bp_f16_from_f32(65520.0f), 0x7c00u);
  if (bp_bf16_from_f32(0x1p-133f) != 0x0001u)
    fail("bfloat16 narrowing", "float32 2^-133 (a subnormal, kept)", bp_bf16_from_f32(0x1p-133f), 0x0001u);
}

int main(void) {
  unsigned i;
  if (LDBL_MANT_DIG < 64) {
    printf("SKIP: long double has %d significant bits; the int64 reference needs 64\n", LDBL_MANT_DIG);
    return 77;
  }
  for (i = 0; i <= kF16.inf_bits; ++i) g_f16_values[i] = value_of(&kF16, i);
  for (i = 0; i <= kBF16.inf_bits; ++i) g_bf16_values[i] = value_of(&kBF16, i);
  check_widening(&kF16);
  check_widening(&kBF16);
  check_named();
  check_edges();
  check_neighbours(&kF16);
  check_neighbours(&kBF16);
  check_random();
  if (g_failures) {
    printf("%ld failures\n", g_failures);
    return 1;
  }
  printf("half.h: all 65536 float16 and bfloat16 patterns widen exactly; narrowing agrees on every tie, its neighbours and 1M random float32, float64 and int64 values\n");
  return 0;
}
