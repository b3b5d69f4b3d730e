// Starts the runtime with a configuration chosen by each test. ctest runs
// every test case in a process of its own, so each may pick its own.
#pragma once

#include <string>
#include <vector>

#include "backplane.hpp"
#include "tensor_elements.hpp"

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
extern const std::string kHostAndOpenCL;

// kHostAndOpenCL's backends with opencl first in the fallback order: the
// collective and fusion tests' runtime.
extern const std::string kOpenCLFirst;

// Starts the runtime with kHostAndOpenCL and runs the calling test case once
// for each of cpu:0, reference:0 and, when the OpenCL backend has a device,
// opencl:0 (its own suite is skipped where it has none).
bp::Device each_host_or_opencl_device();

// Every plugin report, in order, each read (and REQUIREd to succeed) with
// bp_plugin_report_get(i, count_devices, ...).
std::vector<bp_plugin_report> plugin_reports(int32_t count_devices);

// The routing trace's lines so far, each ended by a newline.
std::string trace_text();

// The routing trace's lines so far, each read (and REQUIREd to succeed).
std::vector<std::string> trace_lines();

// How many of lines start with prefix.
int count_lines_starting(const std::vector<std::string> &lines, const std::string &prefix);

// Whether bp_last_error() contains part.
bool last_error_mentions(const std::string &part);

}  // namespace bp_test
