// What the OpenCL plugin tests share, on top of the harness
// (tests/support/plugin_harness.hpp): both plugins (opencl under test, the
// reference as the oracle), loaded and started once per process.
#pragma once

#include <string>
#include <vector>

#include "plugin_harness.hpp"

namespace ocl_test {

using namespace bp_test;

// The runner sets POCL_DEVICES="pthread pthread", so opencl has two devices.
inline PluginHandle &ocl() {
  static PluginHandle handle("opencl");
  return handle;
}
inline PluginHandle &ref() { return reference(); }

// Runs op on opencl (device `device`) and on the reference, and compares.
inline void check_against_reference(int32_t op, const bp_op_attrs &attrs, const std::vector<Tensor> &inputs,
                                    const View &out, const Tolerance &tol, const std::string &what,
                                    int32_t device = 0) {
  INFO(what);
  check_against(ocl(), device, ref(), op, attrs, inputs, out.dtype, out.layout, tol);
}

// A float32 result within `f32` (relative and absolute), a float64 one within
// 1e-13 (a few ulp of the terms' size), any other dtype exact.
inline Tolerance float_tolerance(int32_t dtype, double f32) {
  if (dtype == BP_FLOAT32) return {f32, f32};
  if (dtype == BP_FLOAT64) return {1e-13, 1e-13};
  return kExact;
}

}  // namespace ocl_test
