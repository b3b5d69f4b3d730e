// dtype.hpp — element types as the host and the kernels see them; the facts
// (validity, kind, size, name) are the vocabulary's.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>

#include "backplane/plugin_sdk.hpp"

namespace bp_ocl {

inline bool dtype_is_float(int32_t dtype) { return bp_vocab_dtype_kind(dtype) == BP_DTYPE_KIND_FLOAT; }
inline bool dtype_is_integer(int32_t dtype) {  // signed or unsigned, not bool
  const int32_t kind = bp_vocab_dtype_kind(dtype);
  return kind == BP_DTYPE_KIND_SIGNED_INT || kind == BP_DTYPE_KIND_UNSIGNED_INT;
}
inline size_t dtype_size(int32_t dtype) { return size_t(bp_vocab_dtype_size(dtype)); }
using bp_plugin::dtype_name;  // "float32", ...
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
