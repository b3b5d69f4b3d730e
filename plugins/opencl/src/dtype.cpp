// dtype.cpp — element type facts and scalar conversion.
#include "dtype.hpp"

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
    // Out of range is unspecified (plugin.h); avoid the host UB of the cast.
    case BP_INT32:
      s.value.i32 = (x > -2147483649.0 && x < 2147483648.0) ? static_cast<cl_int>(x) : 0;
      break;
    case BP_INT64:
      s.value.i64 = (x >= -9223372036854775808.0 && x < 9223372036854775808.0)
                        ? static_cast<cl_long>(x)
                        : 0;
      break;
    case BP_BOOL: s.value.b8 = x != 0.0; break;
    default: break;
  }
  return s;
}

}  // namespace bp_ocl
