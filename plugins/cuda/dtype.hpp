// Element types: C++ type <-> bp_dtype, and the switch that turns a runtime
// dtype into a template instantiation (host code of .cpp and .cu files).
#pragma once

#include <cstdint>

#include "backplane/types.h"
#include "backplane_kernels/elementwise.hpp"
#include "errors.hpp"

namespace bp_cuda {

using bp_kernels::boolean;

template <class T>
struct dtype_of;
template <>
struct dtype_of<float> {
  static constexpr int32_t value = BP_FLOAT32;
};
template <>
struct dtype_of<double> {
  static constexpr int32_t value = BP_FLOAT64;
};
template <>
struct dtype_of<int32_t> {
  static constexpr int32_t value = BP_INT32;
};
template <>
struct dtype_of<int64_t> {
  static constexpr int32_t value = BP_INT64;
};
template <>
struct dtype_of<boolean> {
  static constexpr int32_t value = BP_BOOL;
};

// Bytes per element; 0 for an invalid dtype.
int64_t dtype_size(int32_t dtype);
// "float32", ...; "invalid" for anything else.
const char *dtype_name(int32_t dtype);
inline bool is_float_dtype(int32_t dtype) { return dtype == BP_FLOAT32 || dtype == BP_FLOAT64; }

template <class T>
struct type_tag {
  using type = T;
};

// Calls f(type_tag<T>{}) for the T among Ts whose dtype is `dtype`. Callers
// have validated the dtype against the operator table, so no match is a bug
// in the plugin.
template <class... Ts, class F>
void dispatch(int32_t dtype, F &&f) {
  const bool found = ((dtype == dtype_of<Ts>::value ? (f(type_tag<Ts>{}), true) : false) || ...);
  if (!found) fail(BP_ERR_INTERNAL, "cuda: no kernel for dtype %d (validation missed it)", dtype);
}

// The dtype groups of the operator table.
#define BP_FLOAT_TYPES float, double
#define BP_NUMERIC_TYPES float, double, int32_t, int64_t
#define BP_ALL_TYPES float, double, int32_t, int64_t, boolean

}  // namespace bp_cuda
