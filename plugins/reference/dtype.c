/*
 * dtype.c — the ten element types: how one element is read from and written
 * to a buffer, and how COPY converts between them. Names, sizes and kinds
 * are the vocabulary's (bp_vocab_dtype_name, _size, _kind in types.h); the
 * float16 and bfloat16 conversions are backplane/half.h's, the ones plugin.h
 * names as the reference.
 */
#include <string.h>

#include "backplane/half.h"
#include "backplane/sdk/saturate.h"
#include "reference.h"

int ref_dtype_is_float(int32_t dtype) { return bp_vocab_dtype_kind(dtype) == BP_DTYPE_KIND_FLOAT; }

int ref_dtype_is_half(int32_t dtype) { return dtype == BP_FLOAT16 || dtype == BP_BFLOAT16; }

int ref_dtype_is_small_int(int32_t dtype) {
  return dtype == BP_INT8 || dtype == BP_UINT8 || dtype == BP_INT16;
}

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
    case BP_BOOL: v.b8 = (uint8_t)(*at != 0); break; /* any nonzero byte reads as true */
    case BP_FLOAT16: memcpy(&v.f16, at, sizeof v.f16); break;
    case BP_BFLOAT16: memcpy(&v.bf16, at, sizeof v.bf16); break;
    case BP_INT8: memcpy(&v.i8, at, sizeof v.i8); break;
    case BP_UINT8: memcpy(&v.u8, at, sizeof v.u8); break;
    case BP_INT16: memcpy(&v.i16, at, sizeof v.i16); break;
    default: break; /* execute's checks let no other dtype through */
  }
  return v;
}

