// Structs the caller fills carry the caller's struct_size: the core accepts
// any size from the 1.0 size up and writes nothing past it (docs/abi-rules.md).
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "backplane/plugin.h"
#include "runtime_fixture.hpp"

using bp_test::start;

namespace {

constexpr unsigned char kGuard = 0xA5;

// A struct of type S whose caller knows only its first `size` bytes, in a
// buffer whose remaining bytes hold a guard pattern.
template <class S>
struct Shortened {
  alignas(S) unsigned char bytes[sizeof(S) + 16];
  explicit Shortened(size_t size) : size_(size) {
    std::memset(bytes, kGuard, sizeof bytes);
    std::memset(bytes, 0, size);
    as().struct_size = uint32_t(size);
  }
  S &as() { return *reinterpret_cast<S *>(bytes); }
  bool guard_intact() const {
    for (size_t i = size_; i < sizeof bytes; ++i)
      if (bytes[i] != kGuard) return false;
    return true;
  }
  size_t size_;
};

}  // namespace

TEST_CASE("bp_plugin_report_get writes a 1.0 report only as far as its 1.0 size") {
  start(bp_test::kHostOnly);
  REQUIRE(bp_plugin_report_count() > 0);
  Shortened<bp_plugin_report> old(BP_PLUGIN_REPORT_SIZE_1_0);
  REQUIRE(bp_plugin_report_get(0, 1, &old.as()) == BP_OK);
  CHECK(old.guard_intact());
  CHECK(old.as().struct_size == BP_PLUGIN_REPORT_SIZE_1_0);
  CHECK(std::string(old.as().path).find("libbackplane-") != std::string::npos);
}

TEST_CASE("a 1.1 report carries the plugin's ABI version") {
  start(bp_test::kHostOnly);
  bool any_loaded = false;
  for (const bp_plugin_report &r : bp_test::plugin_reports(0)) {
    if (!r.loaded) continue;
    any_loaded = true;
    INFO(r.name);
    CHECK(r.abi_major == BP_PLUGIN_ABI_MAJOR);
    CHECK(r.abi_minor == BP_PLUGIN_ABI_MINOR);
  }
  CHECK(any_loaded);
}

TEST_CASE("a rejected plugin's report shows the ABI version it offered") {
  start(bp_test::with_test_plugins());
  bool found = false;
  for (const bp_plugin_report &r : bp_test::plugin_reports(0)) {
    if (std::string(r.path).find("libbackplane-wrong-abi.so") == std::string::npos) continue;
    found = true;
    CHECK(r.loaded == 0);
    CHECK(r.abi_major == 99);
  }
  CHECK(found);
}

TEST_CASE("bp_device_info_get and bp_backend_counters_get take their 1.0 sizes") {
  start(bp_test::kHostOnly);
  Shortened<bp_device_info> info(BP_DEVICE_INFO_SIZE_1_0);
  REQUIRE(bp_device_info_get(bp::cpu().id(), &info.as()) == BP_OK);
  CHECK(info.guard_intact());
  CHECK(std::string(info.as().name) == "cpu:0");

  Shortened<bp_backend_counters> counters(BP_BACKEND_COUNTERS_SIZE_1_0);
  REQUIRE(bp_backend_counters_get(info.as().backend, &counters.as()) == BP_OK);
  CHECK(counters.guard_intact());
}

TEST_CASE("a struct_size below the 1.0 size is refused and nothing is written") {
  start(bp_test::kHostOnly);
  Shortened<bp_device_info> info(BP_DEVICE_INFO_SIZE_1_0 - 8);
  CHECK(bp_device_info_get(bp::cpu().id(), &info.as()) == BP_ERR_INVALID_ARGUMENT);
  CHECK(std::string(bp_last_error()).find("smaller than the first published size") !=
        std::string::npos);
  CHECK(info.guard_intact());
  CHECK(info.as().name == nullptr);

  Shortened<bp_plugin_report> report(8);
  CHECK(bp_plugin_report_get(0, 0, &report.as()) == BP_ERR_INVALID_ARGUMENT);
  CHECK(report.guard_intact());

  Shortened<bp_backend_counters> counters(4);
  CHECK(bp_backend_counters_get("reference", &counters.as()) == BP_ERR_INVALID_ARGUMENT);
  CHECK(counters.guard_intact());
}
