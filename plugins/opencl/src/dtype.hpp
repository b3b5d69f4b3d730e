// dtype.hpp — the five element types as the host and the kernels see them.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>

#include "backplane/types.h"

namespace bp_ocl {

bool dtype_valid(int32_t dtype);      // one of the five element types
bool dtype_is_float(int32_t dtype);   // float32, float64
bool dtype_is_integer(int32_t dtype); // int32, int64 (not bool)
size_t dtype_size(int32_t dtype);     // bytes per element; 0 when invalid
const char *dtype_name(int32_t dtype);    // "float32", ... ("invalid")
const char *dtype_cl_type(int32_t dtype); // OpenCL C type: "float", ..., "uchar" for bool

// A value of some dtype, ready for clSetKernelArg (bytes + size).
struct ScalarArg {
  union {
    cl_float f32;
    cl_double f64;
    cl_int i32;
    cl_long i64;
    cl_uchar b8;
  } value;
  size_t size;
};

// `x` converted like COPY from float64: a C cast, except bool is (x != 0).
ScalarArg scalar_arg(int32_t dtype, double x);

}  // namespace bp_ocl
