// Discovery and loading: broken plugins are rejected with their reason and
// everything else keeps working.
#include <catch2/catch.hpp>

#include <map>

#include "runtime_fixture.hpp"

using bp_test::start;

namespace {
std::map<std::string, bp_plugin_report> reports_by_file() {
  std::map<std::string, bp_plugin_report> out;
  for (const bp_plugin_report &r : bp_test::plugin_reports(1)) {
    std::string path = r.path;
    out[path.substr(path.rfind('/') + 1)] = r;
  }
  return out;
}
}  // namespace

TEST_CASE("every broken test plugin is rejected with its reason") {
  start(bp_test::with_test_plugins());
  auto r = reports_by_file();
  auto reason = [&](const char *file) {
    INFO(file);
    REQUIRE(r.count(file) == 1);
    return std::string(r[file].reason);
  };
  CHECK(r["libbackplane-wrong-abi.so"].loaded == 0);
  CHECK(reason("libbackplane-wrong-abi.so") == "ABI major version 99 found, this core needs 1");
  CHECK(r["libbackplane-short-table.so"].loaded == 0);
  CHECK(reason("libbackplane-short-table.so").find("struct_size 32 is smaller") == 0);
  CHECK(r["libbackplane-no-entry.so"].loaded == 0);
  CHECK(reason("libbackplane-no-entry.so") == "missing entry symbol bp_plugin_get_api");
  CHECK(r["libbackplane-null-execute.so"].loaded == 0);
  CHECK(reason("libbackplane-null-execute.so") == "required entry 'execute' is NULL");
  CHECK(r["libbackplane-refuses-host.so"].loaded == 0);
  CHECK(reason("libbackplane-refuses-host.so").find("returned NULL") != std::string::npos);
  CHECK(r["libbackplane-not-elf.so"].loaded == 0);
  CHECK(reason("libbackplane-not-elf.so") == "not an ELF file (21 bytes)");
  // A NULL version loaded in 1.0 and still does (bp check fails it).
  CHECK(r["libbackplane-null-version.so"].loaded == 1);
  CHECK(std::string(r["libbackplane-null-version.so"].version).empty());
  // Two plugins claim the backend name "dup": the first loads, the second is refused.
  CHECK(r["libbackplane-duplicate-name-a.so"].loaded == 1);
  CHECK(r["libbackplane-duplicate-name-b.so"].loaded == 0);
  CHECK(reason("libbackplane-duplicate-name-b.so").find("duplicate backend name 'dup'") == 0);
  // A plugin whose init fails loads, but its start is reported as failed.
  CHECK(r["libbackplane-failing-init.so"].loaded == 1);
  CHECK(r["libbackplane-failing-init.so"].device_count == 0);
  CHECK(reason("libbackplane-failing-init.so").find("the fake device refused to start") != std::string::npos);
  // The real backends are unaffected.
  CHECK(r["libbackplane-reference.so"].loaded == 1);
  CHECK(r["libbackplane-reference.so"].device_count == 1);
  CHECK((bp::ones({2}, bp::f32, bp::Device("reference")) * 3.0).to_vector<float>()[0] == 3);
}

TEST_CASE("a device of a backend that failed to start is unknown, with the reason") {
  start(bp_test::with_test_plugins());
  bp_device d;
  REQUIRE(bp_device_get("failinit:0", &d) == BP_ERR_UNKNOWN_DEVICE);
  CHECK(std::string(bp_last_error()).find("failed to start") != std::string::npos);
  CHECK(std::string(bp_last_error()).find("the fake device refused to start") != std::string::npos);
}

TEST_CASE("disabled plugins are reported and never loaded") {
  start(bp_test::kHostOnly);
  bool found = false;
  for (const bp_plugin_report &r : bp_test::plugin_reports(0)) {
    if (std::string(r.name) == "opencl") {
      found = true;
      CHECK(r.loaded == 0);
      CHECK(std::string(r.reason) == "disabled by the config key plugins.disabled");
    }
  }
  if (!found) WARN("no opencl plugin was built, nothing to disable");
  bp_device d;
  CHECK(bp_device_get("opencl:0", &d) == BP_ERR_UNKNOWN_DEVICE);
}

TEST_CASE("a required plugin that cannot load makes start-up fail with the reason") {
  bp_status s = bp_init_from_string(R"(
[plugins]
paths = [")" BP_TEST_FAKE_PLUGIN_DIR R"("]
required = ["wrong-abi"]
)",
                                    "required.toml");
  REQUIRE(s == BP_ERR_PLUGIN);
  CHECK(std::string(bp_last_error()).find("required plugin 'wrong-abi'") != std::string::npos);
  CHECK(std::string(bp_last_error()).find("ABI major version 99") != std::string::npos);
  // A failed start leaves the runtime unstarted: a good config can follow.
  REQUIRE(bp_init_from_string("[plugins]\ndisabled = [\"opencl\", \"cuda\"]\n", "good.toml") == BP_OK);
  CHECK(bp::cpu().name() == "cpu:0");
}

TEST_CASE("BACKPLANE_PLUGIN_PATH adds a directory") {
  setenv("BACKPLANE_PLUGIN_PATH", BP_TEST_FAKE_PLUGIN_DIR, 1);
  start(bp_test::kHostOnly);
  CHECK(bp::Device("fake:0").name() == "fake:0");
}

TEST_CASE("a plugin that aborts while loading is rejected when probed in a child process") {
  start(R"(
[plugins]
paths = [")" BP_TEST_FAKE_PLUGIN_DIR R"(/crashing"]
disabled = ["opencl", "cuda"]
[plugins.aborts-on-load]
probe_in_subprocess = true
)");
  auto r = reports_by_file();
  REQUIRE(r.count("libbackplane-aborts-on-load.so") == 1);
  CHECK(r["libbackplane-aborts-on-load.so"].loaded == 0);
  // Fresh, or read back from the verdict cache of an earlier run.
  CHECK(std::string(r["libbackplane-aborts-on-load.so"].reason)
            .rfind("the plugin crashed while loading or starting in a probe process (signal 6, SIGABRT)", 0) == 0);
  CHECK(bp::cpu().name() == "cpu:0");  // this process is still here
}
