/*
 * backplane/sdk/saturate.h — float to integer as plugin.h's COPY converts
 * it (since 1.5): truncation toward zero inside the integer dtype's range,
 * its minimum or maximum outside, 0 for NaN. A C cast of an out-of-range
 * value is undefined behaviour, so every backend needs this once. C99, C++
 * and CUDA (host and device); nothing to link.
 */
#ifndef BACKPLANE_SDK_SATURATE_H
#define BACKPLANE_SDK_SATURATE_H

#include <stdint.h>

#include "backplane/types.h"

#if defined(__CUDACC__)
#define BP_SDK_HD __host__ __device__
#else
#define BP_SDK_HD
#endif

/* The range of an integer dtype of `size` bytes, signed or not (from the
 * vocabulary's size and kind: bp_vocab_dtype_size, bp_vocab_dtype_kind). */
BP_SDK_HD static inline void bp_sdk_int_range(int64_t size, int32_t is_signed, int64_t *min, int64_t *max) {
  const int bits = (int)(8 * size) - (is_signed ? 1 : 0);
  *max = bits >= 64 ? INT64_MAX : (int64_t)((UINT64_C(1) << bits) - 1u);
  *min = is_signed ? -*max - 1 : 0;
}

/* x as an integer of range [min, max] (bp_sdk_int_range). Each bound is
 * exact as a double (min is 0 or minus a power of two; max + 1 a power of
 * two, which (double)INT64_MAX + 1.0 also rounds to), and a value in
 * [min, max + 1) truncates into [min, max]. */
BP_SDK_HD static inline int64_t bp_sdk_saturate(double x, int64_t min, int64_t max) {
  if (x != x) return 0;
  if (x < (double)min) return min;
  if (x >= (double)max + 1.0) return max;
  return (int64_t)x;
}

/* x converted to the integer dtype `dtype` (BP_INT8 ... BP_INT64, BP_UINT8),
 * as an int64_t that the dtype's type holds exactly. 0 for a dtype that is
 * no integer one. Host only: it reads the vocabulary. */
static inline int64_t bp_sdk_saturate_to(double x, int32_t dtype) {
  const int32_t kind = bp_vocab_dtype_kind(dtype);
  int64_t min, max;
  if (kind != BP_DTYPE_KIND_SIGNED_INT && kind != BP_DTYPE_KIND_UNSIGNED_INT) return 0;
  bp_sdk_int_range(bp_vocab_dtype_size(dtype), kind == BP_DTYPE_KIND_SIGNED_INT, &min, &max);
  return bp_sdk_saturate(x, min, max);
}

#endif /* BACKPLANE_SDK_SATURATE_H */
