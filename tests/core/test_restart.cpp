// bp_testing_restart (backplane/testing.h): one test process runs the
// runtime under several configurations through the library alone.
#include <catch2/catch.hpp>

#include <string>

#include "backplane/backplane.h"
#include "backplane/testing.h"
#include "skip.hpp"

namespace {

// The host backends only: LeakSanitizer's exit scan (ASan job) trips over
// the dynamic TLS PoCL's LLVM leaves in this process.
bp_status init(const std::string &toml) { return bp_init_from_string(toml.c_str(), "restart.toml"); }

std::string default_device_name() {
  bp_device d = -1;
  REQUIRE(bp_default_device(&d) == BP_OK);
  return bp_device_name(d);
}

// 2 + 3 computed on `device`, read back.
float two_plus_three(const char *device) {
  bp_device d = -1;
  REQUIRE(bp_device_get(device, &d) == BP_OK);
  const int64_t shape[1] = {1};
  bp_tensor a = BP_NO_TENSOR, sum = BP_NO_TENSOR;
  REQUIRE(bp_full(d, BP_FLOAT32, 1, shape, 2.0, &a) == BP_OK);
  REQUIRE(bp_binary_scalar(BP_OP_ADD, a, 3.0, 0, &sum) == BP_OK);
  float out = 0;
  REQUIRE(bp_to_host(sum, &out, sizeof out) == BP_OK);
  bp_tensor_release(a);
  bp_tensor_release(sum);
  return out;
}

}  // namespace

TEST_CASE("bp_testing_restart starts the next runtime from its own configuration") {
  REQUIRE(bp_testing_restart() == BP_OK);  // nothing running yet: nothing to do
  REQUIRE(init("[plugins]\ndisabled = [\"cuda\", \"opencl\"]\n[devices]\ndefault = \"reference\"\n") == BP_OK);
  CHECK(default_device_name() == "reference:0");
  CHECK(two_plus_three("reference:0") == 5.0f);

  bp_device ref = -1;
  REQUIRE(bp_device_get("reference:0", &ref) == BP_OK);
  const int64_t shape[1] = {4};
  bp_tensor kept = BP_NO_TENSOR;
  REQUIRE(bp_zeros(ref, BP_FLOAT32, 1, shape, &kept) == BP_OK);
  CHECK(bp_testing_restart() == BP_ERR_STATE);
  CHECK(std::string(bp_last_error()).find("1 tensor(s) are still live") != std::string::npos);
  CHECK(default_device_name() == "reference:0");  // the refused restart left the runtime running
  REQUIRE(bp_tensor_release(kept) == BP_OK);

  REQUIRE(bp_testing_restart() == BP_OK);
  REQUIRE(init("[plugins]\ndisabled = [\"cuda\", \"opencl\", \"reference\"]\n") == BP_OK);
  bp_device none = -1;
  CHECK(bp_device_get("reference:0", &none) != BP_OK);  // disabled now
  int32_t count = 0;
  REQUIRE(bp_devices(nullptr, 0, &count) == BP_OK);
  for (int32_t i = 0; i < count; ++i) {
    INFO(bp_device_name(i));
    CHECK(std::string(bp_device_name(i)).rfind("reference:", 0) != 0);
  }
  CHECK(bp_init(nullptr) == BP_ERR_STATE);  // running again: bp_init's usual rule

  // The reference backend, started by the first runtime, works again in a
  // third one without its init running twice.
  REQUIRE(bp_testing_restart() == BP_OK);
  REQUIRE(init("[plugins]\ndisabled = [\"cuda\", \"opencl\"]\n") == BP_OK);
  CHECK(two_plus_three("reference:0") == 5.0f);
}

TEST_CASE("a restarted runtime refuses other options for a backend already started") {
  REQUIRE(init("[plugins]\ndisabled = [\"cuda\", \"opencl\"]\n") == BP_OK);
  bp_device cpu = -1;
  if (bp_device_get("cpu:0", &cpu) != BP_OK || std::string(bp_device_name(cpu)) != "cpu:0") {
    bp_test::skip("the cpu-openblas plugin is not built");
    return;
  }
  CHECK(two_plus_three("cpu:0") == 5.0f);  // started with its default options

  REQUIRE(bp_testing_restart() == BP_OK);
  REQUIRE(init("[plugins]\ndisabled = [\"cuda\", \"opencl\"]\n[backend.cpu-openblas]\nthreads = 1\n") == BP_ERR_CONFIG);
  const std::string message = bp_last_error();
  INFO(message);
  CHECK(message.find("backend cpu-openblas: already started in this process with other [backend.cpu-openblas] "
                     "options") != std::string::npos);

  // The failed start left nothing running; the options it started with work.
  REQUIRE(bp_testing_restart() == BP_OK);
  REQUIRE(init("[plugins]\ndisabled = [\"cuda\", \"opencl\"]\n") == BP_OK);
  CHECK(two_plus_three("cpu:0") == 5.0f);
}
