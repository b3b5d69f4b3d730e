// dtype.cpp — element type facts, scalar conversion, and the OpenCL C of
// the float16/bfloat16 conversions.
#include "dtype.hpp"

#include "backplane/half.h"
#include "backplane/sdk/saturate.h"

namespace bp_ocl {

const char *dtype_cl_type(int32_t dtype) {
  switch (dtype) {
    case BP_FLOAT32:
    case BP_FLOAT16:
    case BP_BFLOAT16: return "float";
    case BP_FLOAT64: return "double";
    case BP_INT32: return "int";
    case BP_INT64: return "long";
    case BP_BOOL: return "uchar";
    case BP_INT8: return "char";
    case BP_UINT8: return "uchar";
    case BP_INT16: return "short";
    default: return "void";
  }
}

const char *dtype_storage_type(int32_t dtype) { return dtype_is_half(dtype) ? "ushort" : dtype_cl_type(dtype); }

std::string load_expr(int32_t dtype, const std::string &value) {
  switch (dtype) {
    case BP_FLOAT16: return "bp_f16_to_f32(" + value + ")";
    case BP_BFLOAT16: return "bp_bf16_to_f32(" + value + ")";
    default: return "(" + value + ")";
  }
}

std::string store_expr(int32_t dtype, const std::string &value) {
  switch (dtype) {
    case BP_FLOAT16: return "bp_f32_to_f16(" + value + ")";
    case BP_BFLOAT16: return "bp_f32_to_bf16(" + value + ")";
    default: return "(" + value + ")";
  }
}

namespace {

// backplane/half.h in OpenCL C, by bit manipulation and float arithmetic
// that every device rounds alike. Not vload_half / vstore_half_rte: they
// give the same bits on PoCL (NaN aside: drivers differ there, NVIDIA's
// gives one canonical NaN where half.h keeps the payload), but PoCL runs
// them out of line, several times slower than this, which the compiler
// vectorises (selects, no branches). bfloat16 is the upper half of a
// float32's bits.
const char *const kHalfConversions = R"CL(
inline float bp_f16_to_f32(ushort h) {
  const uint sign = (uint)(h & 0x8000u) << 16;
  const uint e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  /* A subnormal is m units of 2^-24: exact in float32, and a normal float. */
  const uint subnormal = as_uint((float)m * 0x1p-24f);
  const uint special = 0x7f800000u | (m ? 0x400000u | (m << 13) : 0u);  /* infinity, or NaN made quiet */
  const uint normal = ((e + 112u) << 23) | (m << 13);
  return as_float(sign | (e == 0u ? subnormal : e == 0x1fu ? special : normal));
}
inline ushort bp_f32_to_f16(float f) {
  const uint u = as_uint(f);
  const uint sign = (u >> 16) & 0x8000u;
  const uint a = u & 0x7fffffffu;
  const uint nan = 0x7e00u | ((a >> 13) & 0x3ffu);
  const uint normal = ((a + 0x0fffu + ((a >> 13) & 1u)) >> 13) - 0x1c000u;
  /* Below 2^-14: adding 0.5 rounds |f| to a multiple of 2^-24, to nearest
     even, and leaves that multiple in the low bits. */
  const uint subnormal = as_uint(as_float(a) + 0.5f) - 0x3f000000u;
  const uint r = a > 0x7f800000u ? nan : a >= 0x477ff000u ? 0x7c00u : a >= 0x38800000u ? normal : subnormal;
  return (ushort)(sign | r);
}
inline float bp_bf16_to_f32(ushort h) { return as_float((uint)h << 16); }
inline ushort bp_f32_to_bf16(float f) {
  const uint u = as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);
  return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
/* int64 -> float32 rounded to odd: 24 significant bits, the rest folded
   into a sticky last bit, so that rounding it once more to a half gives
   the int64's own correctly rounded value. */
inline float bp_f32_round_odd_from_i64(long x) {
  const ulong magnitude = x < 0 ? (ulong)0 - (ulong)x : (ulong)x;
  const int shift = max(0, 40 - (int)clz(magnitude));
  const ulong kept = (magnitude >> shift) | (ulong)((magnitude & ((1UL << shift) - 1UL)) != 0UL);
  const float f = (float)kept * as_float((uint)(127 + shift) << 23);  /* exact: a power of two */
  return x < 0 ? -f : f;
}
)CL";

// float64 -> float32 rounded to odd (half.h's bp_f32_round_odd_from_f64).
const char *const kRoundOddF64 = R"CL(
inline float bp_f32_round_odd_from_f64(double d) {
  const float f = (float)d;
  if ((double)f == d || isnan(d)) return f;
  uint u = as_uint(f);
  if (fabs((double)f) > fabs(d)) --u;  /* rounded away from zero */
  return as_float(u | 1u);
}
)CL";

}  // namespace

std::string half_conversions_source(bool fp64) {
  return fp64 ? std::string(kHalfConversions) + kRoundOddF64 : std::string(kHalfConversions);
}

ScalarArg scalar_arg(int32_t dtype, double x) {
  ScalarArg s{};
  s.size = dtype_is_half(dtype) ? sizeof(cl_float) : dtype_size(dtype);
  switch (dtype) {
    case BP_FLOAT32: s.value.f32 = static_cast<cl_float>(x); break;
    case BP_FLOAT64: s.value.f64 = x; break;
    // Rounded once from the double (half.h), then widened exactly.
    case BP_FLOAT16: s.value.f32 = bp_f32_from_f16(bp_f16_from_f64(x)); break;
    case BP_BFLOAT16: s.value.f32 = bp_f32_from_bf16(bp_bf16_from_f64(x)); break;
    case BP_INT32: s.value.i32 = static_cast<cl_int>(bp_sdk_saturate_to(x, dtype)); break;
    case BP_INT64: s.value.i64 = static_cast<cl_long>(bp_sdk_saturate_to(x, dtype)); break;
    case BP_INT8: s.value.i8 = static_cast<cl_char>(bp_sdk_saturate_to(x, dtype)); break;
    case BP_UINT8: s.value.u8 = static_cast<cl_uchar>(bp_sdk_saturate_to(x, dtype)); break;
    case BP_INT16: s.value.i16 = static_cast<cl_short>(bp_sdk_saturate_to(x, dtype)); break;
    case BP_BOOL: s.value.u8 = x != 0.0; break;
    default: break;
  }
  return s;
}

}  // namespace bp_ocl
