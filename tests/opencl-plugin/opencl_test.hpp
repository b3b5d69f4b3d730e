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

}  // namespace ocl_test
