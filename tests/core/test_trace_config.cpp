// The routing trace, bp_init rules and configuration errors.
#include <catch2/catch.hpp>

#include <map>

#include "runtime_fixture.hpp"

using bp_test::start;

using bp_test::trace_lines;

TEST_CASE("the trace records where each operator ran and that nothing was copied") {
  start(std::string(bp_test::kHostOnly) + "\n[dispatch]\ntrace = true\n");
  bp::Tensor x = bp::ones({2, 2}, bp::f32, bp::Device("reference"));
  bp_trace_clear();
  bp::Tensor y = x + x;
  auto lines = trace_lines();
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "add float32 [2, 2]: inputs on reference:0, ran on backend reference (owner of the inputs' device), copies 0");
  bp::Tensor z = y.copy_to(bp::cpu());
  lines = trace_lines();
  REQUIRE(lines.size() == 2);
  CHECK(lines[1].find("copy_to float32 [2, 2]: reference:0 -> cpu:0, explicit copy of 16 bytes") == 0);
  REQUIRE(bp_trace_enable(0) == BP_OK);
  bp::Tensor w = x + x;
  CHECK(bp_trace_count() == 2);
  char small[8];
  REQUIRE(bp_trace_line(0, small, sizeof small) == BP_OK);
  CHECK(std::string(small) == "add flo");
  CHECK(bp_trace_line(99, small, sizeof small) == BP_ERR_INVALID_ARGUMENT);
}

TEST_CASE("bp_init twice is a state error and the first configuration stays") {
  start(bp_test::kHostOnly);
  CHECK(bp_init_from_string("[devices]\ndefault = \"reference\"\n", "again.toml") == BP_ERR_STATE);
  CHECK(bp_init(nullptr) == BP_ERR_STATE);
  CHECK(bp::default_device() == bp::cpu());
}

TEST_CASE("a malformed configuration is reported with file, line and column") {
  REQUIRE(bp_init_from_string("[devices]\ndefault = \"cpu\"\nfallback = [1, 2]\n", "broken.toml") ==
          BP_ERR_CONFIG);
  std::string msg = bp_last_error();
  CHECK(msg.find("broken.toml:3:") == 0);
  CHECK(msg.find("devices.fallback") != std::string::npos);
  REQUIRE(bp_init_from_string("[devices\n", "syntax.toml") == BP_ERR_CONFIG);
  CHECK(std::string(bp_last_error()).find("syntax.toml:1:") == 0);
  CHECK(bp_init("/nonexistent/backplane.toml") == BP_ERR_CONFIG);
  CHECK(std::string(bp_last_error()).find("/nonexistent/backplane.toml") != std::string::npos);
}

TEST_CASE("implicit start reads BACKPLANE_CONFIG and reports a bad file on every call") {
  setenv("BACKPLANE_CONFIG", "/nonexistent/bp.toml", 1);
  bp_device d;
  CHECK(bp_cpu(&d) == BP_ERR_CONFIG);
  CHECK(bp_cpu(&d) == BP_ERR_CONFIG);
  CHECK(std::string(bp_last_error()).find("/nonexistent/bp.toml") != std::string::npos);
  CHECK(bp_num_gpus() == 0);
}

TEST_CASE("configuration entries say where each value came from") {
  setenv("BACKPLANE_TRACE", "1", 1);
  start(bp_test::kHostOnly);
  std::map<std::string, std::pair<std::string, std::string>> entries;
  for (int32_t i = 0; i < bp_config_count(); ++i) {
    const char *k, *v, *o;
    REQUIRE(bp_config_entry(i, &k, &v, &o) == BP_OK);
    entries[k] = {v, o};
  }
  CHECK(entries["devices.fallback"].second.find("test-config.toml:3:") == 0);
  CHECK(entries["dispatch.trace"].second == "env BACKPLANE_TRACE");
  CHECK(entries["dispatch.host_fallback"].second == "default");
  CHECK(bp_config_entry(-1, nullptr, nullptr, nullptr) == BP_ERR_INVALID_ARGUMENT);
}
