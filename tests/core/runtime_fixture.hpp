// Starts the runtime with a configuration chosen by each test. ctest runs
// every test case in a process of its own, so each may pick its own.
#pragma once

#include <string>
#include <vector>

#include "backplane.hpp"

namespace bp_test {

// Host backends only (cpu-openblas, reference): no OpenCL or CUDA devices.
extern const char *const kHostOnly;

// kHostOnly plus the directory of test-only plugins (fake and broken ones).
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

}  // namespace bp_test
