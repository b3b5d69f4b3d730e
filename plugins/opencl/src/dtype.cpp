// dtype.cpp — element type facts, scalar conversion, and the float16 and
// bfloat16 conversions the kernels compile (backplane/half.h).
#include "dtype.hpp"

#include "backplane/half.h"
#include "backplane/sdk/saturate.h"
#include "embedded_texts.hpp"

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
    case BP_FLOAT16: return "bp_f32_from_f16(" + value + ")";
    case BP_BFLOAT16: return "bp_f32_from_bf16(" + value + ")";
    default: return "(" + value + ")";
  }
}

std::string store_expr(int32_t dtype, const std::string &value) {
  switch (dtype) {
    case BP_FLOAT16: return "bp_f16_from_f32(" + value + ")";
    case BP_BFLOAT16: return "bp_bf16_from_f32(" + value + ")";
    default: return "(" + value + ")";
  }
}

// half.h itself, not vload_half / vstore_half_rte: PoCL runs those out of
// line, several times slower than half.h's branch-free conversions, which
// the compiler vectorises; and drivers differ on NaN (NVIDIA's gives one
// canonical NaN where half.h keeps the payload).
std::string half_conversions_source(bool fp64) {
  return std::string(fp64 ? "#define BP_HALF_F64 1\n" : "") + kHalfHText + "\n";
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
