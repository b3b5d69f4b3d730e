#include "runtime_fixture.hpp"

#include <catch2/catch.hpp>

namespace bp_test {

const char *const kHostOnly = R"(
[devices]
fallback = ["cpu", "reference"]
[plugins]
disabled = ["opencl", "cuda"]
[backend.cpu-openblas]
threads = 1
)";

std::string with_test_plugins() {
  return R"(
[devices]
fallback = ["cpu", "reference"]
[plugins]
disabled = ["opencl", "cuda"]
paths = [")" BP_TEST_FAKE_PLUGIN_DIR R"("]
[backend.cpu-openblas]
threads = 1
)";
}

void start(const std::string &toml) {
  static std::string started;
  if (!started.empty()) {
    if (started != toml)
      FAIL("this test needs its own process: run it alone (ctest runs each test case alone)");
    return;
  }
  bp_status s = bp_init_from_string(toml.c_str(), "test-config.toml");
  INFO(bp_last_error());
  REQUIRE(s == BP_OK);
  started = toml;
}

}  // namespace bp_test