void ref_store(int32_t dtype, unsigned char *at, ref_value value) {
  switch (dtype) {
    case BP_FLOAT32: memcpy(at, &value.f32, sizeof value.f32); break;
    case BP_FLOAT64: memcpy(at, &value.f64, sizeof value.f64); break;
    case BP_INT32: memcpy(at, &value.i32, sizeof value.i32); break;
    case BP_INT64: memcpy(at, &value.i64, sizeof value.i64); break;
    case BP_BOOL: *at = (unsigned char)(value.b8 != 0); break;
    case BP_FLOAT16: memcpy(at, &value.f16, sizeof value.f16); break;
    case BP_BFLOAT16: memcpy(at, &value.bf16, sizeof value.bf16); break;
    case BP_INT8: memcpy(at, &value.i8, sizeof value.i8); break;
    case BP_UINT8: memcpy(at, &value.u8, sizeof value.u8); break;
    case BP_INT16: memcpy(at, &value.i16, sizeof value.i16); break;
    default: break;
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

float ref_half_to_f32(ref_value value, int32_t dtype) {
  return dtype == BP_FLOAT16 ? bp_f32_from_f16(value.f16) : bp_f32_from_bf16(value.bf16);
}

ref_value ref_half_from_f32(float x, int32_t dtype) {
  ref_value r;
  memset(&r, 0, sizeof r);
  if (dtype == BP_FLOAT16)
    r.f16 = bp_f16_from_f32(x);
  else
    r.bf16 = bp_bf16_from_f32(x);
  return r;
}

/* ---- a source element's exact value ------------------------------------
 * Every float dtype's value is exactly a double, every integer and bool
 * value exactly an int64_t; a conversion starts from that exact value and
 * rounds (or wraps, or saturates) once, straight to the target. Never
 * through an intermediate type: int64 -> float64 -> float32 can round twice
 * and differ from int64 -> float32. */

static double float_value(ref_value v, int32_t from) {
  switch (from) {
    case BP_FLOAT32: return (double)v.f32;
    case BP_FLOAT64: return v.f64;
    default: return (double)ref_half_to_f32(v, from); /* float16, bfloat16 */
  }
}

static int64_t integer_value(ref_value v, int32_t from) {
  switch (from) {
    case BP_INT32: return (int64_t)v.i32;
    case BP_INT64: return v.i64;
    case BP_INT8: return (int64_t)v.i8;
    case BP_UINT8: return (int64_t)v.u8;
    case BP_INT16: return (int64_t)v.i16;
    default: return (int64_t)v.b8;
  }
}

/* ---- to integers ------------------------------------------------------- */

/* Integer to integer (plugin.h): the value modulo 2^bits, read as two's
 * complement for the signed types. */
static int64_t wrap(int64_t x, int32_t to) {
  const uint64_t bits = (uint64_t)x;
  switch (to) {
    case BP_INT8: return (int64_t)(bits & 0xffu) - ((bits & 0x80u) ? 256 : 0);
    case BP_UINT8: return (int64_t)(bits & 0xffu);
    case BP_INT16: return (int64_t)(bits & 0xffffu) - ((bits & 0x8000u) ? 65536 : 0);
    case BP_INT32: return ref_wrap_i32((uint32_t)bits);
    default: return x;
  }
}

/* An integer element holding x, which is inside the range of `to`. */
static ref_value integer_element(int64_t x, int32_t to) {
  ref_value r;
  memset(&r, 0, sizeof r);
  switch (to) {
    case BP_INT8: r.i8 = (int8_t)x; break;
    case BP_UINT8: r.u8 = (uint8_t)x; break;
    case BP_INT16: r.i16 = (int16_t)x; break;
    case BP_INT32: r.i32 = (int32_t)x; break;
    default: r.i64 = x; break;
  }
  return r;
}

/* ---- to floats ---------------------------------------------------------- */

float ref_to_f32(ref_value v, int32_t from) {
  switch (from) {
    case BP_FLOAT32: return v.f32;
    case BP_FLOAT64: return (float)v.f64; /* IEEE: rounds; overflow gives +-inf */
    case BP_FLOAT16:
    case BP_BFLOAT16: return ref_half_to_f32(v, from); /* exact */
    default: return (float)integer_value(v, from);   /* one rounding from the int64 */
  }
}

/* To float16 or bfloat16: one rounding from the source's own value (half.h
 * rounds a float64 or int64 through float32 rounded to odd, which is exact
 * in effect). Between the two halves the widening to float32 is exact, so
 * that too rounds once. */
static ref_value to_half(ref_value v, int32_t from, int32_t to) {
  ref_value r;
  memset(&r, 0, sizeof r);
  switch (from) {
    case BP_FLOAT64:
      r.f16 = to == BP_FLOAT16 ? bp_f16_from_f64(v.f64) : bp_bf16_from_f64(v.f64);
      return r;
    case BP_FLOAT32:
    case BP_FLOAT16:
    case BP_BFLOAT16:
      return ref_half_from_f32(ref_to_f32(v, from), to);
    default: {
      const int64_t x = integer_value(v, from);
      r.f16 = to == BP_FLOAT16 ? bp_f16_from_i64(x) : bp_bf16_from_i64(x);
      return r;
    }
  }
}

/* ---- COPY --------------------------------------------------------------- */

ref_value ref_convert(ref_value value, int32_t from, int32_t to) {
  const int from_float = ref_dtype_is_float(from);
  ref_value r;
  /* A copy into its own dtype keeps the element as it is (a half's NaN
   * payload included: widening would quiet a signalling NaN). */
  if (from == to) return value;
  memset(&r, 0, sizeof r);
  switch (to) {
    case BP_FLOAT32: r.f32 = ref_to_f32(value, from); break;
    case BP_FLOAT64: r.f64 = ref_to_f64(value, from); break;
    case BP_FLOAT16:
    case BP_BFLOAT16: r = to_half(value, from, to); break;
    case BP_BOOL:
      /* (x != 0): NaN is not equal to 0, so NaN converts to true. */
      r.b8 = (uint8_t)(from_float ? float_value(value, from) != 0.0 : integer_value(value, from) != 0);
      break;
    default: /* the integer dtypes */
      r = integer_element(from_float ? bp_sdk_saturate_to(float_value(value, from), to)
                                     : wrap(integer_value(value, from), to),
                          to);
      break;
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

double ref_to_f64(ref_value value, int32_t from) {
  return ref_dtype_is_float(from) ? float_value(value, from) : (double)integer_value(value, from);
}

int64_t ref_to_i64(ref_value value, int32_t from) {
  return ref_dtype_is_float(from) ? bp_sdk_saturate_to(float_value(value, from), BP_INT64)
                                  : integer_value(value, from);
}
