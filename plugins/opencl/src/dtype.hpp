// dtype.hpp — element types as the host and the kernels see them; the facts
// (validity, kind, size, name) are the vocabulary's.
//
// Kernels compute in one type and store in another: float16 and bfloat16
// are kept as their bits (ushort: PoCL, like many drivers, has no
// cl_khr_fp16) and computed in float, as plugin.h defines their arithmetic;
// every other dtype is stored as it is computed.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "backplane/plugin_sdk.hpp"

namespace bp_ocl {

inline bool dtype_is_float(int32_t dtype) { return bp_vocab_dtype_kind(dtype) == BP_DTYPE_KIND_FLOAT; }
inline bool dtype_is_integer(int32_t dtype) {  // signed or unsigned, not bool
  const int32_t kind = bp_vocab_dtype_kind(dtype);
  return kind == BP_DTYPE_KIND_SIGNED_INT || kind == BP_DTYPE_KIND_UNSIGNED_INT;
}
inline bool dtype_is_half(int32_t dtype) { return dtype == BP_FLOAT16 || dtype == BP_BFLOAT16; }
inline size_t dtype_size(int32_t dtype) { return size_t(bp_vocab_dtype_size(dtype)); }
using bp_plugin::dtype_name;  // "float32", ...
// OpenCL C type a kernel computes in: "float" (also for the halves),
// "char", ..., "uchar" for bool.
const char *dtype_cl_type(int32_t dtype);
// OpenCL C type of the elements in memory: "ushort" for the halves, else
// dtype_cl_type.
const char *dtype_storage_type(int32_t dtype);
// OpenCL C expressions turning `value` from the storage type into the
// compute type (load) and back (store, which rounds the halves once, to
// nearest even); the functions they call are half_conversions_source()'s.
std::string load_expr(int32_t dtype, const std::string &value);
std::string store_expr(int32_t dtype, const std::string &value);
// backplane/half.h's text, which every program compiles (bp_f32_from_f16,
// bp_f16_from_f32, ...), with its float64 conversions where `fp64`.
std::string half_conversions_source(bool fp64);

// A value of some dtype's compute type, ready for clSetKernelArg (bytes + size).
struct ScalarArg {
  union {
    cl_float f32;
    cl_double f64;
    cl_int i32;
    cl_long i64;
    cl_char i8;
    cl_uchar u8;
    cl_short i16;
  } value;
  size_t size;
};

// `x` converted like COPY from float64 (a C cast, except that bool is
// x != 0 and float to integer saturates), in the dtype's compute type: a
// float16 or bfloat16 value is the float32 that holds it exactly.
ScalarArg scalar_arg(int32_t dtype, double x);

}  // namespace bp_ocl
