// The ABI table, device enumeration and description, and init's options.
#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <map>

#include "opencl_test.hpp"

using namespace ocl_test;

namespace {

int32_t count_with(std::vector<std::pair<std::string, std::string>> options, std::string *why) {
  PluginHandle p("opencl", std::move(options));
  int32_t n = -1;
  const char *reason = nullptr;
  p.check(p.api().device_count(&n, &reason), "device_count");
  *why = reason ? reason : "";
  return n;
}

// Tests that start the plugin with options put the defaults back (loading
// the .so again in one process reuses the same instance).
struct RestoreDefaults {
  ~RestoreDefaults() { PluginHandle p("opencl"); }
};

}  // namespace

TEST_CASE("the table names the backend and fills every required entry", "[devices]") {
  const bp_plugin_api &api = ocl().api();
  CHECK(api.struct_size == sizeof(bp_plugin_api));
  CHECK(api.abi_major == BP_PLUGIN_ABI_MAJOR);
  CHECK(std::string(api.name) == "opencl");
  CHECK(std::string(api.device_prefix) == "opencl");
  CHECK(api.last_error != nullptr);
  CHECK(api.copy != nullptr);
  CHECK(api.device_properties != nullptr);
  CHECK(api.host_address == nullptr);  // device memory, not host memory
}

TEST_CASE("PoCL's two pthread devices are opencl:0 and opencl:1", "[devices]") {
  PluginHandle &p = ocl();
  int32_t n = -1;
  const char *why = "unset";
  p.check(p.api().device_count(&n, &why), "device_count");
  CHECK(n == 2);
  CHECK(why == nullptr);
  for (int32_t d = 0; d < n; ++d) {
    bp_plugin_device_info info = blank_device_info();
    p.check(p.api().device_info(d, &info), "device_info");
    CHECK(info.kind == BP_DEVICE_CPU);  // PoCL's pthread device says CL_DEVICE_TYPE_CPU
    CHECK(std::string(info.model).find("pthread") != std::string::npos);
    CHECK(info.memory_total > 0);

    bp_property props[32];
    int32_t count = 0;
    p.check(p.api().device_properties(d, props, 32, &count), "device_properties");
    std::map<std::string, std::string> by_key;
    for (int32_t i = 0; i < count; ++i) by_key[props[i].key] = props[i].value;
    CHECK(by_key["platform"] == "Portable Computing Language");
    CHECK(by_key["fp64"] == "yes");
    CHECK(std::stoll(by_key["compute_units"]) >= 1);
    CHECK(std::stoull(by_key["max_alloc_bytes"]) > 0);
    CHECK_FALSE(by_key["opencl_version"].empty());
    CHECK_FALSE(by_key["driver_version"].empty());
    // A short array gets what fits, and the count says how many.
    p.check(p.api().device_properties(d, props, 2, &count), "device_properties");
    CHECK(count == 2);
  }
}

TEST_CASE("device_info honours a shorter struct from an older core", "[devices]") {
  bp_plugin_device_info info;
  std::memset(&info, 0x5A, sizeof info);
  info.struct_size = offsetof(bp_plugin_device_info, memory_total);  // up to model only
  ocl().check(ocl().api().device_info(0, &info), "device_info");
  CHECK(info.kind == BP_DEVICE_CPU);
  unsigned char untouched[sizeof info.memory_total];
  std::memset(untouched, 0x5A, sizeof untouched);
  CHECK(std::memcmp(&info.memory_total, untouched, sizeof untouched) == 0);
}

TEST_CASE("unknown device indices are errors naming the devices there are", "[devices]") {
  PluginHandle &p = ocl();
  bp_plugin_device_info info = blank_device_info();
  Outcome r = outcome(p, p.api().device_info(2, &info));
  CHECK(r.status == BP_ERR_UNKNOWN_DEVICE);
  CHECK_THAT(r.message, Catch::Contains("opencl:2") && Catch::Contains("opencl:1"));
  int32_t answer = 0;
  CHECK(p.api().supports(-1, BP_OP_ADD, BP_FLOAT32, BP_FLOAT32, &answer) == BP_ERR_UNKNOWN_DEVICE);
  CHECK(p.api().synchronize(7) == BP_ERR_UNKNOWN_DEVICE);
}

TEST_CASE("with no OpenCL platform installed there are 0 devices and a reason", "[devices]") {
  const char *name = "with no OpenCL platform installed there are 0 devices and a reason";
  if (std::getenv("BP_OCL_TEST_NO_ICD")) {  // the child below
    std::string why;
    CHECK(count_with({}, &why) == 0);
    CHECK_THAT(why, Catch::Contains("CL_PLATFORM_NOT_FOUND_KHR"));
    return;
  }
  // The ICD loader reads OCL_ICD_VENDORS once, at its first call, so this
  // runs in a fresh process: this test binary, this test, no ICD directory.
  extern char **environ;
  std::vector<std::string> env = {"OCL_ICD_VENDORS=/nonexistent-icd-dir", "BP_OCL_TEST_NO_ICD=1"};
  for (char **e = environ; *e; ++e) env.emplace_back(*e);
  std::vector<char *> envp;
  for (auto &e : env) envp.push_back(&e[0]);
  envp.push_back(nullptr);
  std::string self = "/proc/self/exe", test = name, warn = "--warn", no_tests = "NoTests";
  char *argv[] = {&self[0], &test[0], &warn[0], &no_tests[0], nullptr};
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv, envp.data()) == 0);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("option platform filters platforms by name, and no match is 0 devices with a reason",
          "[devices][options]") {
  RestoreDefaults restore;
  std::string why;
  CHECK(count_with({{"platform", "Portable"}}, &why) == 2);
  CHECK(why.empty());
  CHECK(count_with({{"platform", "NoSuchVendor"}}, &why) == 0);
  CHECK_THAT(why, Catch::Contains("NoSuchVendor") && Catch::Contains("Portable Computing Language"));
}

