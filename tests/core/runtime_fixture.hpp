// Starts the runtime with a configuration chosen by each test. ctest runs
// every test case in a process of its own, so each may pick its own.
#pragma once

#include <string>
#include <vector>

#include "backplane.hpp"

namespace bp_test {

// Host backends only (cpu-openblas, reference): no OpenCL or CUDA devices.
extern const char *const kHostOnly;

// kHostOnly's backends plus the plugins in dir.
std::string with_plugins_in(const std::string &dir);

// with_plugins_in the directory of test-only plugins (fake and broken ones).
std::string with_test_plugins();

// Starts the runtime with this TOML, or checks it already runs with it.
void start(const std::string &toml);

// Starts the runtime with kHostOnly and runs the calling test case once for
// each host backend's device (a Catch generator): cpu:0, then reference:0.
bp::Device each_host_device();

// Host backends and OpenCL (PoCL), no CUDA: the numeric tests' runtime.
extern const char *const kHostAndOpenCL;

// Starts the runtime with kHostAndOpenCL and runs the calling test case once
// for each of cpu:0, reference:0 and, when the OpenCL backend has a device,
// opencl:0 (its own suite is skipped where it has none).
bp::Device each_host_or_opencl_device();

// Every plugin report, in order, each read (and REQUIREd to succeed) with
// bp_plugin_report_get(i, count_devices, ...).
std::vector<bp_plugin_report> plugin_reports(int32_t count_devices);

// A one-dimensional tensor on d holding these elements as they are in
// memory (S is the element's host type, or its bits for the 16-bit floats),
// through the C API, which takes every dtype.
template <class S>
bp::Tensor from_elements(bp_dtype dtype, const std::vector<S> &values, const bp::Device &d) {
  const int64_t shape[1] = {int64_t(values.size())};
  bp_tensor h = BP_NO_TENSOR;
  bp::check(bp_from_host(d.id(), dtype, 1, shape, values.data(), &h));
  return bp::Tensor::adopt(h);
}

// The elements of t as they are in memory (the inverse of from_elements).
template <class S>
std::vector<S> elements(const bp::Tensor &t) {
  std::vector<S> out(size_t(t.numel()));
  bp::check(bp_to_host(t.handle(), out.data(), out.size() * sizeof(S)));
  return out;
}

// The routing trace's lines so far, each ended by a newline.
std::string trace_text();

// Whether the calling thread's last error message contains word.
inline bool last_error_mentions(const std::string &word) {
  return std::string(bp_last_error()).find(word) != std::string::npos;
}

}  // namespace bp_test
