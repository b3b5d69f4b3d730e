/*
 * accumulate.c — summing floats the careful way.
 *
 * The reference is what other backends are compared against, so its float
 * sums should be as close to exact as simple code allows: every term is
 * added in float64 (float32, float16 and bfloat16 inputs convert to double
 * exactly; plugin.h asks for float32 or wider), and the rounding error of
 * each addition is kept aside and added back at the end (Kahan-Babuska /
 * Neumaier compensated summation). For sums of up to
 * billions of terms the result is essentially the correctly rounded exact
 * sum, independent of the order a faster backend chooses.
 */
#include <math.h>

#include "reference.h"

void ref_sum_start(ref_sum *s) {
  s->sum = 0.0;
  s->error = 0.0;
}

void ref_sum_start_with(ref_sum *s, double first) {
  s->sum = first;
  s->error = 0.0;
}

void ref_sum_add(ref_sum *s, double x) {
  double t = s->sum + x;
  /* The exact error of the addition sum + x, recovered from the larger term. */
  if (fabs(s->sum) >= fabs(x))
    s->error += (s->sum - t) + x;
  else
    s->error += (x - t) + s->sum;
  s->sum = t;
}

double ref_sum_result(const ref_sum *s) {
  /* Once the sum is infinite or NaN the error term is meaningless (inf - inf
   * is NaN); the plain sum then already has the IEEE answer. With no error
   * the sum is exact, and adding +0 would turn a -0 (-0 + -0) into +0. */
  if (!isfinite(s->sum) || s->error == 0.0) return s->sum;
  return s->sum + s->error;
}