TEST_CASE("option device_type selects kinds, and no such device is 0 devices with a reason",
          "[devices][options]") {
  RestoreDefaults restore;
  std::string why;
  CHECK(count_with({{"device_type", "cpu"}}, &why) == 2);
  CHECK(count_with({{"device_type", "gpu"}}, &why) == 0);
  CHECK_THAT(why, Catch::Contains("gpu"));
  CHECK(count_with({{"device_type", "all"}}, &why) == 2);
}

TEST_CASE("bad options are init errors that say what is accepted", "[devices][options]") {
  RestoreDefaults restore;
  for (auto option : std::vector<std::pair<std::string, std::string>>{
           {"device_type", "quantum"}, {"fp64", "maybe"}, {"threads", "4"}}) {
    try {
      PluginHandle p("opencl", {option});
      FAIL("init accepted " << option.first << " = " << option.second);
    } catch (const std::runtime_error &e) {
      CHECK_THAT(e.what(), Catch::Contains("(9)") && Catch::Contains(option.first));
    }
  }
}

TEST_CASE("option fp64 = off makes a device behave like one without float64",
          "[devices][options]") {
  RestoreDefaults restore;
  PluginHandle p("opencl", {{"fp64", "off"}});
  CHECK_FALSE(supported(p, BP_OP_ADD, BP_FLOAT64, BP_FLOAT64));
  CHECK_FALSE(supported(p, BP_OP_COPY, BP_FLOAT32, BP_FLOAT64));
  CHECK_FALSE(supported(p, BP_OP_ARANGE, BP_FLOAT32, BP_FLOAT32));  // defined in float64
  CHECK_FALSE(supported(p, BP_OP_CUMSUM, BP_FLOAT64, BP_FLOAT64));
  CHECK_FALSE(supported(p, BP_OP_GATHER_ND, BP_FLOAT64, BP_FLOAT64));
  CHECK(supported(p, BP_OP_ADD, BP_FLOAT32, BP_FLOAT32));
  // float32 reductions and scans then accumulate in float (compensated); still close.
  std::mt19937_64 rng(41);
  const Tensor x = random_tensor(dense(BP_FLOAT32, {7, 3000}), rng);
  for (int32_t op : {BP_OP_SUM, BP_OP_MEAN, BP_OP_NORM}) {
    const Bytes got = run_on(p, 0, op, attrs_with(), {x}, dense(BP_FLOAT32, {7, 1}));
    const Bytes want = run_on(ref(), 0, op, attrs_with(), {x}, dense(BP_FLOAT32, {7, 1}));
    INFO("fp64 off, " << op_name(op));
    check_buffers(BP_FLOAT32, got, want, table_tolerance(TestBound::float32_sum, BP_FLOAT32), "opencl");
  }
  {
    const Bytes got = run_on(p, 0, BP_OP_CUMSUM, attrs_with(), {x}, x.view());
    const Bytes want = run_on(ref(), 0, BP_OP_CUMSUM, attrs_with(), {x}, x.view());
    INFO("fp64 off, cumsum");
    check_buffers(BP_FLOAT32, got, want, table_tolerance(TestBound::float32_sum, BP_FLOAT32), "opencl");
  }
  // Random float32 needs no float64 either.
  const Bytes got = run_on(p, 1, BP_OP_RANDOM_UNIFORM, attrs_with(0, 1, 5), {}, dense(BP_FLOAT32, {64}));
  const Bytes want = run_on(ref(), 0, BP_OP_RANDOM_UNIFORM, attrs_with(0, 1, 5), {}, dense(BP_FLOAT32, {64}));
  INFO("fp64 off, uniform float32");
  check_buffers(BP_FLOAT32, got, want, kExact, "opencl");
}

TEST_CASE("supports declares what plugin.h defines, and nothing else", "[devices]") {
  PluginHandle &p = ocl();
  for (int32_t op = 0; op < BP_OP_LIMIT + 2; ++op)
    for (int32_t dtype = 0; dtype <= BP_DTYPE_COUNT; ++dtype)
      for (int32_t out = 0; out <= BP_DTYPE_COUNT; ++out) {
        INFO("op " << op << " dtype " << dtype << " out " << out);
        // ATTENTION is an optional fused entry OpenCL leaves out (its
        // devices run bp_attention's composite).
        const bool defined = op != BP_OP_ATTENTION && supported(ref(), op, dtype, out);
        CHECK(supported(p, op, dtype, out) == defined);
      }
}
