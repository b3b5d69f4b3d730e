// Skipping a test that cannot run here. Catch2 v2 has no SKIP, so a test
// calls bp_test::skip(reason) and returns; the shared runner (catch_main.cpp)
// then exits with kSkipExitCode when everything else passed, and ctest
// (SKIP_RETURN_CODE, set by bp_add_catch_test) reports the test as skipped
// with the reason in its output. A failure anywhere still fails the test.
#pragma once

#include <catch2/catch.hpp>

#include <string>

namespace bp_test {

constexpr int kSkipExitCode = 77;

// Set by skip(); read by the runner after the run.
inline bool &skipped_flag() {
  static bool skipped = false;
  return skipped;
}

inline void skip(const std::string &reason) {
  WARN("skipped: " << reason);
  skipped_flag() = true;
}

}  // namespace bp_test
