// wrap_host on cpu-openblas: borrowed host memory (tests/support/wrap_host_cases.hpp),
// which must never enter the memory pool's cache.
#include "plugin_harness.hpp"
#include "wrap_host_cases.hpp"

TEST_CASE("cpu wrap_host reads, writes and computes in the owner's memory and releases it once at free",
          "[api][wrap_host]") {
  bp_test::Session cpu("cpu-openblas", {{"threads", "2"}});
  bp_test::check_wrapped_vector(cpu);
}

TEST_CASE("cpu wrap_host of 0 bytes at NULL, and with no release", "[api][wrap_host]") {
  bp_test::Session cpu("cpu-openblas");
  bp_test::check_wrapped_nothing(cpu);
}

TEST_CASE("cpu wrap_host that fails never calls release", "[api][wrap_host]") {
  bp_test::Session cpu("cpu-openblas");
  bp_test::check_wrap_failures(cpu);
}

// A freed wrapped header must not be handed out again as a pooled block
// (its data would be the owner's memory): buffers allocated right after
// are the pool's own, and writing them leaves the owner's bytes alone.
TEST_CASE("cpu wrap_host buffers never come back from alloc", "[api][wrap_host]") {
  bp_test::Session cpu("cpu-openblas");
  const bp_plugin_api &api = cpu.api();
  std::vector<uint8_t> owner(64, 0x5A);
  for (int round = 0; round < 8; ++round) {
    bp_buffer wrapped = nullptr;
    REQUIRE(api.wrap_host(0, owner.data(), owner.size(), nullptr, nullptr, &wrapped) == BP_OK);
    REQUIRE(api.free(wrapped) == BP_OK);
    bp_buffer fresh = cpu.alloc(owner.size());
    void *address = nullptr;
    REQUIRE(api.host_address(fresh, &address) == BP_OK);
    CHECK(address != owner.data());
    const std::vector<uint8_t> ones(owner.size(), 1);
    REQUIRE(api.write(fresh, 0, ones.data(), ones.size()) == BP_OK);
  }
  CHECK(owner == std::vector<uint8_t>(64, 0x5A));
}
