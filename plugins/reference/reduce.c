/*
 * reduce.c — SUM, MEAN, NORM, PROD, MAX, MIN, ARGMAX, ARGMIN, LOGSUMEXP and VAR.
 *
 * The output has the input's rank. An axis where the output's extent is 1
 * is reduced; every other axis is kept (and has the input's extent). So for
 * each output index, the elements to combine are those whose index agrees
 * on the kept axes and runs over the whole extent of the reduced ones: one
 * walk over "inner" shape, which is the input's extent on reduced axes and
 * 1 on kept ones. Walking it in C order gives ARGMAX and ARGMIN their positions.
 */
#include <math.h>

#include "reference.h"

/* The input index of one element: the output index supplies the kept axes
 * (its reduced axes are 0), the inner walk the reduced ones (its kept axes
 * are 0), so the two simply add. */
static void input_index(int32_t rank, const int64_t *out_index, const int64_t *inner_index,
                        int64_t *index) {
  int32_t d;
  for (d = 0; d < rank; ++d) index[d] = out_index[d] + inner_index[d];
}

/* SUM, MEAN and NORM. Floats accumulate in compensated float64 (see
 * accumulate.c) whatever their dtype; integers and bool in int64 with
 * wrap-around. */
static ref_value sum_like(int32_t op, const bp_plugin_tensor *in, int32_t out_dtype,
                          const int64_t *out_index, const int64_t *inner_shape) {
  int64_t index[BP_MAX_RANK];
  ref_walk w;
  ref_sum total;
  uint64_t integer_total = 0; /* unsigned: integer sums wrap around */
  int64_t count = 0;
  double result;

  ref_sum_start(&total);
  for (ref_walk_start(&w, in->rank, inner_shape); !w.done; ref_walk_next(&w), ++count) {
    ref_value x;
    input_index(in->rank, out_index, w.index, index);
    x = ref_get(in, index);
    if (ref_dtype_is_float(in->dtype)) {
      double value = ref_to_f64(x, in->dtype);
      ref_sum_add(&total, op == BP_OP_NORM ? value * value : value);
    } else {
      integer_total += (uint64_t)ref_to_i64(x, in->dtype);
    }
  }

  if (!ref_dtype_is_float(in->dtype)) return ref_from_i64(ref_wrap_i64(integer_total), out_dtype);
  result = ref_sum_result(&total);
  if (op == BP_OP_MEAN) result = count > 0 ? result / (double)count : NAN; /* mean of none: NaN */
  if (op == BP_OP_NORM) result = sqrt(result);
  return ref_from_f64(result, out_dtype); /* narrower floats: one rounding, at the very end */
}

/* PROD. Floats multiply in float64 and round once at the end (float32,
 * float16, bfloat16);
 * integers in int64 with wrap-around (the product modulo 2^64 does not
 * depend on the order). */
static ref_value product(const bp_plugin_tensor *in, int32_t out_dtype, const int64_t *out_index,
                         const int64_t *inner_shape) {
  int64_t index[BP_MAX_RANK];
  ref_walk w;
  double total = 1.0;
  uint64_t integer_total = 1;

  for (ref_walk_start(&w, in->rank, inner_shape); !w.done; ref_walk_next(&w)) {
    ref_value x;
    input_index(in->rank, out_index, w.index, index);
    x = ref_get(in, index);
    if (ref_dtype_is_float(in->dtype))
      total *= ref_to_f64(x, in->dtype);
    else
      integer_total *= (uint64_t)ref_to_i64(x, in->dtype);
  }
  if (!ref_dtype_is_float(in->dtype)) return ref_from_i64(ref_wrap_i64(integer_total), out_dtype);
  return ref_from_f64(total, out_dtype);
}

/* LOGSUMEXP: m + log(sum(exp(x - m))) with m the set's maximum, in float64
 * with the compensated sum, rounded once at the end. A NaN anywhere gives
 * NaN; otherwise an infinite m (a +inf, or nothing but -inf) is the result
 * itself, and so is the -inf m keeps for an empty set (plugin.h). */
static ref_value log_sum_exp(const bp_plugin_tensor *in, int32_t out_dtype, const int64_t *out_index,
                             const int64_t *inner_shape) {
  int64_t index[BP_MAX_RANK];
  ref_walk w;
  ref_sum total;
  double m = -INFINITY;

  for (ref_walk_start(&w, in->rank, inner_shape); !w.done; ref_walk_next(&w)) {
    double x;
    input_index(in->rank, out_index, w.index, index);
    x = ref_to_f64(ref_get(in, index), in->dtype);
    if (isnan(x)) return ref_from_f64(x, out_dtype);
    if (x > m) m = x;
  }
  if (isinf(m)) return ref_from_f64(m, out_dtype);

  ref_sum_start(&total);
  for (ref_walk_start(&w, in->rank, inner_shape); !w.done; ref_walk_next(&w)) {
    input_index(in->rank, out_index, w.index, index);
    ref_sum_add(&total, exp(ref_to_f64(ref_get(in, index), in->dtype) - m));
  }
  return ref_from_f64(m + log(ref_sum_result(&total)), out_dtype);
}

