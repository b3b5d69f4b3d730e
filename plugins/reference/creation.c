/*
 * creation.c — FILL, ARANGE, RANDOM_UNIFORM and RANDOM_NORMAL: operators
 * without inputs. Each element's value depends only on its C-order position
 * i in the output (the walk's `position`), never on its memory layout, so a
 * strided output gets the same values as a dense one.
 */
#include <math.h>

#include "backplane/kernels/random.h"
#include "reference.h"

/* 2 pi, spelled out: M_PI is POSIX, not C99. */
#define REF_TWO_PI 6.283185307179586476925286766559
#define REF_TWO_PI_F 6.283185307179586476925286766559f

/* float16 and bfloat16 draw the float32 stream's value and round it once
 * (plugin.h), so they share the float32 branches below. */
static int draws_in_float32(int32_t dtype) { return dtype == BP_FLOAT32 || ref_dtype_is_half(dtype); }

/* The float32 value v as an element of `dtype` (float32 or a half). */
static ref_value from_stream_f32(float v, int32_t dtype) {
  ref_value r;
  r.f32 = v;
  return ref_convert(r, BP_FLOAT32, dtype);
}

/* RANDOM_UNIFORM: low + (high - low) * u(i). float32 is computed in float,
 * from float bounds and the 24-bit u, as plugin.h asks. */
static ref_value uniform(const bp_op_attrs *attrs, int32_t dtype, uint64_t i) {
  ref_value v;
  if (draws_in_float32(dtype)) {
    const float low = (float)attrs->scalar, high = (float)attrs->scalar2;
    v = from_stream_f32(low + (high - low) * bp_random_unit_f32(attrs->seed, i), dtype);
  } else {
    v.f64 = attrs->scalar + (attrs->scalar2 - attrs->scalar) * bp_random_unit_f64(attrs->seed, i);
  }
  return v;
}

/* RANDOM_NORMAL: Box-Muller from draws 2i and 2i+1, in the output's dtype:
 * mean + std * sqrt(-2 ln(1 - u(2i))) * cos(2 pi u(2i+1)). Using 1 - u keeps
 * the logarithm finite, since u < 1 always. */
static ref_value normal(const bp_op_attrs *attrs, int32_t dtype, uint64_t i) {
  ref_value v;
  if (draws_in_float32(dtype)) {
    const float mean = (float)attrs->scalar, std = (float)attrs->scalar2;
    const float u1 = bp_random_unit_f32(attrs->seed, 2 * i);
    const float u2 = bp_random_unit_f32(attrs->seed, 2 * i + 1);
    v = from_stream_f32(mean + std * sqrtf(-2.0f * logf(1.0f - u1)) * cosf(REF_TWO_PI_F * u2), dtype);
  } else {
    const double u1 = bp_random_unit_f64(attrs->seed, 2 * i);
    const double u2 = bp_random_unit_f64(attrs->seed, 2 * i + 1);
    v.f64 = attrs->scalar + attrs->scalar2 * sqrt(-2.0 * log(1.0 - u1)) * cos(REF_TWO_PI * u2);
  }
  return v;
}

void ref_run_create(int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *output) {
  const int32_t dtype = output->dtype;
  ref_walk w;
  for (ref_walk_start(&w, output->rank, output->shape); !w.done; ref_walk_next(&w)) {
    const uint64_t i = (uint64_t)w.position;
    ref_value value;
    switch (op) {
      case BP_OP_FILL: /* the float64 scalar, converted as COPY converts */
        value = ref_from_f64(attrs->scalar, dtype);
        break;
      case BP_OP_ARANGE: /* start + i * step, in float64, then converted */
        value = ref_from_f64(attrs->scalar + (double)i * attrs->scalar2, dtype);
        break;
      case BP_OP_RANDOM_UNIFORM:
        value = uniform(attrs, dtype, i);
        break;
      default: /* BP_OP_RANDOM_NORMAL */
        value = normal(attrs, dtype, i);
        break;
    }
    ref_set(output, w.index, value);
  }
}
