// The seed chapter's device functions on host backends: cpu(), gpu(i),
// num_gpus(), try_gpu(), try_all_gpus(), names and unknown devices.
#include <catch2/catch.hpp>

#include "runtime_fixture.hpp"

using bp_test::start;

TEST_CASE("cpu() is cpu:0 and names resolve to the same device") {
  start(bp_test::kHostOnly);
  bp::Device c = bp::cpu();
  CHECK(c.name() == "cpu:0");
  CHECK(bp::Device("cpu") == c);
  CHECK(bp::Device("cpu:0") == c);
  CHECK(bp::Device("reference:0").name() == "reference:0");
  CHECK(bp::Device("reference") == bp::Device("reference:0"));
  bp_device_info info = c.info();
  CHECK(std::string(info.backend) == "cpu-openblas");
  CHECK(info.kind == BP_DEVICE_CPU);
  CHECK(info.is_accelerator == 0);
}

TEST_CASE("without accelerators num_gpus is 0, try_gpu falls back to cpu:0, try_all_gpus is empty") {
  start(bp_test::kHostOnly);
  CHECK(bp::num_gpus() == 0);
  CHECK(bp::try_gpu() == bp::cpu());
  CHECK(bp::try_gpu(10) == bp::cpu());
  CHECK(bp::try_all_gpus().empty());
  CHECK(bp::default_device() == bp::cpu());
}

TEST_CASE("gpu(i) that does not exist is an error listing the devices that do") {
  start(bp_test::kHostOnly);
  try {
    bp::gpu(0);
    FAIL("gpu(0) should not exist");
  } catch (const bp::UnknownDeviceError &e) {
    std::string msg = e.what();
    CHECK(msg.find("gpu:0") != std::string::npos);
    CHECK(msg.find("cpu:0") != std::string::npos);
    CHECK(msg.find("reference:0") != std::string::npos);
  }
}

TEST_CASE("cuda:10 is an unknown device naming what exists") {
  start(bp_test::kHostOnly);
  bp_device d = -1;
  REQUIRE(bp_device_get("cuda:10", &d) == BP_ERR_UNKNOWN_DEVICE);
  std::string msg = bp_last_error();
  CHECK(msg.find("cuda:10") != std::string::npos);
  CHECK(msg.find("available devices: ") != std::string::npos);
  CHECK(msg.find("cpu:0") != std::string::npos);
  CHECK(d == -1);  // out-pointers are written only on success
  CHECK(bp_device_get("cpu:1", &d) == BP_ERR_UNKNOWN_DEVICE);
  CHECK(std::string(bp_last_error()).find("has 1 devices") != std::string::npos);
  CHECK(bp_device_get("cpu:x", &d) == BP_ERR_UNKNOWN_DEVICE);
  CHECK(bp_device_get("cpu:-1", &d) == BP_ERR_UNKNOWN_DEVICE);
  CHECK(bp_device_get(nullptr, &d) == BP_ERR_INVALID_ARGUMENT);
}

TEST_CASE("an accelerator-kind device is gpu(0) in fallback order") {
  start(R"(
[devices]
default = "auto"
fallback = ["fake", "cpu"]
[plugins]
paths = [")" BP_TEST_FAKE_PLUGIN_DIR R"("]
disabled = ["opencl", "cuda", "dup", "null-version"]
)");
  // The fake test plugin reports one accelerator-kind device, fake:0.
  CHECK(bp::num_gpus() == 1);
  CHECK(bp::gpu(0).name() == "fake:0");
  CHECK(bp::try_gpu(0).name() == "fake:0");
  CHECK(bp::try_gpu(1) == bp::cpu());
  REQUIRE(bp::try_all_gpus().size() == 1);
  CHECK(bp::Device("gpu").name() == "fake:0");
  CHECK(bp::default_device().name() == "fake:0");  // "auto" prefers an accelerator
}

TEST_CASE("accelerator_kinds can count CPU-kind devices of one backend") {
  start(R"(
[devices]
fallback = ["reference", "cpu"]
accelerator_kinds = ["gpu", "reference:cpu"]
[plugins]
disabled = ["opencl", "cuda"]
)");
  CHECK(bp::num_gpus() == 1);
  CHECK(bp::gpu(0).name() == "reference:0");
  CHECK(bp::cpu().info().is_accelerator == 0);
}

TEST_CASE("the default device comes from the config") {
  start(R"(
[devices]
default = "reference:0"
[plugins]
disabled = ["opencl", "cuda"]
)");
  CHECK(bp::default_device().name() == "reference:0");
  bp::Tensor t = bp::zeros({2});
  CHECK(t.device().name() == "reference:0");
}

TEST_CASE("bp_devices lists every device with properties") {
  start(bp_test::kHostOnly);
  auto all = bp::devices();
  REQUIRE(all.size() >= 2);
  bool saw_cpu = false, saw_ref = false;
  for (auto &d : all) {
    saw_cpu |= d.name() == "cpu:0";
    saw_ref |= d.name() == "reference:0";
    CHECK(!std::string(d.info().model).empty());
  }
  CHECK(saw_cpu);
  CHECK(saw_ref);
  CHECK(!bp::cpu().properties().empty());
  CHECK(bp_device_name(12345) == nullptr);
  CHECK(bp_last_error_status() == BP_ERR_INVALID_HANDLE);
}
