// dtype.cpp — element type facts and scalar conversion.
#include "dtype.hpp"

#include "backplane_kernels/elementwise.hpp"

namespace bp_ocl {

const char *dtype_cl_type(int32_t dtype) {
  switch (dtype) {
    case BP_FLOAT32: return "float";
    case BP_FLOAT64: return "double";
    case BP_INT32: return "int";
    case BP_INT64: return "long";
    case BP_BOOL: return "uchar";
    default: return "void";
  }
}

ScalarArg scalar_arg(int32_t dtype, double x) {
  ScalarArg s{};
  s.size = dtype_size(dtype);
  switch (dtype) {
    case BP_FLOAT32: s.value.f32 = static_cast<cl_float>(x); break;
    case BP_FLOAT64: s.value.f64 = x; break;
    // Saturating, NaN to 0, like every conversion (plugin.h).
    case BP_INT32: s.value.i32 = bp_kernels::saturating_int<cl_int>(x); break;
    case BP_INT64: s.value.i64 = bp_kernels::saturating_int<cl_long>(x); break;
    case BP_BOOL: s.value.b8 = x != 0.0; break;
    default: break;
  }
  return s;
}

}  // namespace bp_ocl
