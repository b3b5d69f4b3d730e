// What bp_init checks beyond the file's syntax and schema: settings only a
// running runtime can judge fail bp_init with the position of their key,
// instead of a backend or device going missing later.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <set>
#include <string>

#include "backplane/backplane.h"
#include "backplane.hpp"
#include "skip.hpp"

namespace {

// bp_init_from_string's status, the message kept for the checks.
bp_status init(const std::string &toml, std::string &message) {
  bp_status s = bp_init_from_string(toml.c_str(), "opts.toml");
  message = s == BP_OK ? "" : bp_last_error();
  return s;
}

const std::string kHost = "[plugins]\ndisabled = [\"cuda\"]\n";

}  // namespace

TEST_CASE("a backend option its init refuses fails bp_init at the option's position") {
  std::string message;
  for (const char *bad : {"-5", "\"x\"", "nan", "1e9"}) {
    INFO(bad);
    REQUIRE(init(kHost + "[backend.cpu-openblas]\nthreads = " + bad + "\n", message) == BP_ERR_CONFIG);
    CHECK(message.rfind("opts.toml:4:1: backend.cpu-openblas.threads: ", 0) == 0);
    CHECK(message.find("threads") != std::string::npos);
  }
  // A failed bp_init starts nothing, so a corrected configuration still can.
  REQUIRE(init(kHost + "[backend.cpu-openblas]\nthreads = 1\n", message) == BP_OK);
  bp_device cpu = -1;
  CHECK(bp_device_get("cpu:0", &cpu) == BP_OK);
}

TEST_CASE("an OpenCL device_type outside its words fails bp_init at its position") {
  std::string message;
  bp_status s = init(kHost + "[backend.opencl]\nplatform = \"\"\ndevice_type = \"banana\"\n", message);
  if (s == BP_OK) {
    bp_plugin_report r{};
    r.struct_size = sizeof r;
    bool opencl_loaded = false;
    for (int32_t i = 0; i < bp_plugin_report_count(); ++i)
      if (bp_plugin_report_get(i, 0, &r) == BP_OK && std::string(r.name) == "opencl") opencl_loaded = r.loaded;
    REQUIRE_FALSE(opencl_loaded);  // only a missing backend leaves its options unchecked
    bp_test::skip("the opencl plugin is not built here");
    return;
  }
  REQUIRE(s == BP_ERR_CONFIG);
  CHECK(message.rfind("opts.toml:5:1: backend.opencl.device_type: ", 0) == 0);
  CHECK(message.find("banana") != std::string::npos);
}

TEST_CASE("an unknown default device fails bp_init at its position") {
  std::string message;
  REQUIRE(init(kHost + "[devices]\ndefault = \"tpu:0\"\n", message) == BP_ERR_CONFIG);
  CHECK(message.rfind("opts.toml:4:1: devices.default: unknown device 'tpu:0'", 0) == 0);
  REQUIRE(init(kHost + "[devices]\ndefault = \"cpu:7\"\n", message) == BP_ERR_CONFIG);
  CHECK(message.find("devices.default: unknown device 'cpu:7'") != std::string::npos);
  // The failed starts started backends; none of their devices is left over.
  REQUIRE(init(kHost + "[devices]\ndefault = \"cpu:0\"\n", message) == BP_OK);
  int32_t count = 0;
  bp_device ids[16];
  REQUIRE(bp_devices(ids, 16, &count) == BP_OK);
  std::set<std::string> names;
  for (int32_t i = 0; i < count; ++i) names.insert(bp_device_name(ids[i]));
  CHECK(names.size() == size_t(count));  // no device listed twice
  for (int32_t i = 0; i < count; ++i) {
    bp::Tensor t = bp::ones({2}, bp::f32, bp::Device(bp_device_name(ids[i])));
    CHECK(t.sum().item() == 2);
  }
}

TEST_CASE("a plugin directory that does not exist fails bp_init at its position") {
  std::string message;
  REQUIRE(init(kHost.substr(0, kHost.size() - 1) + "\npaths = [\"/nonexistent/plugins\"]\n", message) ==
          BP_ERR_CONFIG);
  CHECK(message == "opts.toml:3:1: plugins.paths: '/nonexistent/plugins' does not exist");
}

TEST_CASE("a malformed environment override is reported once and then left out") {
  setenv("BACKPLANE_TRACE", "banana", 1);
  bp_device cpu = -1;
  REQUIRE(bp_cpu(&cpu) == BP_ERR_CONFIG);
  CHECK(std::string(bp_last_error()).find("env BACKPLANE_TRACE: dispatch.trace: expected 1, 0, true or false") !=
        std::string::npos);
  CHECK(bp_cpu(&cpu) == BP_OK);
  CHECK(bp_cpu(&cpu) == BP_OK);
}

TEST_CASE("an option at its documented default starts nothing at bp_init") {
  std::string message;
  REQUIRE(init(kHost + "[backend.cpu-openblas]\nthreads = 0\n", message) == BP_OK);
  auto cpu_devices = [] {
    bp_plugin_report r{};
    r.struct_size = sizeof r;
    for (int32_t i = 0; i < bp_plugin_report_count(); ++i)
      if (bp_plugin_report_get(i, 0, &r) == BP_OK && std::string(r.name) == "cpu-openblas") return r.device_count;
    return -2;
  };
  CHECK(cpu_devices() == -1);  // not started yet
  bp_device cpu = -1;
  REQUIRE(bp_cpu(&cpu) == BP_OK);
  CHECK(cpu_devices() == 1);
}
