#include "runtime_fixture.hpp"

#include <algorithm>
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

std::string with_plugins_in(const std::string &dir) {
  return "[devices]\nfallback = [\"cpu\", \"reference\"]\n[plugins]\ndisabled = [\"opencl\", \"cuda\"]\npaths = [\"" +
         dir + "\"]\n[backend.cpu-openblas]\nthreads = 1\n";
}

std::string with_test_plugins() { return with_plugins_in(BP_TEST_FAKE_PLUGIN_DIR); }

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

bp::Device each_host_device() {
  start(kHostOnly);
  return bp::Device(GENERATE(as<std::string>{}, "cpu:0", "reference:0"));
}

namespace {

// The host backends and OpenCL, CUDA off, tried in the order fallback names.
std::string with_opencl(const char *fallback) {
  return std::string("\n[devices]\nfallback = ") + fallback +
         "\n[plugins]\ndisabled = [\"cuda\"]\n[backend.cpu-openblas]\nthreads = 1\n";
}

}  // namespace

const std::string kHostAndOpenCL = with_opencl(R"(["cpu", "reference", "opencl"])");
const std::string kOpenCLFirst = with_opencl(R"(["opencl", "cpu", "reference"])");

bp::Device each_host_or_opencl_device() {
  start(kHostAndOpenCL);
  std::vector<std::string> names;
  for (const char *name : {"cpu:0", "reference:0", "opencl:0"}) {
    bp_device d = -1;
    if (bp_device_get(name, &d) == BP_OK) names.push_back(name);
  }
  return bp::Device(GENERATE_COPY(from_range(names)));
}

std::vector<bp_plugin_report> plugin_reports(int32_t count_devices) {
  std::vector<bp_plugin_report> out;
  for (int32_t i = 0; i < bp_plugin_report_count(); ++i) {
    bp_plugin_report r{};
    r.struct_size = sizeof r;
    REQUIRE(bp_plugin_report_get(i, count_devices, &r) == BP_OK);
    out.push_back(r);
  }
  return out;
}

std::vector<std::string> trace_lines() {
  std::vector<std::string> out;
  char buf[1024];
  for (int32_t i = 0; i < bp_trace_count(); ++i) {
    REQUIRE(bp_trace_line(i, buf, sizeof buf) == BP_OK);
    out.push_back(buf);
  }
  return out;
}

int count_lines_starting(const std::vector<std::string> &lines, const std::string &prefix) {
  return int(std::count_if(lines.begin(), lines.end(), [&](const std::string &l) { return l.rfind(prefix, 0) == 0; }));
}

bool last_error_mentions(const std::string &part) {
  return std::string(bp_last_error()).find(part) != std::string::npos;
}

std::string trace_text() {
  std::string all;
  char line[512];
  for (int32_t i = 0; i < bp_trace_count(); ++i)
    if (bp_trace_line(i, line, sizeof line) == BP_OK) all += std::string(line) + "\n";
  return all;
}

}  // namespace bp_test