/* VAR: the mean first, then the squared deviations from it, both summed in
 * float64 with compensation: two passes, nothing that cancels. m2 divided
 * by max(0, n - correction) (plugin.h), rounded once at the end. */
static ref_value variance(const bp_plugin_tensor *in, int32_t out_dtype, const int64_t *out_index,
                          const int64_t *inner_shape, double correction) {
  int64_t index[BP_MAX_RANK];
  ref_walk w;
  ref_sum total, squares;
  double mean, divisor;
  int64_t count = 0;

  ref_sum_start(&total);
  for (ref_walk_start(&w, in->rank, inner_shape); !w.done; ref_walk_next(&w), ++count) {
    input_index(in->rank, out_index, w.index, index);
    ref_sum_add(&total, ref_to_f64(ref_get(in, index), in->dtype));
  }
  mean = count > 0 ? ref_sum_result(&total) / (double)count : 0.0;
  ref_sum_start(&squares);
  for (ref_walk_start(&w, in->rank, inner_shape); !w.done; ref_walk_next(&w)) {
    double deviation;
    input_index(in->rank, out_index, w.index, index);
    deviation = ref_to_f64(ref_get(in, index), in->dtype) - mean;
    ref_sum_add(&squares, deviation * deviation);
  }
  divisor = (double)count - correction;
  return ref_from_f64(ref_sum_result(&squares) / (divisor > 0 ? divisor : 0.0), out_dtype);
}

/* 1 when element x should replace the best so far, for MAX (want_max) or
 * MIN. Ties keep the earlier element. A NaN replaces any number and is never
 * replaced, which makes MAX/MIN propagate NaN and ARGMAX/ARGMIN point at the
 * first NaN. Floats compare as double (exact for every float dtype), integers as int64. */
static int replaces(int32_t dtype, ref_value x, ref_value best, int want_max) {
  if (ref_dtype_is_float(dtype)) {
    double xv = ref_to_f64(x, dtype), bv = ref_to_f64(best, dtype);
    if (isnan(bv)) return 0;
    if (isnan(xv)) return 1;
    return want_max ? xv > bv : xv < bv;
  } else {
    int64_t xv = ref_to_i64(x, dtype), bv = ref_to_i64(best, dtype);
    return want_max ? xv > bv : xv < bv;
  }
}

/* MAX, MIN (the best value, in the input's dtype), ARGMAX and ARGMIN (its
 * position in the inner walk, as int64). The set is never empty here. */
static ref_value extreme(int32_t op, const bp_plugin_tensor *in, const int64_t *out_index,
                         const int64_t *inner_shape) {
  int64_t index[BP_MAX_RANK];
  int64_t best_position = 0;
  ref_value best;
  ref_walk w;
  const int want_max = op == BP_OP_MAX || op == BP_OP_ARGMAX;

  best = ref_from_i64(0, in->dtype); /* overwritten by the first element */
  for (ref_walk_start(&w, in->rank, inner_shape); !w.done; ref_walk_next(&w)) {
    ref_value x;
    input_index(in->rank, out_index, w.index, index);
    x = ref_get(in, index);
    if (w.position == 0 || replaces(in->dtype, x, best, want_max)) {
      best = x;
      best_position = w.position;
    }
  }
  return op == BP_OP_ARGMAX || op == BP_OP_ARGMIN ? ref_from_i64(best_position, BP_INT64) : best;
}

bp_status ref_run_reduce(int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *input,
                         const bp_plugin_tensor *output) {
  int64_t inner_shape[BP_MAX_RANK] = {0};
  int is_empty = 0;
  int32_t d;
  ref_walk w;

  for (d = 0; d < input->rank; ++d) {
    inner_shape[d] = output->shape[d] == 1 ? input->shape[d] : 1;
    if (inner_shape[d] == 0) is_empty = 1;
  }
  /* SUM, MEAN, NORM, PROD, LOGSUMEXP and VAR of nothing are defined (0, NaN,
   * 0, 1, -inf, NaN); MAX, MIN, ARGMAX and ARGMIN are not, and plugin.h promises
   * the core never asks for them. Say so if it does, rather than invent a
   * value. */
  if (is_empty && ref_numel(output) > 0 &&
      (op == BP_OP_MAX || op == BP_OP_MIN || op == BP_OP_ARGMAX || op == BP_OP_ARGMIN))
    return ref_fail(BP_ERR_SHAPE,
                    "%s: reducing an empty set of elements has no value (the core never asks)",
                    bp_vocab_op_name(op));

  for (ref_walk_start(&w, output->rank, output->shape); !w.done; ref_walk_next(&w)) {
    ref_value result = (op == BP_OP_SUM || op == BP_OP_MEAN || op == BP_OP_NORM)
                           ? sum_like(op, input, output->dtype, w.index, inner_shape)
                       : op == BP_OP_PROD      ? product(input, output->dtype, w.index, inner_shape)
                       : op == BP_OP_LOGSUMEXP ? log_sum_exp(input, output->dtype, w.index, inner_shape)
                       : op == BP_OP_VAR ? variance(input, output->dtype, w.index, inner_shape, attrs->scalar)
                                         : extreme(op, input, w.index, inner_shape);
    ref_set(output, w.index, result);
  }
  return BP_OK;
}
