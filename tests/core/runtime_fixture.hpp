// Starts the runtime with a configuration chosen by each test. ctest runs
// every test case in a process of its own, so each may pick its own.
#pragma once

#include <string>

#include "backplane.hpp"

namespace bp_test {

// Host backends only (cpu-openblas, reference): no OpenCL or CUDA devices.
extern const char *const kHostOnly;

// kHostOnly plus the directory of test-only plugins (fake and broken ones).
std::string with_test_plugins();

// Starts the runtime with this TOML, or checks it already runs with it.
void start(const std::string &toml);

}  // namespace bp_test
