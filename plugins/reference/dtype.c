/*
 * dtype.c — the five element types: how one element is read from and written
 * to a buffer, and how COPY converts between them. Names, sizes and kinds
 * are the vocabulary's (bp_vocab_dtype_name, _size, _kind in types.h).
 */
#include <string.h>

#include "reference.h"

int ref_dtype_is_float(int32_t dtype) { return bp_vocab_dtype_kind(dtype) == BP_DTYPE_KIND_FLOAT; }

/* Loads and stores go through memcpy: a buffer is an array of bytes, and
 * memcpy is the one way to read a value out of one without breaking C's
 * aliasing rules or assuming anything about alignment. */
ref_value ref_load(int32_t dtype, const unsigned char *at) {
  ref_value v;
  memset(&v, 0, sizeof v);
  switch (dtype) {
    case BP_FLOAT32: memcpy(&v.f32, at, sizeof v.f32); break;
    case BP_FLOAT64: memcpy(&v.f64, at, sizeof v.f64); break;
    case BP_INT32: memcpy(&v.i32, at, sizeof v.i32); break;
    case BP_INT64: memcpy(&v.i64, at, sizeof v.i64); break;
    default: v.b8 = (uint8_t)(*at != 0); break; /* any nonzero byte reads as true */
  }
  return v;
}

void ref_store(int32_t dtype, unsigned char *at, ref_value value) {
  switch (dtype) {
    case BP_FLOAT32: memcpy(at, &value.f32, sizeof value.f32); break;
    case BP_FLOAT64: memcpy(at, &value.f64, sizeof value.f64); break;
    case BP_INT32: memcpy(at, &value.i32, sizeof value.i32); break;
    case BP_INT64: memcpy(at, &value.i64, sizeof value.i64); break;
    default: *at = (unsigned char)(value.b8 != 0); break;
  }
}

int32_t ref_wrap_i32(uint32_t bits) {
  /* Values above INT32_MAX stand for bits - 2^32; computed so that every
   * intermediate fits, leaving nothing to the implementation. */
  if (bits <= (uint32_t)INT32_MAX) return (int32_t)bits;
  return (int32_t)(bits - 2147483648u) + INT32_MIN;
}

int64_t ref_wrap_i64(uint64_t bits) {
  if (bits <= (uint64_t)INT64_MAX) return (int64_t)bits;
  return (int64_t)(bits - 9223372036854775808u) + INT64_MIN;
}

/* Float to integer. plugin.h leaves out-of-range values unspecified; a C
 * cast of one would be undefined behaviour, so this saturates (and maps NaN
 * to 0) to keep the plugin well defined under any sanitizer. In range, it is
 * exactly the C cast: truncation toward zero. */
static int32_t float_to_i32(double x) {
  if (x != x) return 0;
  if (x <= -2147483649.0) return INT32_MIN;
  if (x >= 2147483648.0) return INT32_MAX;
  return (int32_t)x;
}

static int64_t float_to_i64(double x) {
  if (x != x) return 0;
  if (x < -9223372036854775808.0) return INT64_MIN; /* -2^63 itself fits */
  if (x >= 9223372036854775808.0) return INT64_MAX;
  return (int64_t)x;
}

/* One function per target type, each a plain C cast from every source type.
 * Casting straight from the source (never through an intermediate type)
 * matters: int64 -> float64 -> float32 can round twice and differ from
 * int64 -> float32. A float32 source converts exactly to double first,
 * which changes nothing. */
static float to_f32(ref_value v, int32_t from) {
  switch (from) {
    case BP_FLOAT32: return v.f32;
    case BP_FLOAT64: return (float)v.f64; /* IEEE: rounds; overflow gives +-inf */
    case BP_INT32: return (float)v.i32;
    case BP_INT64: return (float)v.i64;
    default: return (float)v.b8;
  }
}

static double to_f64(ref_value v, int32_t from) {
  switch (from) {
    case BP_FLOAT32: return (double)v.f32;
    case BP_FLOAT64: return v.f64;
    case BP_INT32: return (double)v.i32;
    case BP_INT64: return (double)v.i64;
    default: return (double)v.b8;
  }
}

static int32_t to_i32(ref_value v, int32_t from) {
  switch (from) {
    case BP_FLOAT32: return float_to_i32((double)v.f32);
    case BP_FLOAT64: return float_to_i32(v.f64);
    case BP_INT32: return v.i32;
    case BP_INT64: return ref_wrap_i32((uint32_t)(uint64_t)v.i64); /* keeps the low 32 bits */
    default: return (int32_t)v.b8;
  }
}

static int64_t to_i64(ref_value v, int32_t from) {
  switch (from) {
    case BP_FLOAT32: return float_to_i64((double)v.f32);
    case BP_FLOAT64: return float_to_i64(v.f64);
    case BP_INT32: return (int64_t)v.i32;
    case BP_INT64: return v.i64;
    default: return (int64_t)v.b8;
  }
}

static uint8_t to_bool(ref_value v, int32_t from) {
  /* (x != 0): NaN is not equal to 0, so NaN converts to true. */
  switch (from) {
    case BP_FLOAT32: return (uint8_t)(v.f32 != 0.0f);
    case BP_FLOAT64: return (uint8_t)(v.f64 != 0.0);
    case BP_INT32: return (uint8_t)(v.i32 != 0);
    case BP_INT64: return (uint8_t)(v.i64 != 0);
    default: return (uint8_t)(v.b8 != 0);
  }
}

ref_value ref_convert(ref_value value, int32_t from, int32_t to) {
  ref_value r;
  memset(&r, 0, sizeof r);
  switch (to) {
    case BP_FLOAT32: r.f32 = to_f32(value, from); break;
    case BP_FLOAT64: r.f64 = to_f64(value, from); break;
    case BP_INT32: r.i32 = to_i32(value, from); break;
    case BP_INT64: r.i64 = to_i64(value, from); break;
    default: r.b8 = to_bool(value, from); break;
  }
  return r;
}

ref_value ref_from_f64(double x, int32_t to) {
  ref_value v;
  v.f64 = x;
  return ref_convert(v, BP_FLOAT64, to);
}

ref_value ref_from_i64(int64_t x, int32_t to) {
  ref_value v;
  v.i64 = x;
  return ref_convert(v, BP_INT64, to);
}

double ref_to_f64(ref_value value, int32_t from) { return to_f64(value, from); }

int64_t ref_to_i64(ref_value value, int32_t from) { return to_i64(value, from); }
